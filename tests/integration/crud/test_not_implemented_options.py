"""Options that would change results and that Quarry does not implement answer 238
NotImplemented, naming the option, instead of being ignored: find's returnKey with a
projection. The simple collation is accepted everywhere (tests/integration/collation/ covers
the others)."""

import pymongo
import pymongo.errors
import pytest
from pymongo.collation import Collation

NOT_IMPLEMENTED = 238


@pytest.fixture
def words(db):
    db.words.insert_many([{"_id": 1, "w": "apple"}, {"_id": 2, "w": "Apple"},
                          {"_id": 3, "w": "banana"}])
    return db.words


def assert_not_implemented(error, option):
    assert error.code == NOT_IMPLEMENTED, error.details
    assert option in error.details["errmsg"], error.details  # a reply's or a writeError's


@pytest.mark.parametrize("options, option", [
    ({"return_key": True, "projection": {"w": 1}}, "returnKey"),
])
def test_find_options_that_are_not_implemented_fail_with_238(words, options, option):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(words.find({"w": "apple"}, **options))
    assert_not_implemented(info.value, option)


def test_find_with_false_return_key_and_show_record_id_returns_plain_documents(words):
    found = list(words.find({"w": "apple"}, return_key=False, show_record_id=False))
    assert found == [{"_id": 1, "w": "apple"}]


def test_simple_collation_is_accepted_and_compares_bytes(words):
    simple = Collation("simple")
    assert [d["_id"] for d in words.find({"w": "apple"}, collation=simple)] == [1]
    assert [d["w"] for d in words.find({}, sort=[("w", 1)], collation=simple)] == \
        ["Apple", "apple", "banana"]
    assert words.count_documents({"w": "apple"}, collation=simple) == 1
    assert words.database.command("count", "words", query={"w": "apple"},
                            collation={"locale": "simple"})["n"] == 1
    assert words.update_one({"w": "apple"}, {"$set": {"x": 1}},
                            collation=simple).modified_count == 1
    assert words.delete_one({"w": "banana"}, collation=simple).deleted_count == 1


def test_a_collection_and_an_index_with_the_simple_collation_are_created(db):
    db.create_collection("plain", collation=Collation("simple"))
    db.plain.create_index([("w", 1)], collation=Collation("simple"))
    assert "plain" in db.list_collection_names()
    assert "w_1" in [i["name"] for i in db.plain.list_indexes()]
    # The simple collation is stored as no collation at all, as mongod stores it.
    assert "collation" not in db.plain.options()
    assert all("collation" not in i for i in db.plain.list_indexes())


@pytest.mark.parametrize("option", ["$_requestResumeToken", "$_resumeAfter"])
def test_find_resume_options_fail_with_238(words, option):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        words.database.command({"find": "words", option: True})
    assert_not_implemented(info.value, option)


def test_await_data_without_tailable_fails_as_in_mongod(words):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        words.database.command({"find": "words", "awaitData": True})
    assert info.value.code == 9
    assert info.value.details["errmsg"] == "Cannot set 'awaitData' without also setting 'tailable'"


def test_create_options_that_would_be_ignored_fail_as_in_mongod(client, db):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command({"create": "expiring", "expireAfterSeconds": 60})
    assert info.value.code == 72
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command({"create": "no_id_index", "autoIndexId": False})
    assert info.value.code == 50001
    assert f"{db.name}.no_id_index because it can be replicated" in info.value.details["errmsg"]
    # Only an unreplicated collection may go without one, which Quarry cannot keep.
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        client.local.command({"create": "no_id_index", "autoIndexId": False})
    assert_not_implemented(info.value, "_id index")
    assert {"expiring", "no_id_index"}.isdisjoint(db.list_collection_names())
    db.command({"create": "with_id_index", "autoIndexId": True})
    assert "with_id_index" in db.list_collection_names()
