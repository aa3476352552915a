"""Indexes with a collation: stored and listed fully specified, inherited from the collection's
default, keyed by the collation's order (so unique indexes refuse collation-equal strings), used
by queries under the same collation, and shown in explain, as mongod does."""

import pymongo
import pymongo.errors
import pytest
from pymongo.collation import Collation

CASE_INSENSITIVE = {"locale": "en", "strength": 2}
NUMERIC = {"locale": "en", "numericOrdering": True}


def index(coll, name):
    return next(i for i in coll.list_indexes() if i["name"] == name)


def winning(cursor):
    return cursor.explain()["queryPlanner"]["winningPlan"]


def ixscan(plan):
    while plan is not None and plan["stage"] != "IXSCAN":
        plan = plan.get("inputStage")
    return plan


@pytest.fixture
def names(db):
    db.names.insert_many([{"_id": 1, "n": "alice"}, {"_id": 2, "n": "Alice"},
                          {"_id": 3, "n": "ALICE"}, {"_id": 4, "n": "bob"},
                          {"_id": 5, "n": ["x", "BOB"]}, {"_id": 6, "n": {"first": "Bob"}},
                          {"_id": 7, "n": 5}])
    return db.names


def test_list_indexes_shows_the_fully_specified_collation(names):
    names.create_index([("n", 1)], collation=CASE_INSENSITIVE)
    spec = index(names, "n_1")["collation"]
    assert spec["locale"] == "en" and spec["strength"] == 2
    assert set(spec) == {"locale", "caseLevel", "caseFirst", "strength", "numericOrdering",
                         "alternate", "maxVariable", "normalization", "backwards", "version"}


def test_a_query_under_the_index_collation_reads_it_and_finds_every_spelling(names):
    names.create_index([("n", 1)], collation=CASE_INSENSITIVE)
    cursor = names.find({"n": "ALICE"}, collation=CASE_INSENSITIVE)
    assert sorted(d["_id"] for d in cursor) == [1, 2, 3]
    scan = ixscan(winning(names.find({"n": "ALICE"}, collation=CASE_INSENSITIVE)))
    assert scan is not None and scan["indexName"] == "n_1"
    assert scan["collation"]["strength"] == 2
    # Strings inside arrays and documents follow the collation too.
    assert sorted(d["_id"] for d in names.find({"n": "bob"}, collation=CASE_INSENSITIVE)) == [4, 5]
    assert [d["_id"] for d in names.find({"n": {"first": "BOB"}}, collation=CASE_INSENSITIVE)] \
        == [6]


def test_a_query_under_another_collation_does_not_use_it(names):
    names.create_index([("n", 1)], collation=CASE_INSENSITIVE)
    assert ixscan(winning(names.find({"n": "alice"}))) is None
    assert [d["_id"] for d in names.find({"n": "alice"})] == [1]
    # Hinted, it is read whole and the query's own collation decides.
    assert [d["_id"] for d in names.find({"n": "alice"}).hint("n_1")] == [1]


def test_a_query_under_another_collation_uses_it_for_bounds_without_strings(db):
    db.mixed.insert_many([{"_id": i, "v": v} for i, v in
                          enumerate([1, 5, 7, "5", "a", "A", [6, "x"], {"k": 6}])])
    db.mixed.create_index([("v", 1)], collation=CASE_INSENSITIVE)
    numeric = {"v": {"$gt": 4}}
    assert sorted(d["_id"] for d in db.mixed.find(numeric)) == [1, 2, 6]
    scan = ixscan(winning(db.mixed.find(numeric)))
    assert scan is not None and scan["indexName"] == "v_1"
    assert sorted(d["_id"] for d in db.mixed.find({"v": {"$in": [1, 7]}})) == [0, 2]
    # Strings, documents and arrays compare under the query's collation: no index then.
    for strings in ({"v": "a"}, {"v": {"$in": [1, "a"]}}, {"v": {"k": 6}}, {"v": {"$regex": "^a"}}):
        assert ixscan(winning(db.mixed.find(strings))) is None, strings
    # Nor does it give the order of another collation.
    plan = winning(db.mixed.find(numeric).sort("v", 1))
    assert "SORT" in str(plan)
    assert [d["_id"] for d in db.mixed.find(numeric).sort([("v", 1), ("_id", 1)])] == [1, 6, 2]


def test_sort_under_the_index_collation_comes_from_the_index(db):
    db.words.insert_many([{"_id": i, "w": w} for i, w in enumerate(["b", "A", "a10", "a9", "C"])])
    db.words.create_index([("w", 1)], collation=NUMERIC)
    cursor = db.words.find({"w": {"$gt": ""}}, collation=NUMERIC).sort("w", 1)
    assert [d["w"] for d in cursor] == ["A", "a9", "a10", "b", "C"]
    plan = winning(db.words.find({"w": {"$gt": ""}}, collation=NUMERIC).sort("w", 1))
    assert "SORT" not in str(plan) and ixscan(plan) is not None


