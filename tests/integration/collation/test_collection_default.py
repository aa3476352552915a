"""A collection's default collation (create's `collation` option): stored fully specified,
listed by listCollections and on the _id index, and used by every command on the collection
that names no collation of its own, as mongod does."""

import pymongo
import pymongo.errors
import pytest
from pymongo.collation import Collation

CASE_INSENSITIVE = {"locale": "en", "strength": 2}
FULL_CASE_INSENSITIVE = {
    "locale": "en", "caseLevel": False, "caseFirst": "off", "strength": 2,
    "numericOrdering": False, "alternate": "non-ignorable", "maxVariable": "punct",
    "normalization": False, "backwards": False,
}


@pytest.fixture
def people(db):
    db.create_collection("people", collation=Collation(**CASE_INSENSITIVE))
    db.people.insert_many([{"_id": 1, "name": "alice"}, {"_id": 2, "name": "ALICE"},
                           {"_id": 3, "name": "Bob"}, {"_id": 4, "name": "bob"},
                           {"_id": 5, "name": "carol"}])
    return db.people


def ids(docs):
    return sorted(d["_id"] for d in docs)


def without_version(spec):
    return {k: v for k, v in spec.items() if k != "version"}


def test_list_collections_shows_the_fully_specified_collation(people):
    info = next(people.database.list_collections(filter={"name": "people"}))
    assert without_version(info["options"]["collation"]) == FULL_CASE_INSENSITIVE
    assert isinstance(info["options"]["collation"]["version"], str)
    # The _id index carries the collection's collation too.
    assert info["idIndex"]["collation"] == info["options"]["collation"]
    id_index = next(i for i in people.list_indexes() if i["name"] == "_id_")
    assert id_index["collation"] == info["options"]["collation"]


def test_the_simple_collation_is_no_default(db):
    db.create_collection("plain", collation=Collation("simple"))
    info = next(db.list_collections(filter={"name": "plain"}))
    assert "collation" not in info["options"]
    assert "collation" not in info["idIndex"]


def test_a_bad_default_collation_fails_as_in_mongod(db):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.create_collection("bad", collation={"locale": "en", "strength": 9})
    assert info.value.code == 51024
    assert "bad" not in db.list_collection_names()


def test_create_repeating_the_same_collation_is_accepted(people):
    people.database.command("create", "people", collation=CASE_INSENSITIVE)
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        people.database.command("create", "people", collation={"locale": "fr"})
    assert info.value.code == 48


def test_find_uses_the_default_unless_the_command_names_a_collation(people):
    assert ids(people.find({"name": "Alice"})) == [1, 2]
    assert ids(people.find({"name": "Alice"}, collation=Collation("simple"))) == []
    assert ids(people.find({"name": "alice"}, collation=Collation("simple"))) == [1]
    assert ids(people.find({"name": {"$gt": "BOB"}})) == [5]


def test_sort_and_get_more_follow_the_default(people):
    names = [d["name"].lower() for d in people.find({}, sort=[("name", 1), ("_id", 1)],
                                                    batch_size=2)]
    assert names == ["alice", "alice", "bob", "bob", "carol"]


def test_count_distinct_and_aggregate_use_the_default(people):
    assert people.count_documents({"name": "BOB"}) == 2
    assert people.database.command("count", "people", query={"name": "BOB"})["n"] == 2
    assert sorted(n.lower() for n in people.distinct("name")) == ["alice", "bob", "carol"]
    grouped = list(people.aggregate([{"$match": {"name": {"$in": ["ALICE", "BOB"]}}},
                                     {"$group": {"_id": "$name", "n": {"$sum": 1}}},
                                     {"$sort": {"_id": 1}}]))
    assert [(g["_id"].lower(), g["n"]) for g in grouped] == [("alice", 2), ("bob", 2)]
    assert len(list(people.aggregate([{"$match": {"name": "CAROL"}}]))) == 1


def test_lookup_compares_foreign_values_under_the_default(people):
    people.database.pets.insert_many([{"_id": 10, "owner": "CAROL"}, {"_id": 11, "owner": "x"}])
    joined = list(people.aggregate([{"$match": {"_id": 5}},
                                    {"$lookup": {"from": "pets", "localField": "name",
                                                 "foreignField": "owner", "as": "pets"}}]))
    assert [p["_id"] for p in joined[0]["pets"]] == [10]


def test_update_delete_and_find_and_modify_use_the_default(people):
    assert people.update_many({"name": "BOB"}, {"$set": {"seen": True}}).modified_count == 2
    assert people.find_one_and_update({"name": "CAROL"}, {"$set": {"x": 1}})["_id"] == 5
    assert people.delete_many({"name": "Alice"}).deleted_count == 2
    assert people.delete_one({"name": "bob"}, collation=Collation("simple")).deleted_count == 1
    assert ids(people.find()) == [3, 5]


def test_string_id_lookup_follows_the_default(people):
    people.insert_one({"_id": "Key"})
    assert ids(people.find({"_id": "KEY"})) == ["Key"]
    assert ids(people.find({"_id": "KEY"}, collation=Collation("simple"))) == []
    # Under the default, a point lookup by record key would miss other spellings.
    plan = people.find({"_id": "KEY"}).explain()["queryPlanner"]["winningPlan"]
    assert "IDHACK" not in str(plan)
    plan = people.find({"_id": "Key"}, collation=Collation("simple")).explain()
    assert plan["queryPlanner"]["winningPlan"]["stage"] == "IDHACK"
    assert people.find_one({"_id": 3})["name"] == "Bob"


def test_explain_shows_the_collation_of_the_query(people):
    planner = people.find({"name": "alice"}).explain()["queryPlanner"]
    assert without_version(planner["collation"]) == FULL_CASE_INSENSITIVE
    planner = people.find({"name": "alice"}, collation=Collation("simple")).explain()
    assert "collation" not in planner["queryPlanner"]
    reply = people.database.command("explain", {"count": "people", "query": {"name": "BOB"}},
                                    verbosity="executionStats")
    assert reply["executionStats"]["nReturned"] == 2
    reply = people.database.command(
        "explain", {"aggregate": "people", "pipeline": [{"$match": {"name": "BOB"}}],
                    "cursor": {}}, verbosity="executionStats")
    assert reply["executionStats"]["nReturned"] == 2


def test_id_is_unique_under_the_default_collation(db):
    # The _id index orders by the collection's collation, so "a" and "A" are one _id, as in
    # mongod.
    db.create_collection("keyed", collation=Collation(**CASE_INSENSITIVE))
    db.keyed.insert_one({"_id": "a", "v": 1})
    with pytest.raises(pymongo.errors.DuplicateKeyError) as info:
        db.keyed.insert_one({"_id": "A", "v": 2})
    assert info.value.details["keyValue"] == {"_id": "A"}
    assert "index: _id_" in info.value.details["errmsg"]
    db.keyed.insert_one({"_id": "b"})
    assert db.keyed.delete_one({"_id": "A"}).deleted_count == 1
    db.keyed.insert_one({"_id": "A", "v": 3})  # its key left with the document
    assert [d["_id"] for d in db.keyed.find({"_id": "a"})] == ["A"]
    result = db.keyed.update_one({"_id": "B"}, {"$set": {"v": 4}}, upsert=True)
    assert result.upserted_id is None and result.matched_count == 1
    assert db.keyed.count_documents({}) == 2
