"""Index bounds of $exists, $ne, $nin, $not and $elemMatch: each query returns what a collection
scan returns, through every index hinted, on data with arrays, nested arrays, nulls, missing
fields and mixed types; and explain prints the bounds mongod prints."""

import bson
import pytest

NATURAL = [("$natural", 1)]

DOCUMENTS = [
    {"_id": 0},
    {"_id": 1, "a": None},
    {"_id": 2, "a": 5},
    {"_id": 3, "a": 7.5},
    {"_id": 4, "a": "x"},
    {"_id": 5, "a": []},
    {"_id": 6, "a": [5]},
    {"_id": 7, "a": [3, 4]},
    {"_id": 8, "a": [[5], 6]},
    {"_id": 9, "a": [None, 1]},
    {"_id": 10, "a": {"b": 1}},
    {"_id": 11, "a": [{"b": 1, "c": 2}, {"b": 2, "c": 1}]},
    {"_id": 12, "a": [{"b": [1, 4]}, {"c": 3}]},
    {"_id": 13, "a": [[{"b": 1}], {"b": None}]},
    {"_id": 14, "a": bson.MinKey()},
    {"_id": 15, "a": bson.MaxKey()},
    {"_id": 16, "a": [bson.MaxKey(), 2]},
    {"_id": 17, "a": bson.Int64(4), "s": [1, 2]},
    {"_id": 18, "a": float("nan"), "s": None},
    {"_id": 19, "a": [{}], "s": 1},
    {"_id": 20, "a": True, "s": "t"},
    {"_id": 21, "a": [[]]},
    {"_id": 22, "a": {"b": [None]}},
    {"_id": 23, "a": [{"b": [[1, 2]]}]},
]

FILTERS = [
    {"a": {"$exists": True}},
    {"a": {"$exists": False}},
    {"a.b": {"$exists": True}},
    {"a.b": {"$exists": False}},
    {"a": {"$ne": 5}},
    {"a": {"$ne": None}},
    {"a.b": {"$ne": None}},
    {"a": {"$ne": "x"}},
    {"a": {"$ne": [5]}},
    {"a": {"$nin": [5, 7.5]}},
    {"a": {"$nin": [None, []]}},
    {"a": {"$nin": [None, 4]}},
    {"a.b": {"$nin": [1, 2]}},
    {"a": {"$not": {"$gt": 4}}},
    {"a": {"$not": {"$lte": 5}}},
    {"a": {"$not": {"$lt": bson.MaxKey()}}},
    {"a": {"$not": {"$gt": bson.MinKey()}}},
    {"a": {"$not": {"$in": [3, "x"]}}},
    {"a": {"$not": {"$eq": None}}},
    {"a": {"$ne": 5, "$gt": 3}},
    {"a": {"$exists": True, "$lt": 5}},
    {"a": {"$elemMatch": {"$gte": 3, "$lt": 5}}},
    {"a": {"$elemMatch": {"$ne": None}}},
    {"a": {"$elemMatch": {"$ne": 5}}},
    {"a": {"$elemMatch": {"$eq": [5]}}},
    {"a": {"$elemMatch": {"$gt": bson.MinKey(), "$lt": 4}}},
    {"a": {"$elemMatch": {"b": 1}}},
    {"a": {"$elemMatch": {"b": 1, "c": 2}}},
    {"a": {"$elemMatch": {"b": None}}},
    {"a": {"$elemMatch": {"b": {"$gte": 2}}}},
    {"a": {"$elemMatch": {"b": {"$exists": False}}}},
    {"a.b": {"$elemMatch": {"$gte": 1}}},
    {"s": {"$exists": True}},
    {"s": {"$ne": None}},
    {"s": {"$exists": False}},
    {"s": {"$nin": [1, None]}},
]

INDEXES = {
    "a_1": [("a", 1)],
    "a_-1": [("a", -1)],
    "a.b_1": [("a.b", 1)],
    "a.c_1": [("a.c", 1)],
    "a.b_1_a.c_1": [("a.b", 1), ("a.c", 1)],
    "s_1_sparse": [("s", 1)],
    "s_1_a_1": [("s", 1), ("a", 1)],
}


@pytest.fixture
def coll(db):
    db.c.insert_many(DOCUMENTS)
    for name, keys in INDEXES.items():
        db.c.create_index(keys, name=name, sparse=name.endswith("sparse"))
    return db.c


def ids(cursor):
    return sorted(doc["_id"] for doc in cursor)


def index_scan(plan):
    while plan["stage"] != "IXSCAN":
        plan = plan["inputStage"]
    return plan


@pytest.mark.parametrize("query", FILTERS, ids=str)
def test_every_index_returns_what_a_collection_scan_returns(coll, query):
    expected = ids(coll.find(query).hint(NATURAL))
    assert ids(coll.find(query)) == expected
    for name in INDEXES:
        # A hinted sparse index holds no entry for documents without its field, as in mongod.
        if not name.endswith("sparse"):
            assert ids(coll.find(query).hint(name)) == expected, name


def test_non_multikey_index_returns_what_a_collection_scan_returns(db):
    db.c.insert_many([{"_id": i, "a": v} for i, v in enumerate(
        [None, 5, 7.5, "x", bson.MinKey(), bson.MaxKey(), {"b": 1}, True, float("nan"), 4])])
    db.c.insert_one({"_id": 99})
    db.c.create_index([("a", 1)])
    for query in FILTERS:
        expected = ids(db.c.find(query).hint(NATURAL))
        assert ids(db.c.find(query).hint([("a", 1)])) == expected, query


