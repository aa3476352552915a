"""Wildcard indexes ($**, path.$**, wildcardProjection) with pymongo: for random documents with
nested documents and arrays and random filters and sorts, what a query returns through them
equals what a collection scan returns; explain shows mongod's wildcard IXSCAN; specs fail as in
mongod; writes, builds over existing data and validate keep them whole. Fixed seed."""

import datetime
import random
import re

import bson
import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS

SEED = 20261202
DOCUMENTS = 1500
QUERIES = 250
NATURAL = [("$natural", 1)]
PATHS = ["a", "b", "a.x", "a.y", "a.y.z", "c.d", "arr", "arr.x", "arr.y", "n", "_id", "a.0"]

WILDCARD_INDEXES = [
    ({"key": {"$**": 1}, "name": "all"}),
    ({"key": {"a.$**": 1}, "name": "a_subtree"}),
    ({"key": {"$**": -1}, "name": "some_desc", "wildcardProjection": {"a.y": 1, "arr": 1, "b": 1}}),
    ({"key": {"$**": 1}, "name": "but_c", "wildcardProjection": {"c": 0, "a.x": 0}}),
]


def random_scalar(rng):
    kind = rng.randrange(10)
    if kind == 0:
        return None
    if kind == 1:
        return rng.randint(-3, 3)
    if kind == 2:
        return rng.choice([-1.5, 0.0, 1.0, 2.5])
    if kind == 3:
        return bson.Int64(rng.randint(-3, 3))
    if kind == 4:
        return rng.choice(["", "a", "ab", "abc", "b", "z"])
    if kind == 5:
        return rng.choice([True, False])
    if kind == 6:
        return datetime.datetime(2020, 1, 1 + rng.randrange(3))
    if kind == 7:
        return {}
    if kind == 8:
        return []
    return rng.randint(0, 2)


def random_value(rng, depth=0):
    roll = rng.random()
    if depth < 2 and roll < 0.2:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if depth < 2 and roll < 0.4:
        return {name: random_value(rng, depth + 1)
                for name in rng.sample(["x", "y", "z", "0"], rng.randrange(1, 3))}
    return random_scalar(rng)


def random_document(rng, i):
    doc = {"_id": i if rng.random() < 0.8 else {"k": i}}
    for field in ("a", "b", "c", "arr", "n"):
        if rng.random() < 0.8:
            doc[field] = random_value(rng)
    if rng.random() < 0.3:
        doc["c"] = {"d": random_scalar(rng)}
    return doc


def random_condition(rng):
    path = rng.choice(PATHS)
    value = random_scalar(rng) if rng.random() < 0.9 else random_value(rng)
    kind = rng.randrange(8)
    if kind == 0:
        return {path: value}
    if kind == 1:
        return {path: {"$in": [random_scalar(rng) for _ in range(rng.randrange(1, 4))]}}
    if kind in (2, 3, 4, 5):
        return {path: {["$gt", "$gte", "$lt", "$lte"][kind - 2]: value}}
    if kind == 6:
        return {path: {"$exists": rng.random() < 0.5}}
    return {path: re.compile("^" + rng.choice(["a", "ab", "b", ""]))}


def random_filter(rng):
    conditions = [random_condition(rng) for _ in range(rng.randrange(1, 3))]
    if rng.random() < 0.15:
        return {"$or": conditions}
    return conditions[0] if len(conditions) == 1 else {"$and": conditions}


def create_wildcard_indexes(coll):
    coll.database.command("createIndexes", coll.name, indexes=WILDCARD_INDEXES)


@pytest.fixture
def populated(db):
    rng = random.Random(SEED)
    # One index maintained by every insert, the others built over the documents already there.
    db.c.create_index([("$**", 1)], name="all")
    db.c.insert_many([random_document(rng, i) for i in range(DOCUMENTS)])
    create_wildcard_indexes(db.c)
    return db.c


def ids(cursor):
    return sorted((d["_id"] for d in cursor), key=repr)


