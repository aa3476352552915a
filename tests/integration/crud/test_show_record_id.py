"""find's showRecordId: each result ends with "$recordId". Quarry keeps records by their _id, as
mongod keeps a clustered collection's, and shows the record id as mongod shows a clustered
collection's: the _id value."""

import bson
import pytest

DOCS = [{"_id": 1, "a": 5, "b": "x"}, {"_id": "k", "a": 6}, {"_id": bson.ObjectId(b"1" * 12), "a": 7},
        {"_id": {"d": 1}, "a": 8}]


@pytest.fixture
def coll(db):
    db.c.insert_many(DOCS)
    db.c.create_index("a")
    return db.c


def test_each_document_ends_with_its_record_id(coll):
    found = list(coll.find({}, show_record_id=True).sort("a", 1))
    assert found == [dict(doc, **{"$recordId": doc["_id"]}) for doc in DOCS]
    assert all(list(doc)[-1] == "$recordId" for doc in found)


def test_record_id_follows_a_projection_even_without_the_id(coll):
    found = list(coll.find({"a": {"$gte": 6}}, {"_id": 0, "a": 1}, show_record_id=True)
                 .sort("a", 1))
    assert found == [{"a": d["a"], "$recordId": d["_id"]} for d in DOCS[1:]]
    excluded = list(coll.find({"a": 5}, {"b": 0}, show_record_id=True))
    assert excluded == [{"_id": 1, "a": 5, "$recordId": 1}]


def test_record_id_follows_the_index_key_with_return_key(coll):
    found = list(coll.find({"a": {"$lte": 6}}, return_key=True, show_record_id=True)
                 .sort("a", 1))
    assert found == [{"a": 5, "$recordId": 1}, {"a": 6, "$recordId": "k"}]


def test_record_ids_come_through_get_more(coll):
    coll.insert_many([{"_id": 100 + i, "a": 100 + i} for i in range(30)])
    found = list(coll.find({"a": {"$gte": 100}}, show_record_id=True, batch_size=4))
    assert len(found) == 30
    assert all(doc["$recordId"] == doc["_id"] for doc in found)


def test_explain_shows_no_stage_for_it(coll):
    plain = coll.find({"a": 5}).explain()["queryPlanner"]["winningPlan"]
    shown = coll.find({"a": 5}, show_record_id=True).explain()["queryPlanner"]["winningPlan"]
    assert shown["stage"] == plain["stage"] == "FETCH"


def test_false_or_a_wrong_type(coll):
    assert list(coll.find({"a": 5}, show_record_id=False)) == [DOCS[0]]
    with pytest.raises(Exception) as info:
        coll.database.command({"find": "c", "showRecordId": "yes"})
    assert info.value.code == 14