def bounds(coll, query, hint):
    plan = coll.find(query).hint(hint).explain()["queryPlanner"]["winningPlan"]
    return index_scan(plan)["indexBounds"]


def test_explain_prints_mongods_bounds(db):
    db.c.insert_many([{"a": 1, "s": 1}, {"a": "x"}])  # not multikey
    db.c.create_index([("a", 1)])
    db.c.create_index([("a", -1)], name="a_desc")
    db.c.create_index([("s", 1)], sparse=True)
    assert bounds(db.c, {"a": {"$ne": 5}}, "a_1") == {"a": ["[MinKey, 5)", "(5, MaxKey]"]}
    assert bounds(db.c, {"a": {"$ne": 5}}, "a_desc") == {"a": ["[MaxKey, 5)", "(5, MinKey]"]}
    assert bounds(db.c, {"a": {"$nin": [1, 3]}}, "a_1") == {
        "a": ["[MinKey, 1)", "(1, 3)", "(3, MaxKey]"]}
    assert bounds(db.c, {"a": {"$ne": None}}, "a_1") == {
        "a": ["[MinKey, undefined)", "(null, MaxKey]"]}
    assert bounds(db.c, {"a": {"$nin": [None, []]}}, "a_1") == {
        "a": ["[MinKey, undefined)", "(null, [])", "([], MaxKey]"]}
    assert bounds(db.c, {"a": {"$not": {"$gt": 5}}}, "a_1") == {
        "a": ["[MinKey, 5]", "(inf.0, MaxKey]"]}
    assert bounds(db.c, {"a": {"$ne": 5, "$gt": 3}}, "a_1") == {"a": ["(3, 5)", "(5, inf.0]"]}
    assert bounds(db.c, {"a": {"$exists": True}}, "a_1") == {"a": ["[MinKey, MaxKey]"]}
    assert bounds(db.c, {"a": {"$exists": False}}, "a_1") == {"a": ["[null, null]"]}
    assert bounds(db.c, {"s": {"$exists": True}}, "s_1") == {"s": ["[MinKey, MaxKey]"]}
    assert bounds(db.c, {"a": {"$elemMatch": {"$gte": 3, "$lt": 5}}}, "a_1") == {"a": ["[3, 5)"]}


def test_multikey_index_bounds(db):
    db.c.insert_many([{"a": [1, 2], "x": [{"b": 1, "c": 2}]}])
    db.c.create_index([("a", 1)])
    db.c.create_index([("x.b", 1)])
    # An array may hold 3 and 6 in two elements: the ranges are not intersected...
    assert bounds(db.c, {"a": {"$gte": 3, "$lt": 5}}, "a_1")["a"] in (["[3, inf.0]"],
                                                                    ["[-inf.0, 5)"])
    # ...but $elemMatch asks one element for both.
    assert bounds(db.c, {"a": {"$elemMatch": {"$gte": 3, "$lt": 5}}}, "a_1") == {"a": ["[3, 5)"]}
    assert bounds(db.c, {"a": {"$ne": 5}}, "a_1") == {"a": ["[MinKey, 5)", "(5, MaxKey]"]}
    assert bounds(db.c, {"x": {"$elemMatch": {"b": 1, "c": 2}}}, "x.b_1") == {"x.b": ["[1, 1]"]}
    # One element meets both conditions, so its keys pair them: both fields are bounded...
    db.c.create_index([("x.b", 1), ("x.c", 1)])
    assert bounds(db.c, {"x": {"$elemMatch": {"b": 1, "c": 2}}}, "x.b_1_x.c_1") == {
        "x.b": ["[1, 1]"], "x.c": ["[2, 2]"]}
    # ...but not when two elements may meet them.
    assert bounds(db.c, {"x.b": 1, "x.c": 2}, "x.b_1_x.c_1") == {
        "x.b": ["[1, 1]"], "x.c": ["[MinKey, MaxKey]"]}
    # {a: []} meets {$ne: null} with the key undefined: a multikey index is read whole.
    assert bounds(db.c, {"a": {"$ne": None}}, "a_1") == {"a": ["[MinKey, MaxKey]"]}


def test_negations_mongod_does_not_bound_read_the_whole_index(db):
    db.c.insert_one({"a": 1})
    db.c.create_index([("a", 1)])
    for query in ({"a": {"$not": {"$regex": "^x"}}}, {"a": {"$ne": [1]}},
                  {"a": {"$not": {"$gt": 1, "$lt": 3}}}, {"a": {"$not": {"$type": "int"}}}):
        assert bounds(db.c, query, "a_1") == {"a": ["[MinKey, MaxKey]"]}, query


def test_sparse_index_serves_exists_and_ne_null_only(db):
    db.c.insert_many([{"s": 1}, {"t": 1}, {"s": None}])
    db.c.create_index([("s", 1)], sparse=True)
    assert len(list(db.c.find({"s": {"$exists": True}}).hint("s_1"))) == 2
    assert bounds(db.c, {"s": {"$ne": None}}, "s_1") == {
        "s": ["[MinKey, undefined)", "(null, MaxKey]"]}
    plan = db.c.find({"s": {"$exists": False}}).explain()["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "COLLSCAN"
