"""find with pymongo: filter operators, dotted paths, sort, projection, skip, limit."""

import pymongo
import pymongo.errors
import pytest
from bson.int64 import Int64

PEOPLE = [
    {"_id": 1, "name": "ann", "age": 31, "city": "Oslo", "tags": ["a", "b"],
     "address": {"zip": "0150", "geo": {"lat": 59.9}}, "score": 7.5},
    {"_id": 2, "name": "bob", "age": 25, "city": "Bergen", "tags": ["b"],
     "address": {"zip": "5003"}, "score": Int64(9)},
    {"_id": 3, "name": "cid", "age": 40, "city": "Oslo", "tags": [],
     "address": {"zip": "0151", "geo": {"lat": 60.1}}},
    {"_id": 4, "name": "dee", "age": 25, "city": None, "tags": ["c", "a"], "score": 3},
    {"_id": 5, "name": "eve", "city": "Tromsø", "tags": "a", "score": 10.0},
]


@pytest.fixture
def people(db):
    db.people.insert_many([dict(p) for p in PEOPLE])
    return db.people


def ids(cursor):
    return [d["_id"] for d in cursor]


@pytest.mark.parametrize("filter_, expected", [
    ({}, [1, 2, 3, 4, 5]),
    ({"age": 25}, [2, 4]),
    ({"age": {"$eq": 25}}, [2, 4]),
    ({"age": {"$ne": 25}}, [1, 3, 5]),  # $ne matches missing fields
    ({"age": {"$gt": 25}}, [1, 3]),
    ({"age": {"$gte": 31}}, [1, 3]),
    ({"age": {"$lt": 31}}, [2, 4]),
    ({"age": {"$lte": 31}}, [1, 2, 4]),
    ({"age": {"$gt": 24, "$lt": 35}}, [1, 2, 4]),
    ({"age": {"$in": [25, 40]}}, [2, 3, 4]),
    ({"age": {"$nin": [25, 40]}}, [1, 5]),
    ({"age": {"$exists": True}}, [1, 2, 3, 4]),
    ({"age": {"$exists": False}}, [5]),
    ({"city": None}, [4]),  # null matches null, and missing (none here)
    ({"score": {"$gte": 9}}, [2, 5]),  # numbers compare across int32/int64/double
    ({"score": 9.0}, [2]),
    ({"$and": [{"city": "Oslo"}, {"age": {"$gt": 35}}]}, [3]),
    ({"$or": [{"name": "ann"}, {"age": 25}]}, [1, 2, 4]),
    ({"$or": [{"age": {"$exists": False}}, {"city": "Bergen"}]}, [2, 5]),
    ({"city": "Oslo", "age": 31}, [1]),
    ({"address.zip": "5003"}, [2]),
    ({"address.geo.lat": {"$gt": 60}}, [3]),
    ({"address.geo": {"$exists": True}}, [1, 3]),
    ({"address.geo.lat": {"$exists": False}}, [2, 4, 5]),
    ({"tags": "a"}, [1, 4, 5]),  # arrays match any element (and scalars match themselves)
    ({"tags": ["b"]}, [2]),  # whole-array equality
    ({"tags": []}, [3]),
    ({"tags": {"$in": ["c", "b"]}}, [1, 2, 4]),
    ({"tags.0": "a"}, [1]),  # numeric path component indexes the array
    ({"name": {"$gt": "bob"}}, [3, 4, 5]),  # strings compare, numbers do not match strings
    ({"age": {"$gt": "a"}}, []),
    ({"address": {"zip": "5003"}}, [2]),  # whole-document equality
])
def test_filter(people, filter_, expected):
    assert sorted(ids(people.find(filter_))) == expected


def test_null_matches_missing_fields(people):
    assert ids(people.find({"age": None})) == [5]
    assert ids(people.find({"nothere": None}, sort=[("_id", 1)])) == [1, 2, 3, 4, 5]


def test_sort_ascending_descending_and_compound(people):
    assert ids(people.find({}, sort=[("age", 1), ("_id", 1)])) == [5, 2, 4, 1, 3]
    assert ids(people.find({}, sort=[("age", -1), ("_id", -1)])) == [3, 1, 4, 2, 5]
    assert ids(people.find({}, sort=[("name", -1)])) == [5, 4, 3, 2, 1]
    assert ids(people.find({"age": 25}, sort=[("name", -1)])) == [4, 2]


def test_sort_on_a_dotted_path(people):
    # missing sorts as null, before strings
    assert ids(people.find({}, sort=[("address.zip", 1), ("_id", 1)])) == [4, 5, 1, 3, 2]


def test_skip_and_limit(people):
    assert ids(people.find({}, sort=[("_id", 1)], skip=1, limit=2)) == [2, 3]
    assert ids(people.find({}, sort=[("_id", 1)], skip=4)) == [5]
    assert ids(people.find({}, sort=[("_id", 1)], skip=10)) == []
    assert ids(people.find({}, sort=[("_id", 1)], limit=0)) == [1, 2, 3, 4, 5]  # 0 = no limit
    assert len(list(people.find({}, limit=3))) == 3


def test_inclusion_projection_keeps_id_unless_excluded(people):
    assert people.find_one({"_id": 1}, {"name": 1}) == {"_id": 1, "name": "ann"}
    assert people.find_one({"_id": 1}, {"name": 1, "_id": 0}) == {"name": "ann"}
    assert people.find_one({"_id": 1}, {"address.zip": 1}) == {"_id": 1, "address": {"zip": "0150"}}


def test_exclusion_projection_drops_only_the_named_fields(people):
    got = people.find_one({"_id": 2}, {"tags": 0, "address": 0, "score": 0})
    assert got == {"_id": 2, "name": "bob", "age": 25, "city": "Bergen"}
    got = people.find_one({"_id": 1}, {"address.geo": 0})
    assert got["address"] == {"zip": "0150"}


def test_mixing_inclusion_and_exclusion_is_an_error(people):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        people.find_one({}, {"name": 1, "age": 0})
    assert info.value.code in (31253, 31254), info.value.details


def test_find_one_returns_none_when_nothing_matches(people):
    assert people.find_one({"name": "zed"}) is None


def test_find_on_a_missing_collection_is_empty(db):
    assert list(db.never_created.find()) == []


def test_unknown_query_operator_is_bad_value(people):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(people.find({"age": {"$bogus": 1}}))
    assert info.value.code == 2


def test_find_by_id_uses_every_numeric_type(people):
    for same in (2, 2.0, Int64(2)):
        assert people.find_one({"_id": same})["name"] == "bob"


def test_sort_and_projection_and_limit_together(people):
    got = list(people.find({"city": "Oslo"}, {"name": 1, "_id": 0}, sort=[("age", -1)], limit=1))
    assert got == [{"name": "cid"}]


def test_regex_filter(people):
    assert sorted(ids(people.find({"name": {"$regex": "^[ab]"}}))) == [1, 2]
    assert sorted(ids(people.find({"city": {"$regex": "^os", "$options": "i"}}))) == [1, 3]