def test_wildcard_indexes_return_what_a_collection_scan_returns(populated):
    rng = random.Random(SEED + 1)
    used, hinted_ok = set(), 0
    for _ in range(QUERIES):
        query = random_filter(rng)
        expected = ids(populated.find(query, {"_id": 1}).hint(NATURAL))
        assert ids(populated.find(query, {"_id": 1})) == expected, query
        assert populated.count_documents(query) == len(expected), query
        plan = populated.find(query).explain()["queryPlanner"]["winningPlan"]
        if plan["stage"] == "FETCH" and plan["inputStage"]["stage"] == "IXSCAN":
            used.add(plan["inputStage"]["indexName"])
        for spec in WILDCARD_INDEXES:
            try:
                hinted = ids(populated.find(query, {"_id": 1}).hint(spec["name"]))
            except pymongo.errors.OperationFailure as failure:
                assert failure.code == 2, (query, spec["name"], failure)  # no path it bounds
                continue
            hinted_ok += 1
            assert hinted == expected, (query, spec["name"])
    assert used, "the planner never chose a wildcard index"
    assert hinted_ok > QUERIES


def test_writes_keep_wildcard_indexes_whole(populated):
    rng = random.Random(SEED + 2)
    for round_idx in range(30):
        query = random_filter(rng)
        expected = populated.count_documents(query, hint=NATURAL)
        update = {"$set": {rng.choice(["a", "a.y", "b", "arr", "c.d"]): random_value(rng)}}
        try:
            assert populated.update_many(query, update).matched_count == expected, query
        except pymongo.errors.WriteError:
            pass  # a path through a scalar: mongod refuses it too
        if round_idx % 6 == 0:
            populated.delete_many(random_filter(rng))
    populated.insert_many([random_document(rng, DOCUMENTS + i) for i in range(200)])
    reply = populated.database.command("validate", populated.name)
    assert reply["valid"] is True, reply
    assert reply["missingIndexEntries"] == [] and reply["extraIndexEntries"] == []
    for _ in range(QUERIES // 2):
        query = random_filter(rng)
        expected = ids(populated.find(query, {"_id": 1}).hint(NATURAL))
        assert ids(populated.find(query, {"_id": 1})) == expected, query


def test_sorts_through_a_wildcard_index_return_the_scans_order(db):
    # "v" never holds an array, so an index where no document has one gives the sort itself.
    db.s.insert_many([{"_id": i, "v": (i * 7) % 23, "w": {"u": str(i % 5)}} for i in range(300)])
    db.s.create_index([("$**", 1)])
    for query, field in [({"v": {"$gte": 5}}, "v"), ({"w.u": {"$in": ["1", "3"]}}, "w.u"),
                         ({"v": {"$lt": 9}}, "v")]:
        for direction in (1, -1):
            plan = db.s.find(query).sort([(field, direction)]).explain()["queryPlanner"][
                "winningPlan"]
            assert plan["stage"] == "FETCH" and plan["inputStage"]["stage"] == "IXSCAN", plan
            got = list(db.s.find(query).sort([(field, direction)]))
            expected = list(db.s.find(query).sort([(field, direction)]).hint(NATURAL))
            key = (lambda d: d[field]) if field == "v" else (lambda d: d["w"]["u"])
            assert [key(d) for d in got] == [key(d) for d in expected]
    db.s.insert_one({"_id": "arr", "v": [1, 2]})  # v is multikey now: a SORT stage orders
    plan = db.s.find({"v": {"$gte": 5}}).sort("v", 1).explain()["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "SORT", plan
    assert plan["inputStage"]["inputStage"]["isMultiKey"] is True
    # Multikey is tracked per path: w.u still gives its order.
    plan = db.s.find({"w.u": "1"}).sort("w.u", 1).explain()["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "FETCH" and plan["inputStage"]["isMultiKey"] is False, plan


def test_explain_shows_the_path_and_its_bounds(db):
    db.e.insert_many([{"a": {"b": i}, "s": "x" + str(i)} for i in range(10)])
    db.e.create_index([("$**", 1)])
    scan = db.e.find({"a.b": {"$gt": 3}}).explain()["queryPlanner"]["winningPlan"]["inputStage"]
    assert scan["stage"] == "IXSCAN"
    assert scan["keyPattern"] == {"$_path": 1, "a.b": 1}
    assert scan["indexName"] == "$**_1"
    assert scan["isMultiKey"] is False
    assert scan["indexBounds"] == {"$_path": ['["a.b", "a.b"]'], "a.b": ["(3, inf.0]"]}
    # A projection of the path alone still fetches: no covered plans over wildcard indexes.
    cursor = db.e.find({"a.b": {"$gt": 7}}, {"_id": 0, "a.b": 1})
    assert cursor.explain()["queryPlanner"]["winningPlan"]["inputStage"]["stage"] == "FETCH"
    assert list(cursor) == [{"a": {"b": 8}}, {"a": {"b": 9}}]
    scan = db.e.find({"s": bson.Regex("^x1")}).explain()["queryPlanner"]["winningPlan"][
        "inputStage"]
    assert scan["indexBounds"] == {"$_path": ['["s", "s"]'], "s": ['["x1", "x2")', "[/^x1/, /^x1/]"]}


def test_explain_shows_which_paths_are_multikey(db):
    db.m.insert_many([{"_id": 1, "a": [{"b": 1}, {"b": 2}], "c": {"d": 1}, "e": {"f": [1]}}])
    db.m.create_index([("$**", 1)])
    for path, multikey_paths in [("a.b", ["a"]), ("c.d", []), ("e.f", ["e.f"])]:
        plan = db.m.find({path: 1}).explain()["queryPlanner"]["winningPlan"]["inputStage"]
        assert plan["isMultiKey"] is bool(multikey_paths), (path, plan)
        assert plan["multiKeyPaths"] == {"$_path": [], path: multikey_paths}, (path, plan)
    # A document whose array meets a path more than once is returned once.
    assert [d["_id"] for d in db.m.find({"a.b": {"$gte": 1}})] == [1]


def test_multikey_paths_survive_a_restart(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        c.t.w.create_index([("$**", 1)])
        c.t.w.insert_many([{"_id": i, "tags": [i, i + 1], "n": i} for i in range(20)])
    own_server.restart()
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        plan = c.t.w.find({"tags": 7}).explain()["queryPlanner"]["winningPlan"]["inputStage"]
        assert plan["isMultiKey"] is True and plan["multiKeyPaths"]["tags"] == ["tags"]
        plan = c.t.w.find({"n": 7}).explain()["queryPlanner"]["winningPlan"]["inputStage"]
        assert plan["isMultiKey"] is False
        assert sorted(d["_id"] for d in c.t.w.find({"tags": 7})) == [6, 7]
        assert c.t.command("validate", "w")["valid"] is True


def test_exists_reads_the_path_and_its_subpaths(db):
    db.x.insert_many([{"_id": 1, "a": {"b": 1, "c": 2}}, {"_id": 2, "a": 5}, {"_id": 3},
                      {"_id": 4, "a": {"b": {"c": 1}}}, {"_id": 5, "ab": 1}])
    db.x.create_index([("$**", 1)])
    cursor = db.x.find({"a": {"$exists": True}})
    scan = cursor.explain()["queryPlanner"]["winningPlan"]["inputStage"]
    assert scan["indexBounds"] == {"$_path": ['["a", "a"]', '["a.", "a/")'],
                                   "a": ["[MinKey, MaxKey]"]}
    assert sorted(d["_id"] for d in cursor) == [1, 2, 4]  # each once, though 1 has two keys
    assert db.x.count_documents({"a.b": {"$exists": True}}) == 2


def test_distinct_and_count_read_through_a_wildcard_index(db):
    db.d.insert_many([{"_id": i, "a": i % 4, "b": {"c": i % 3}} for i in range(40)])
    db.d.create_index([("$**", 1)])
    assert sorted(db.d.distinct("a")) == [0, 1, 2, 3]
    assert sorted(db.d.distinct("a", {"b.c": 1})) == [0, 1, 2, 3]
    assert sorted(db.d.distinct("b.c", {"a": {"$gte": 2}})) == [0, 1, 2]
    assert db.d.count_documents({"b.c": 2, "a": 1}) == len(
        [i for i in range(40) if i % 3 == 2 and i % 4 == 1])


def test_a_collated_wildcard_index_answers_queries_under_its_collation(db):
    db.k.insert_many([{"_id": 1, "a": {"s": "abc"}}, {"_id": 2, "a": {"s": "ABC"}},
                      {"_id": 3, "a": {"s": "abd"}}, {"_id": 4, "a": {"s": ["Abc", "x"]}}])
    db.k.create_index([("$**", 1)], collation={"locale": "en", "strength": 2})
    cursor = db.k.find({"a.s": "aBc"}).collation({"locale": "en", "strength": 2})
    plan = cursor.explain()["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "FETCH" and plan["inputStage"]["stage"] == "IXSCAN", plan
    assert sorted(d["_id"] for d in cursor) == [1, 2, 4]
    assert sorted(d["_id"] for d in db.k.find({"a.s": "abc"})) == [1]  # simple: no index
    assert db.command("validate", "k")["valid"] is True


def test_conditions_a_wildcard_index_cannot_answer_scan_the_collection(db):
    db.n.insert_many([{"_id": 1, "a": None}, {"_id": 2}, {"_id": 3, "a": {"b": 1}},
                      {"_id": 4, "a": [1, 2]}, {"_id": 5, "a": [[1, 2]]}])
    db.n.create_index([("$**", 1)])
    for query, expected in [({"a": None}, [1, 2]), ({"a": {"$exists": False}}, [2]),
                            ({"a": {"b": 1}}, [3]), ({"a": [1, 2]}, [4, 5]),
                            ({"a.0": 1}, [4]), ({"a": {"$ne": 1}}, [1, 2, 3, 5])]:
        plan = db.n.find(query).explain()["queryPlanner"]["winningPlan"]
        assert plan["stage"] == "COLLSCAN", (query, plan)
        assert sorted(d["_id"] for d in db.n.find(query)) == expected, query
    assert sorted(d["_id"] for d in db.n.find({"a": 1})) == [4]
    assert sorted(d["_id"] for d in db.n.find({"a.b": 1})) == [3]


def test_or_branches_each_read_the_wildcard_index(db):
    db.o.insert_many([{"_id": i, "a": i, "b": {"c": i % 3}} for i in range(30)])
    db.o.create_index([("$**", 1)])
    query = {"$or": [{"a": 4}, {"b.c": 2}]}
    plan = db.o.find(query).explain()["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "FETCH" and plan["inputStage"]["stage"] == "OR", plan
    scans = plan["inputStage"]["inputStages"]
    assert [s["keyPattern"] for s in scans] == [{"$_path": 1, "a": 1}, {"$_path": 1, "b.c": 1}]
    assert sorted(d["_id"] for d in db.o.find(query)) == sorted({4} | set(range(2, 30, 3)))


def test_hints_by_name_and_key_pattern(db):
    db.h.insert_many([{"_id": 1, "a": 1, "c": {"d": 1}}, {"_id": 2, "a": 2, "c": {"d": 2}}])
    db.h.create_index([("$**", 1)])
    db.h.create_index([("c.$**", 1)])
    db.h.create_index("a")
    for hint in ("$**_1", [("$**", 1)]):
        cursor = db.h.find({"a": 1}).hint(hint)
        assert [d["_id"] for d in cursor] == [1]
        assert cursor.explain()["queryPlanner"]["winningPlan"]["inputStage"]["indexName"] == "$**_1"
    assert [d["_id"] for d in db.h.find({"c.d": 2}).hint([("c.$**", 1)])] == [2]
    for query, hint in [({"a": 1}, [("c.$**", 1)]), ({}, "$**_1")]:
        with pytest.raises(pymongo.errors.OperationFailure) as failed:
            list(db.h.find(query).hint(hint))
        assert failed.value.code == 2
    with pytest.raises(pymongo.errors.OperationFailure) as failed:
        db.command({"find": "h", "filter": {"b": 1}, "min": {"a": 1}, "hint": {"$**": 1}})
    assert failed.value.code == 51174


@pytest.mark.parametrize("key,options,code,message", [
    ([("$**", 1)], {"unique": True}, 67, "Index type 'wildcard' does not support the unique option"),
    ([("$**", 1)], {"sparse": True}, 67, "Index type 'wildcard' does not support the sparse option"),
    ([("$**", 1)], {"expireAfterSeconds": 10}, 67, "Index type 'wildcard' cannot be a TTL index"),
    ([("a", 1)], {"wildcardProjection": {"a": 1}}, 2,
     "The field 'wildcardProjection' is only allowed in an 'wildcard' index"),
    ([("a.$**", 1)], {"wildcardProjection": {"a": 1}}, 9,
     "The field 'wildcardProjection' is only allowed when 'key' is {\"$**\": ±1}"),
    ([("$**", 1)], {"wildcardProjection": {}}, 9,
     "The 'wildcardProjection' field can't be an empty object"),
    ([("$**", 1)], {"wildcardProjection": "a"}, 14,
     "The field 'wildcardProjection' must be a non-empty object, but got string"),
    ([("$**", 1)], {"wildcardProjection": {"a": 1, "b": 0}}, 31254,
     "Failed to parse: wildcardProjection :: caused by :: Cannot do exclusion on field b in "
     "inclusion projection"),
    ([("a.$**.b", 1)], {}, 67, "Index key contains an illegal field name: field name starts with '$'."),
    ([("$**", 1), ("b", 1)], {}, 67, "compound wildcard indexes are not supported by Quarry yet"),
])
def test_bad_specs_fail_as_in_mongod(db, key, options, code, message):
    with pytest.raises(pymongo.errors.OperationFailure) as failed:
        db.bad.create_index(key, **options)
    assert failed.value.code == code
    assert failed.value.details["errmsg"] == message
    assert "bad" not in db.list_collection_names() or len(db.bad.index_information()) == 1


def test_list_indexes_index_stats_and_sizes_show_wildcard_indexes(db):
    db.l.insert_many([{"_id": i, "a": {"b": i}, "c": i} for i in range(50)])
    db.l.create_index([("$**", 1)], name="w", wildcardProjection={"a": 1})
    spec = db.l.index_information()["w"]
    assert spec["key"] == [("$**", 1)] and spec["wildcardProjection"] == {"a": 1}
    assert [d["_id"] for d in db.l.find({"a.b": 7})] == [7]
    plan = db.l.find({"c": 7}).explain()["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "COLLSCAN"  # c is projected out
    stats = {s["name"]: s["accesses"]["ops"] for s in db.l.aggregate([{"$indexStats": {}}])}
    assert stats["w"] == 1
    assert db.command("collStats", "l")["indexSizes"]["w"] > 0
    reply = db.command("validate", "l")
    assert reply["valid"] is True and reply["keysPerIndex"]["w"] == 50


def test_hidden_and_partial_wildcard_indexes(db):
    db.p.insert_many([{"_id": i, "a": i, "kind": i % 2} for i in range(40)])
    db.p.create_index([("$**", 1)], name="part", partialFilterExpression={"kind": 1})
    plan = db.p.find({"a": 3}).explain()["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "COLLSCAN"  # the filter does not imply kind: 1
    cursor = db.p.find({"a": {"$lt": 10}, "kind": 1})
    assert cursor.explain()["queryPlanner"]["winningPlan"]["inputStage"]["indexName"] == "part"
    assert sorted(d["_id"] for d in cursor) == [1, 3, 5, 7, 9]
    assert db.command("validate", "p")["keysPerIndex"]["part"] == 20 * 2
    db.command("collMod", "p", index={"name": "part", "hidden": True})
    plan = db.p.find({"a": {"$lt": 10}, "kind": 1}).explain()["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "COLLSCAN"
