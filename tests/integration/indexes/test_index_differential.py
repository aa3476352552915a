"""Differential test: for random documents (many BSON types, arrays, nested documents, missing
fields, nulls) and random filters and sorts, what a query returns with the planner's choice and
with each index hinted equals what a collection scan returns. Fixed seed, so a failure repeats."""

import datetime
import random
import re

import bson
import pymongo
import pymongo.errors
import pytest

SEED = 20261201
DOCUMENTS = 2000
QUERIES = 300
NATURAL = [("$natural", 1)]

INDEXES = [
    [("a", 1)],
    [("b", -1)],
    [("a", 1), ("b", 1)],
    [("b", 1), ("c.d", -1)],
    [("s", 1)],
    [("arr", 1)],
    [("c.d", 1)],
    [("arr.x", 1)],
]


def random_scalar(rng):
    kind = rng.randrange(12)
    if kind == 0:
        return None
    if kind == 1:
        return rng.randint(-5, 5)
    if kind == 2:
        return rng.choice([-2.5, 0.0, 1.0, 2.5, 3.0, float("inf")])
    if kind == 3:
        return bson.Int64(rng.randint(-5, 5))
    if kind == 4:
        return rng.choice(["", "a", "ab", "abc", "b", "B", "ba", "z"])
    if kind == 5:
        return rng.choice([True, False])
    if kind == 6:
        return datetime.datetime(2020, 1, 1 + rng.randrange(5))
    if kind == 7:
        return bson.ObjectId(b"%012d" % rng.randrange(5))
    if kind == 8:
        return bson.Decimal128(str(rng.randint(-3, 3)))
    if kind == 9:
        return {"x": rng.randint(0, 2)}
    if kind == 10:
        return bson.MinKey() if rng.random() < 0.5 else bson.MaxKey()
    return rng.randint(0, 3)


def random_value(rng, allow_array=True):
    if allow_array and rng.random() < 0.15:
        return [random_scalar(rng) for _ in range(rng.randrange(4))]
    return random_scalar(rng)


def random_document(rng, i):
    doc = {"_id": i}
    for field in ("a", "b", "s"):
        if rng.random() < 0.85:
            # One array field per document at most among a and b, or compound indexes refuse it.
            doc[field] = random_value(rng, allow_array=field != "b" or not isinstance(
                doc.get("a"), list))
    if rng.random() < 0.8:
        doc["c"] = {"d": random_value(rng, allow_array=False)} if rng.random() < 0.9 else 5
    if rng.random() < 0.7:
        doc["arr"] = [random_scalar(rng) for _ in range(rng.randrange(5))]
    return doc


def random_condition(rng, scalar=random_scalar):
    field = rng.choice(["a", "b", "s", "c.d", "arr"])
    value = scalar(rng)
    kind = rng.randrange(14)
    if kind == 9:
        return {field: {"$ne": value}}
    if kind == 10:
        values = [scalar(rng) for _ in range(rng.randrange(3))]
        if rng.random() < 0.2:
            values.append([])
        return {field: {"$nin": values}}
    if kind == 11:
        return {field: {"$not": {rng.choice(["$gt", "$gte", "$lt", "$lte", "$eq"]): value}}}
    if kind == 12:
        ops = rng.sample(["$gt", "$gte", "$lt", "$lte", "$eq", "$ne"], rng.randrange(1, 3))
        return {field: {"$elemMatch": {op: scalar(rng) for op in ops}}}
    if kind == 13:
        return {"arr": {"$elemMatch": {"x": rng.choice([value, {"$gte": rng.randint(0, 2)}])}}}
    if kind == 0:
        return {field: value}
    if kind == 1:
        return {field: {"$in": [scalar(rng) for _ in range(rng.randrange(1, 4))]}}
    if kind in (2, 3, 4, 5):
        op = ["$gt", "$gte", "$lt", "$lte"][kind - 2]
        return {field: {op: value}}
    if kind == 6:
        low, high = sorted([rng.randint(-5, 5), rng.randint(-5, 5)])
        return {field: {"$gte": low, "$lt": high}}
    if kind == 7:
        return {field: {"$exists": rng.random() < 0.5}}
    return {field: re.compile("^" + rng.choice(["a", "ab", "b", ""]))}


def random_filter(rng):
    conditions = [random_condition(rng) for _ in range(rng.randrange(1, 3))]
    return conditions[0] if len(conditions) == 1 else {"$and": conditions}


