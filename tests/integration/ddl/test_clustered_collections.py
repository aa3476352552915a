"""create with clusteredIndex: records are kept in _id order in every Quarry collection, so a
clustered collection stores and reads as any other, and lists as mongod lists one."""

import pymongo.errors
import pytest


def command_error(call):
    with pytest.raises(pymongo.errors.OperationFailure) as raised:
        call()
    return raised.value


def test_a_clustered_collection_lists_its_clustered_index(db):
    db.command("create", "events",
               clusteredIndex={"key": {"_id": 1}, "unique": True, "name": "by time"})
    entry = next(db.list_collections(filter={"name": "events"}))
    assert entry["options"] == {"clusteredIndex": {"v": 2, "key": {"_id": 1},
                                                   "name": "by time", "unique": True}}
    assert "idIndex" not in entry
    assert entry["info"]["readOnly"] is False
    assert list(db.events.list_indexes()) == [
        {"v": 2, "key": {"_id": 1}, "name": "by time", "unique": True, "clustered": True}]
    db.command("create", "plain", clusteredIndex={"key": {"_id": 1}, "unique": True, "v": 2})
    assert [i["name"] for i in db.plain.list_indexes()] == ["_id_"]
    # Creating it again with the same option is accepted, as for any collection.
    db.command("create", "plain", clusteredIndex={"key": {"_id": 1}, "unique": True, "v": 2})


def test_a_clustered_collection_stores_and_reads_by_id(db):
    db.command("create", "events", clusteredIndex={"key": {"_id": 1}, "unique": True})
    db.events.insert_many([{"_id": i, "n": i * i} for i in (5, 1, 3, 2, 4)])
    assert [d["_id"] for d in db.events.find({"_id": {"$gte": 2, "$lt": 5}})] == [2, 3, 4]
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        db.events.insert_one({"_id": 3})
    db.events.create_index("n")
    assert [i["name"] for i in db.events.list_indexes()] == ["_id_", "n_1"]
    assert db.events.find_one({"n": 16}) == {"_id": 4, "n": 16}


def test_clustered_index_options_are_checked_as_mongod_checks_them(db):
    cases = [
        (True, 5979703),
        ({"key": {"_id": 1}, "unique": False}, 5979700),
        ({"key": {"a": 1}, "unique": True}, 197),
        ({"key": {"_id": -1}, "unique": True}, 197),
        ({"key": {"_id": 1, "a": 1}, "unique": True}, 197),
        ({"key": {"_id": 1}, "unique": True, "v": 1}, 5979704),
        ({"key": {"_id": 1}, "unique": True, "sparse": True}, 40415),
        ({"key": {"_id": 1}}, 40414),
        ({"unique": True}, 40414),
        ({"key": {"_id": 1}, "unique": 1}, 14),
        ("yes", 14),
    ]
    for option, code in cases:
        error = command_error(lambda: db.command("create", "c", clusteredIndex=option))
        assert error.code == code, (option, error.details)
    spec = {"key": {"_id": 1}, "unique": True}
    for extra, code in (({"idIndex": {"key": {"_id": 1}, "name": "_id_"}}, 72),
                        ({"autoIndexId": False}, 6026501),
                        ({"expireAfterSeconds": 60}, 238)):
        error = command_error(lambda: db.command("create", "c", clusteredIndex=spec, **extra))
        assert error.code == code, (extra, error.details)
    assert "c" not in db.list_collection_names()