def test_regex_reads_every_string_of_a_collated_index(names):
    names.create_index([("n", 1)], collation=CASE_INSENSITIVE)
    cursor = names.find({"n": {"$regex": "^al"}}, collation=CASE_INSENSITIVE)
    assert [d["_id"] for d in cursor] == [1]
    scan = ixscan(winning(names.find({"n": {"$regex": "^al"}}, collation=CASE_INSENSITIVE)))
    assert scan["indexBounds"]["n"][0] == '["", {})'


def test_unique_collated_index_refuses_collation_equal_strings(db):
    db.users.create_index([("email", 1)], unique=True, collation=CASE_INSENSITIVE)
    db.users.insert_one({"email": "Ann@example.com"})
    with pytest.raises(pymongo.errors.DuplicateKeyError) as info:
        db.users.insert_one({"email": "ANN@EXAMPLE.COM"})
    assert info.value.code == 11000
    assert info.value.details["keyValue"] == {"email": "ANN@EXAMPLE.COM"}
    db.users.insert_one({"email": "bob@example.com"})


def test_building_a_unique_collated_index_over_equal_strings_fails(names):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        names.create_index([("n", 1)], unique=True, collation=CASE_INSENSITIVE)
    assert info.value.code == 11000
    assert [i["name"] for i in names.list_indexes()] == ["_id_"]


def test_indexes_inherit_the_collection_default(db):
    db.create_collection("people", collation=Collation(**CASE_INSENSITIVE))
    db.people.create_index([("n", 1)])
    db.people.create_index([("n", 1)], name="n_simple", collation={"locale": "simple"})
    default = next(db.list_collections(filter={"name": "people"}))["options"]["collation"]
    assert index(db.people, "n_1")["collation"] == default
    assert "collation" not in index(db.people, "n_simple")
    db.people.insert_many([{"_id": 1, "n": "X"}, {"_id": 2, "n": "x"}])
    # The collection's default is the query's: the inheriting index serves it.
    assert ixscan(winning(db.people.find({"n": "x"})))["indexName"] == "n_1"
    assert sorted(d["_id"] for d in db.people.find({"n": "x"})) == [1, 2]
    plan = winning(db.people.find({"n": "x"}, collation={"locale": "simple"}))
    assert ixscan(plan)["indexName"] == "n_simple"


def test_id_index_takes_only_the_collection_collation(db):
    db.create_collection("keyed", collation=Collation(**CASE_INSENSITIVE))
    db.keyed.create_index([("_id", 1)])  # the existing _id index: nothing to do
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.keyed.create_index([("_id", 1)], collation={"locale": "fr"})
    assert info.value.code == 67
    assert "_id index must have the collection default collation" in str(info.value)


def test_same_key_pattern_under_two_collations_coexists(names):
    names.create_index([("n", 1)])
    names.create_index([("n", 1)], name="n_ci", collation=CASE_INSENSITIVE)
    assert {i["name"] for i in names.list_indexes()} == {"_id_", "n_1", "n_ci"}
    # The same collation under another name is the same index.
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        names.create_index([("n", 1)], name="again", collation=CASE_INSENSITIVE)
    assert info.value.code == 85
    # Asking for it again by its name is no change.
    names.create_index([("n", 1)], name="n_ci", collation=CASE_INSENSITIVE)
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        names.database.command("dropIndexes", "names", index={"n": 1})
    assert info.value.code == 181
    assert info.value.details["codeName"] == "AmbiguousIndexKeyPattern"
    assert "2 indexes found for key" in str(info.value)
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        names.database.command("collMod", "names", index={"keyPattern": {"n": 1}, "hidden": True})
    assert info.value.code == 181
    assert "must use index name" in str(info.value)
    names.drop_index("n_ci")
    names.database.command("dropIndexes", "names", index={"n": 1})
    assert [i["name"] for i in names.list_indexes()] == ["_id_"]


def test_a_bad_index_collation_fails_as_in_mongod(names):
    for collation, code in [({"locale": "en", "strength": 7}, 51024), ({"strength": 2}, 4),
                            ({"locale": "simple", "strength": 2}, 9)]:
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            names.create_index([("n", 1)], collation=collation)
        assert info.value.code == code, collation
    assert [i["name"] for i in names.list_indexes()] == ["_id_"]


def test_collated_index_keys_survive_a_restart(own_server):
    client = pymongo.MongoClient(own_server.uri())
    coll = client.t_restart.c
    coll.create_index([("n", 1)], unique=True, collation=CASE_INSENSITIVE)
    coll.insert_one({"n": "Q"})
    client.t_restart.create_collection("keyed", collation=Collation(**CASE_INSENSITIVE))
    client.t_restart.keyed.insert_one({"_id": "K"})
    own_server.restart()
    client = pymongo.MongoClient(own_server.uri())
    coll = client.t_restart.c
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        coll.insert_one({"n": "q"})
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        client.t_restart.keyed.insert_one({"_id": "k"})
    assert [d["n"] for d in coll.find({"n": "q"}, collation=CASE_INSENSITIVE)] == ["Q"]