@pytest.fixture
def populated(db):
    rng = random.Random(SEED)
    db.c.insert_many([random_document(rng, i) for i in range(DOCUMENTS)])
    for keys in INDEXES:
        db.c.create_index(keys)
    return db.c


def test_every_index_returns_what_a_collection_scan_returns(populated):
    rng = random.Random(SEED + 1)
    names = [name for name in populated.index_information() if name != "_id_"]
    used = set()
    for _ in range(QUERIES):
        query = random_filter(rng)
        expected = sorted(d["_id"] for d in populated.find(query, {"_id": 1}).hint([("$natural", 1)]))
        chosen = sorted(d["_id"] for d in populated.find(query, {"_id": 1}))
        assert chosen == expected, query
        plan = populated.find(query).explain()["queryPlanner"]["winningPlan"]
        if plan["stage"] == "FETCH":
            used.add(plan["inputStage"]["indexName"])
        for name in names:
            hinted = sorted(d["_id"] for d in populated.find(query, {"_id": 1}).hint(name))
            assert hinted == expected, (query, name)
    assert len(used) >= 4, used  # the planner did choose indexes


def test_sorts_through_an_index_return_the_collection_scans_order(populated):
    rng = random.Random(SEED + 2)
    for _ in range(QUERIES // 3):
        query = random_filter(rng)
        field = rng.choice(["a", "b", "s", "c.d"])
        direction = rng.choice([1, -1])
        limit = rng.choice([0, 1, 5, 50])

        def run(hint=None):
            cursor = populated.find(query, {"_id": 1, field.split(".")[0]: 1}).sort(
                [(field, direction), ("_id", 1)])
            if hint is not None:
                cursor = cursor.hint(hint)
            return [d["_id"] for d in cursor.limit(limit)]

        # With _id as a tie-break, the order is fully determined.
        assert run() == run([("$natural", 1)]), (query, field, direction, limit)


def sort_key_of(doc):
    """c.d as sorting compares it: numbers of every type by value, missing as null."""
    value = doc["c"].get("d") if isinstance(doc.get("c"), dict) else None
    if isinstance(value, bson.Decimal128):
        value = float(value.to_decimal())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", float(value))
    return ("other", repr(value))


def test_an_index_that_gives_the_order_returns_the_sorted_scans_order(populated):
    # c.d never holds an array, so its index is not multikey and gives the sort itself. Sorts
    # do not order ties, so each result is compared by its sequence of sort keys (and, for the
    # whole result, its set of documents).
    rng = random.Random(SEED + 3)
    keys = {d["_id"]: sort_key_of(d) for d in populated.find({}, {"c": 1})}
    index_sorted = 0
    for _ in range(QUERIES // 3):
        query = random_filter(rng)
        direction = rng.choice([1, -1])
        limit = rng.choice([0, 1, 7])

        def run(hint=None):
            cursor = populated.find(query, {"_id": 1}).sort("c.d", direction).limit(limit)
            return [d["_id"] for d in (cursor.hint(hint) if hint else cursor)]

        explained = populated.find(query).sort("c.d", direction).limit(limit).explain()
        stage = explained["queryPlanner"]["winningPlan"]
        stages = []
        while stage is not None:
            stages.append(stage["stage"])
            stage = stage.get("inputStage")
        index_sorted += "SORT" not in stages
        via_plan, via_scan = run(), run([("$natural", 1)])
        assert [keys[i] for i in via_plan] == [keys[i] for i in via_scan], (query, direction)
        if limit == 0:
            assert sorted(via_plan) == sorted(via_scan), query
    assert index_sorted > 10


def random_or_filter(rng):
    branches = [random_filter(rng) for _ in range(rng.randrange(1, 4))]
    query = {"$or": branches}
    if rng.random() < 0.3:
        query.update(random_condition(rng))  # a condition beside the $or, on any field
    return query


def has_stage(plan, name):
    if plan["stage"] == name:
        return True
    children = plan.get("inputStages", []) + ([plan["inputStage"]] if "inputStage" in plan else [])
    return any(has_stage(child, name) for child in children)


def test_or_of_index_scans_returns_what_a_collection_scan_returns(populated):
    rng = random.Random(SEED + 4)
    or_plans = 0
    for _ in range(QUERIES):
        query = random_or_filter(rng)
        expected = sorted(d["_id"] for d in populated.find(query, {"_id": 1}).hint(NATURAL))
        chosen = [d["_id"] for d in populated.find(query, {"_id": 1})]
        assert sorted(chosen) == expected, query
        assert len(set(chosen)) == len(chosen), query  # each document once
        assert populated.count_documents(query) == len(expected), query
        via_pipeline = [d["_id"] for d in populated.aggregate([{"$match": query}])]
        assert sorted(via_pipeline) == expected, query
        limited = [d["_id"] for d in populated.find(query, {"_id": 1}).sort("_id", -1).limit(3)]
        assert limited == sorted(expected, reverse=True)[:3], query
        or_plans += has_stage(populated.find(query).explain()["queryPlanner"]["winningPlan"], "OR")
    assert or_plans > QUERIES // 10, or_plans  # the planner did read through OR plans


def test_updates_and_deletes_through_an_or_of_index_scans_touch_each_match_once(populated):
    rng = random.Random(SEED + 5)
    for round_idx in range(20):
        query = random_or_filter(rng)
        expected = populated.count_documents(query, hint=NATURAL)
        # Moving a matched document's keys ahead of the scans must not change it twice.
        moved = {"$inc": {"touched": 1}, "$set": {"b": 100 + round_idx, "arr": [round_idx]}}
        result = populated.update_many(query, moved if round_idx % 2 else {"$inc": {"touched": 1}})
        assert result.matched_count == expected, query
        assert populated.count_documents({"touched": {"$gt": 1}}) == 0, query
        populated.update_many({}, {"$unset": {"touched": ""}})
        if round_idx % 5 == 0:
            assert populated.delete_many(query).deleted_count == expected, query
            assert populated.count_documents(query, hint=NATURAL) == 0, query


def test_a_pipeline_sort_an_index_gives_returns_the_sorted_scans_order(populated):
    # [$match, $sort on c.d, $limit]: when the c.d index gives the order, the $sort leaves the
    # pipeline for the plan. What comes out must sort as the pipeline's own $sort does.
    rng = random.Random(SEED + 6)
    keys = {d["_id"]: sort_key_of(d) for d in populated.find({}, {"c": 1})}
    absorbed = 0
    for _ in range(QUERIES // 3):
        pipeline = [{"$match": random_filter(rng)}] if rng.random() < 0.8 else []
        pipeline.append({"$sort": {"c.d": rng.choice([1, -1])}})
        if rng.random() < 0.5:
            pipeline.append({"$limit": rng.choice([1, 7, 50])})
        via_plan = [d["_id"] for d in populated.aggregate(pipeline)]
        via_scan = [d["_id"] for d in populated.aggregate(pipeline, hint={"$natural": 1})]
        assert [keys[i] for i in via_plan] == [keys[i] for i in via_scan], pipeline
        if len(pipeline) == 1 or "$limit" not in pipeline[-1]:
            assert sorted(via_plan) == sorted(via_scan), pipeline
        explained = populated.database.command(
            {"explain": {"aggregate": "c", "pipeline": pipeline, "cursor": {}},
             "verbosity": "queryPlanner"})
        stages = explained.get("stages", [])
        absorbed += not any("$sort" in stage for stage in stages)
    assert absorbed > 10, absorbed


def typed(value):
    """`value` with every type spelled out, so that 1, 1.0 and Int64(1) differ, and fields
    compare in order."""
    if isinstance(value, dict):
        return [(key, typed(v)) for key, v in value.items()]
    if isinstance(value, list):
        return ["array", [typed(v) for v in value]]
    return [type(value).__name__, repr(value)]


def test_projections_of_index_fields_return_what_a_collection_scan_returns(populated):
    # The projections a covered plan would answer from keys alone: index fields only, without
    # _id. Missing fields (null in keys), numbers of every type (alike in keys) and arrays must
    # come back exactly as the documents hold them, in the documents' field order.
    rng = random.Random(SEED + 7)
    for _ in range(QUERIES // 3):
        query = random_filter(rng) if rng.random() < 0.7 else random_or_filter(rng)
        keys = rng.choice(INDEXES)
        projection = {path: 1 for path, _ in keys}
        projection["_id"] = 0
        sort = [("_id", 1)]
        expected = [typed(d) for d in populated.find(query, projection).sort(sort).hint(NATURAL)]
        for hint in (None, keys):
            cursor = populated.find(query, projection).sort(sort)
            got = [typed(d) for d in (cursor.hint(hint) if hint else cursor)]
            assert got == expected, (query, projection, hint)


def test_a_wildcard_index_beside_the_others_returns_what_a_collection_scan_returns(populated):
    # The wildcard index competes with the single-field ones on the same paths; hinted, it
    # answers every filter that bounds one of its paths and refuses the others with BadValue.
    populated.create_index([("$**", 1)], name="wildcard")
    rng = random.Random(SEED + 7)
    hinted_ok = 0
    for _ in range(QUERIES):
        query = random_filter(rng) if rng.random() < 0.8 else random_or_filter(rng)
        expected = sorted(d["_id"] for d in populated.find(query, {"_id": 1}).hint(NATURAL))
        assert sorted(d["_id"] for d in populated.find(query, {"_id": 1})) == expected, query
        try:
            hinted = sorted(d["_id"] for d in populated.find(query, {"_id": 1}).hint("wildcard"))
        except pymongo.errors.OperationFailure as failure:
            assert failure.code == 2, (query, failure)
            continue
        hinted_ok += 1
        assert hinted == expected, query
    assert hinted_ok > QUERIES // 3, hinted_ok


# Collated indexes: for random collations, strings (also inside arrays and documents) that
# differ in case, accents and digits, queries and sorts under the index's collation return
# what a collection scan under that collation returns.
COLLATED_STRINGS = ["", "a", "A", "á", "Á", "ab", "aB", "Ab", "b", "B", "ba", "bA", "côte",
                    "cote", "Côte", "a2", "a10", "A9", "z", "Z"]
COLLATED_INDEXES = [[("a", 1)], [("s", -1)], [("a", 1), ("b", 1)], [("arr", 1)], [("c.d", 1)]]


def random_collation(rng):
    collation = {"locale": rng.choice(["en", "fr", "de"]), "strength": rng.randint(1, 3)}
    if rng.random() < 0.5:
        collation["numericOrdering"] = True
    if collation["strength"] == 3 and rng.random() < 0.5:
        collation["caseFirst"] = rng.choice(["upper", "lower", "off"])
    return collation


def random_collated_scalar(rng):
    kind = rng.randrange(10)
    if kind < 6:
        return rng.choice(COLLATED_STRINGS)
    if kind == 6:
        return rng.randint(0, 3)
    if kind == 7:
        return None
    if kind == 8:
        return {"x": rng.choice(COLLATED_STRINGS)}
    return [rng.choice(COLLATED_STRINGS) for _ in range(rng.randrange(3))]


def random_collated_document(rng, i):
    doc = {"_id": i}
    for field in ("a", "b", "s"):
        if rng.random() < 0.9:
            value = random_collated_scalar(rng)
            if field == "b" and isinstance(doc.get("a"), list) and isinstance(value, list):
                value = value[0] if value else None
            doc[field] = value
    if rng.random() < 0.8:
        doc["c"] = {"d": rng.choice(COLLATED_STRINGS)}
    if rng.random() < 0.7:
        doc["arr"] = [random_collated_scalar(rng) for _ in range(rng.randrange(4))]
    return doc


def test_collated_indexes_return_what_a_collated_collection_scan_returns(db):
    rng = random.Random(SEED + 7)
    used = set()
    for round_idx in range(4):
        collation = random_collation(rng)
        coll = db["collated%d" % round_idx]
        coll.insert_many([random_collated_document(rng, i) for i in range(400)])
        for keys in COLLATED_INDEXES:
            coll.create_index(keys, collation=collation)
        coll.create_index([("a", 1)], name="a_simple")  # another collation: never chosen
        names = [i["name"] for i in coll.list_indexes()
                 if i["name"] not in ("_id_", "a_simple")]
        for _ in range(60):
            query = random_condition(rng, random_collated_scalar)
            scan = coll.find(query, {"_id": 1}, collation=collation).hint(NATURAL)
            expected = sorted(d["_id"] for d in scan)
            chosen = sorted(d["_id"] for d in coll.find(query, {"_id": 1}, collation=collation))
            assert chosen == expected, (collation, query)
            plan = coll.find(query, collation=collation).explain()["queryPlanner"]["winningPlan"]
            if plan["stage"] == "FETCH":
                assert plan["inputStage"]["indexName"] != "a_simple", (collation, query)
                used.add(plan["inputStage"]["indexName"])
            # Under the simple collation the collated indexes serve only filters without strings.
            simple = sorted(d["_id"] for d in coll.find(query, {"_id": 1}).hint(NATURAL))
            assert sorted(d["_id"] for d in coll.find(query, {"_id": 1})) == simple, query
            for name in names:
                hinted = coll.find(query, {"_id": 1}, collation=collation).hint(name)
                assert sorted(d["_id"] for d in hinted) == expected, (collation, query, name)
            field = rng.choice(["a", "s", "c.d"])
            order = [(field, rng.choice([1, -1])), ("_id", 1)]
            sort_scan = coll.find(query, {"_id": 1}, collation=collation).sort(order)
            sort_plan = coll.find(query, {"_id": 1}, collation=collation).sort(order[:1])
            assert [d["_id"] for d in sort_scan] == \
                [d["_id"] for d in sort_scan.clone().hint(NATURAL)], (collation, query, order)
            # Without a tie-break, compare the sorted values' collation order through the scan.
            by_plan = [d["_id"] for d in sort_plan]
            assert sorted(by_plan) == expected, (collation, query, order)
    assert len(used) >= 3, used


# SORT_MERGE: p and r are small integers and q any scalar, never arrays, so no index is multikey
# and an $in on p (and r), or an $or of branches on p and r, sorted on q merges one scan per
# value or branch.
MERGE_INDEXES = [[("p", 1), ("q", 1)], [("r", 1), ("p", -1), ("q", -1)], [("r", 1), ("q", 1)]]


def random_merge_document(rng, i):
    doc = {"_id": i, "p": rng.randrange(6)}
    if rng.random() < 0.9:
        doc["q"] = random_scalar(rng)
    if rng.random() < 0.9:
        doc["r"] = rng.randrange(4)
    return doc


def random_merge_filter(rng):
    def values(count):
        return rng.sample(range(7), rng.randint(1, count))

    kind = rng.randrange(4)
    if kind == 0:
        query = {"p": {"$in": values(5)}}
    elif kind == 1:
        query = {"p": {"$in": values(4)}, "r": {"$in": values(3)}}
    elif kind == 2:
        query = {"$or": [{"p": rng.randrange(6)}, {"r": {"$in": values(2)}}]}
    else:
        query = {"$or": [{"p": {"$in": values(3)}}, {"r": rng.randrange(4), "q": {"$gte": 0}}]}
    if rng.random() < 0.3:
        query["q"] = {"$lt": rng.randint(-3, 3)}
    return query


def scalar_sort_key(value):
    """A sort key as sorting compares it: numbers of every type by value, missing as null."""
    if isinstance(value, bson.Decimal128):
        value = float(value.to_decimal())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", float(value))
    return ("other", repr(value))


def test_in_and_or_sorted_through_merged_scans_return_the_sorted_scans_order(db):
    rng = random.Random(SEED + 8)
    coll = db.merged
    coll.insert_many([random_merge_document(rng, i) for i in range(1500)])
    for keys in MERGE_INDEXES:
        coll.create_index(keys)
    keys = {d["_id"]: scalar_sort_key(d.get("q")) for d in coll.find({}, {"q": 1})}
    merged = 0
    for _ in range(QUERIES // 2):
        query = random_merge_filter(rng)
        direction = rng.choice([1, -1])
        skip, limit = rng.choice([(0, 0), (0, 1), (0, 9), (4, 20), (30, 0)])

        def run(hint=None):
            cursor = coll.find(query, {"_id": 1}).sort("q", direction).skip(skip).limit(limit)
            return [d["_id"] for d in (cursor.hint(hint) if hint else cursor)]

        via_scan = run(NATURAL)
        for hint in [None] + [index for index in MERGE_INDEXES if "$or" not in query]:
            via_plan = run(hint)
            # Sorts do not order ties: compare the sequence of sort keys, and whole results.
            assert [keys[i] for i in via_plan] == [keys[i] for i in via_scan], (query, hint)
            if limit == 0 and skip == 0:
                assert sorted(via_plan) == sorted(via_scan), (query, hint)
        plan = coll.find(query).sort("q", direction).limit(limit).explain()
        merged += has_stage(plan["queryPlanner"]["winningPlan"], "SORT_MERGE")
    assert merged > QUERIES // 6, merged
