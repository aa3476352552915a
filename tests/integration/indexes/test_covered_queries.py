"""Covered queries: a find whose filter, sort and projection read only an index's fields is
answered from the index entries (PROJECTION_COVERED over IXSCAN, no document examined), and
returns exactly what reading the documents returns: each value's own type, missing fields left
out, later updates seen."""

import random

import bson
import pytest
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from plan_shapes import random_typed_value, winning_stages

NATURAL = [("$natural", 1)]


def typed(value):
    """`value` with every type spelled out, so that 1, 1.0 and Int64(1) differ."""
    if isinstance(value, dict):
        return sorted((key, typed(v)) for key, v in value.items())
    if isinstance(value, list):
        return ["array", [typed(v) for v in value]]
    return [type(value).__name__, repr(value)]


def scanned(coll, query, projection, sort=None):
    cursor = coll.find(query, projection).hint(NATURAL)
    docs = list(cursor.sort(sort) if sort else cursor)
    return [typed(d) for d in docs]


def test_an_index_answers_a_projection_of_its_fields_without_reading_documents(db):
    db.c.create_index([("a", 1), ("b", 1)])
    db.c.insert_many([{"_id": i, "a": i % 10, "b": f"v{i}", "other": "x" * 100}
                      for i in range(200)])
    query, projection = {"a": {"$in": [3, 4]}}, {"_id": 0, "a": 1, "b": 1}
    explained = db.c.find(query, projection).explain()
    assert winning_stages(explained) == ["PROJECTION_COVERED", "IXSCAN"]
    stats = explained["executionStats"]
    assert (stats["nReturned"], stats["totalKeysExamined"], stats["totalDocsExamined"]) == (
        40, 40, 0)
    got = sorted((d["a"], d["b"]) for d in db.c.find(query, projection))
    assert got == sorted((i % 10, f"v{i}") for i in range(200) if 3 <= i % 10 < 5)


def test_values_keep_their_own_types_where_the_index_keys_are_alike(db):
    db.c.create_index("a")
    docs = [{"_id": 1, "a": 1}, {"_id": 2, "a": Int64(1)}, {"_id": 3, "a": 1.0},
            {"_id": 4, "a": Decimal128("1.0")}, {"_id": 5, "a": -0.0}, {"_id": 6, "a": None},
            {"_id": 7}, {"_id": 8, "a": {"x": Int64(2), "y": [1, 2.0]}},
            {"_id": 9, "a": Decimal128("0.1000000000000000000000000000000001")},
            {"_id": 10, "a": bson.Regex("^x", "i")}]
    db.c.insert_many(docs)
    projection = {"_id": 0, "a": 1}
    for query in ({"a": 1}, {"a": {"$gte": -1}}, {"a": None}, {}):
        cursor = db.c.find(query, projection).sort("a", 1)
        if query:
            assert winning_stages(cursor.explain())[0] == "PROJECTION_COVERED", query
        expected = scanned(db.c, query, projection, [("a", 1)])
        assert sorted(map(str, (typed(d) for d in cursor))) == sorted(map(str, expected)), query


def test_the_id_is_covered_only_by_an_index_that_holds_it(db):
    db.c.create_index("a")
    db.c.create_index([("a", 1), ("_id", 1)], name="a_id")
    db.c.insert_many([{"_id": i, "a": i} for i in range(10)])
    with_id = db.c.find({"a": {"$lt": 3}}, {"a": 1}).hint("a_id")
    assert winning_stages(with_id.explain()) == ["PROJECTION_COVERED", "IXSCAN"]
    assert sorted(d["_id"] for d in with_id) == [0, 1, 2]
    without = db.c.find({"a": {"$lt": 3}}, {"a": 1}).hint("a_1")
    assert winning_stages(without.explain()) == ["PROJECTION_DEFAULT", "FETCH", "IXSCAN"]


