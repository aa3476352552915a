"""distinct on an index's first key field reads one index entry per distinct value
(DISTINCT_SCAN under PROJECTION_COVERED), and returns what reading every document returns."""

import random

import pytest
from bson.decimal128 import Decimal128
from plan_shapes import random_typed_value, winning_stages


def explain_distinct(db, key, query=None, hint=None):
    command = {"distinct": "c", "key": key}
    if query is not None:
        command["query"] = query
    if hint is not None:
        command["hint"] = hint
    return db.command({"explain": command, "verbosity": "executionStats"})


def distinct(db, key, query=None, hint=None):
    command = {"distinct": "c", "key": key, "query": query or {}}
    if hint is not None:
        command["hint"] = hint
    return db.command(command)["values"]


def as_set(values):
    """The values as MongoDB tells them apart: numbers by value, whatever their type (distinct
    keeps one of 1, 1L and 1.0, and an index scan may meet another one first than a collection
    scan)."""
    def canonical(v):
        if isinstance(v, bool) or not isinstance(v, (int, float, Decimal128)):
            return repr(v)
        number = float(v.to_decimal()) if isinstance(v, Decimal128) else float(v)
        return repr(number + 0.0)  # -0.0 is 0
    return sorted(canonical(v) for v in values)


def test_distinct_reads_one_key_per_value(db):
    db.c.insert_many([{"_id": i, "a": i % 4, "b": i % 7} for i in range(2000)])
    db.c.create_index([("a", 1), ("b", 1)])
    explained = explain_distinct(db, "a")
    assert winning_stages(explained)[-2:] == ["PROJECTION_COVERED", "DISTINCT_SCAN"]
    stats = explained["executionStats"]
    assert stats["totalKeysExamined"] <= 8 and stats["totalDocsExamined"] == 0
    assert distinct(db, "a") == [0, 1, 2, 3]
    # A filter on the index's fields bounds the scan or is checked on each entry's values.
    assert distinct(db, "a", {"a": {"$gte": 2}}) == [2, 3]
    assert explain_distinct(db, "a", {"a": {"$gte": 2}})["executionStats"][
        "totalKeysExamined"] <= 4
    assert distinct(db, "a", {"b": 3}) == sorted({i % 4 for i in range(2000) if i % 7 == 3})


def test_missing_fields_are_skipped_and_explicit_nulls_kept(db):
    db.c.create_index("a")
    db.c.insert_many([{"_id": 1}, {"_id": 2}, {"_id": 3, "a": 5}])
    assert distinct(db, "a") == [5]
    db.c.insert_one({"_id": 4, "a": None})
    assert distinct(db, "a") == [None, 5]
    assert winning_stages(explain_distinct(db, "a"))[-1] == "DISTINCT_SCAN"


def test_indexes_that_cannot_serve_leave_distinct_to_the_documents(db):
    db.c.insert_many([{"_id": 1, "a": [1, 2], "b": 1, "c": 1}, {"_id": 2, "a": 3, "b": 2, "c": 2}])
    db.c.create_index("a")  # multikey
    db.c.create_index("b", partialFilterExpression={"c": {"$gt": 1}})
    for key, expected in (("a", [1, 2, 3]), ("b", [1, 2])):
        assert "DISTINCT_SCAN" not in winning_stages(explain_distinct(db, key))
        assert distinct(db, key) == expected
    db.c.create_index([("b", 1), ("d", 1)])
    # A filter on a field the index lacks needs the documents.
    assert "DISTINCT_SCAN" not in winning_stages(explain_distinct(db, "b", {"c": 2}))
    assert distinct(db, "b", {"c": 2}) == [2]
    assert "DISTINCT_SCAN" not in winning_stages(explain_distinct(db, "b", hint={"$natural": 1}))


@pytest.mark.parametrize("seed", [11, 12])
def test_distinct_scan_equals_a_collection_scan_for_random_data(db, seed):
    rng = random.Random(seed)
    docs = []
    for i in range(400):
        doc = {"_id": i}
        if rng.random() < 0.85:
            doc["a"] = random_typed_value(rng)
        if rng.random() < 0.85:
            doc["b"] = random_typed_value(rng)
        docs.append(doc)
    db.c.insert_many(docs)
    db.c.create_index([("a", 1), ("b", -1)])
    db.c.create_index([("b", -1)])
    for _ in range(30):
        key = rng.choice(["a", "b"])
        field = rng.choice(["a", "b"])
        query = rng.choice([{}, {field: random_typed_value(rng)},
                            {field: {rng.choice(["$gt", "$lte", "$ne"]): random_typed_value(rng)}}])
        if key == "b" and "a" in query:
            continue  # the b index lacks a: not a DISTINCT_SCAN, covered by the next test
        assert winning_stages(explain_distinct(db, key, query))[-1] == "DISTINCT_SCAN", (key, query)
        assert as_set(distinct(db, key, query)) == as_set(
            distinct(db, key, query, hint={"$natural": 1})), (key, query)