def test_reads_that_need_more_than_the_index_fetch_the_documents(db):
    db.c.create_index([("a", 1), ("b.c", 1)])
    db.c.insert_many([{"_id": i, "a": i, "b": {"c": i, "d": i}, "e": i} for i in range(10)])
    fetched = [
        ({"a": 1}, {"_id": 0, "e": 1}, None),            # a field outside the index
        ({"e": 1}, {"_id": 0, "a": 1}, None),            # a filter outside it
        ({"a": 1}, {"_id": 0, "b": 1}, None),            # a field above an index path
        ({"a": 1}, {"_id": 0, "a": 0}, None),            # an exclusion
        ({"a": 1}, {"_id": 0, "a": {"$add": [1, 1]}}, None),  # an expression
        ({"a": {"$gt": 1}}, {"_id": 0, "a": 1}, [("e", 1)]),  # a sort outside it
        ({"$expr": {"$eq": ["$a", 1]}, "a": 1}, {"_id": 0, "a": 1}, None),
    ]
    for query, projection, sort in fetched:
        cursor = db.c.find(query, projection)
        if sort:
            cursor = cursor.sort(sort)
        stages = winning_stages(cursor.explain())
        assert "PROJECTION_COVERED" not in stages, (query, projection)
        assert [typed(d) for d in cursor] == scanned(db.c, query, projection, sort)


def test_a_multikey_index_never_covers(db):
    db.c.create_index("a")
    db.c.insert_many([{"_id": 1, "a": 1}, {"_id": 2, "a": [1, 2]}])
    cursor = db.c.find({"a": 1}, {"_id": 0, "a": 1})
    assert "PROJECTION_COVERED" not in winning_stages(cursor.explain())
    assert sorted(map(str, (typed(d) for d in cursor))) == sorted(
        map(str, scanned(db.c, {"a": 1}, {"_id": 0, "a": 1})))


def test_updates_are_seen_even_when_the_key_stays_the_same(db):
    db.c.create_index("a")
    db.c.insert_one({"_id": 1, "a": 1})
    projection = {"_id": 0, "a": 1}
    db.c.update_one({"_id": 1}, {"$set": {"a": 1.0}})  # same key, another type
    assert [typed(d) for d in db.c.find({"a": 1}, projection)] == [typed({"a": 1.0})]
    db.c.update_one({"_id": 1}, {"$set": {"a": [1]}})  # now an array: multikey
    db.c.update_one({"_id": 1}, {"$set": {"a": 1}})
    assert [typed(d) for d in db.c.find({"a": 1}, projection)] == [typed({"a": 1})]
    # validate compares the values each entry keeps with its document's.
    assert db.command("validate", "c")["valid"] is True


def test_entries_without_kept_values_read_their_documents(db):
    # Large values and paths that go missing below their first field are not kept in the
    # index: those documents are read, and the results stay exact.
    db.c.create_index([("a", 1), ("b.c", 1)])
    docs = [{"_id": 1, "a": "x" * 1000, "b": {"c": 1}}, {"_id": 2, "a": "y", "b": {}},
            {"_id": 3, "a": "z", "b": 5}, {"_id": 4, "a": "w"}, {"_id": 5, "a": "v", "b": {"c": 2}}]
    db.c.insert_many(docs)
    query, projection = {"a": {"$gte": ""}}, {"_id": 0, "a": 1, "b.c": 1}
    cursor = db.c.find(query, projection)
    explained = cursor.explain()
    assert winning_stages(explained) == ["PROJECTION_COVERED", "IXSCAN"]
    assert explained["executionStats"]["totalDocsExamined"] == 3  # _id 1, 2 and 3
    assert sorted(map(str, (typed(d) for d in cursor))) == sorted(
        map(str, scanned(db.c, query, projection)))


def test_an_index_built_over_existing_documents_covers_them(db):
    db.c.insert_many([{"_id": i, "a": i, "b": -i} for i in range(50)])
    db.c.create_index([("a", 1), ("b", 1)])
    cursor = db.c.find({"a": {"$lt": 10}}, {"_id": 0, "b": 1}).sort("a", -1)
    explained = cursor.explain()
    assert winning_stages(explained) == ["PROJECTION_COVERED", "IXSCAN"]
    assert explained["executionStats"]["totalDocsExamined"] == 0
    assert [d["b"] for d in cursor] == [-i for i in range(9, -1, -1)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_covered_results_equal_the_documents_for_random_data(db, seed):
    rng = random.Random(seed)
    db.c.create_index([("a", 1), ("b.c", -1)])
    docs = []
    for i in range(300):
        doc = {"_id": i}
        if rng.random() < 0.9:
            doc["a"] = random_typed_value(rng)
        if rng.random() < 0.8:
            doc["b"] = {"c": random_typed_value(rng)} if rng.random() < 0.9 else rng.choice([{}, 7])
        docs.append(doc)
    db.c.insert_many(docs)
    for _ in range(60):
        field = rng.choice(["a", "b.c"])
        op = rng.choice(["$eq", "$gt", "$lte", "$ne", "$in", "$exists"])
        operand = {"$in": [random_typed_value(rng), random_typed_value(rng)],
                   "$exists": rng.random() < 0.5}.get(op, random_typed_value(rng))
        query = {field: {op: operand}}
        projection = rng.choice([{"_id": 0, "a": 1}, {"_id": 0, "b.c": 1},
                                 {"_id": 0, "a": 1, "b.c": 1}])
        sort = rng.choice([None, [("a", 1)], [("a", -1), ("b.c", 1)]])
        cursor = db.c.find(query, projection).hint("a_1_b.c_-1")
        if sort:
            cursor = cursor.sort(sort)
        # mongod reads the documents for $exists, whose bounds it never takes as exact.
        assert ("FETCH" in winning_stages(cursor.explain())) == (op == "$exists"), query
        got = [typed(d) for d in cursor]
        expected = scanned(db.c, query, projection, sort)
        if sort:
            # Ties may come in another order: compare the sequence of sort keys, then the sets.
            assert sorted(map(str, got)) == sorted(map(str, expected)), (query, projection, sort)
        else:
            assert sorted(map(str, got)) == sorted(map(str, expected)), (query, projection)


def test_a_collated_index_covers_with_the_strings_as_stored(db):
    # The keys hold collation keys, not the strings: the entries' values give them back.
    db.create_collection("c", collation={"locale": "en", "strength": 2})
    db.c.create_index("name")
    db.c.insert_many([{"_id": 1, "name": "Alice"}, {"_id": 2, "name": "alice"},
                      {"_id": 3, "name": "Bob"}])
    cursor = db.c.find({"name": "ALICE"}, {"_id": 0, "name": 1})
    assert winning_stages(cursor.explain()) == ["PROJECTION_COVERED", "IXSCAN"]
    assert sorted(d["name"] for d in cursor) == ["Alice", "alice"]
    # distinct groups collation-equal strings, as a scan under the collation does.
    assert len(db.c.distinct("name")) == 2
    explained = db.command({"explain": {"distinct": "c", "key": "name"}})
    assert winning_stages(explained)[-1] == "DISTINCT_SCAN"


def test_negations_are_covered_but_exists_and_elem_match_read_the_documents(db):
    db.c.create_index([("a", 1)])
    db.c.insert_many([{"_id": i, "a": i % 4} for i in range(20)] + [{"_id": 20}])
    projection = {"_id": 0, "a": 1}
    for query in ({"a": {"$ne": 2}}, {"a": {"$nin": [1, 2]}}, {"a": {"$not": {"$gt": 1}}},
                  {"a": {"$ne": None}}):
        assert winning_stages(db.c.find(query, projection).explain()) == [
            "PROJECTION_COVERED", "IXSCAN"], query
        assert [typed(d) for d in db.c.find(query, projection)] == sorted(
            scanned(db.c, query, projection)), query
    # mongod never takes their bounds as exact: {a: null} and a missing a share the null key.
    for query in ({"a": {"$exists": False}}, {"a": {"$exists": True}},
                  {"a": {"$not": {"$exists": True}}}):
        assert "FETCH" in winning_stages(db.c.find(query, projection).explain()), query
        assert sorted(typed(d) for d in db.c.find(query, projection)) == sorted(
            scanned(db.c, query, projection)), query
