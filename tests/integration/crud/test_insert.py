"""insert with pymongo: round trips of every BSON type, ids, duplicate keys, ordered/unordered."""

import datetime
import re
import uuid

import bson
import pymongo
import pymongo.errors
import pytest
from bson.code import Code
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from bson.objectid import ObjectId
from bson.regex import Regex
from bson.son import SON
from bson.timestamp import Timestamp

from quarry_server import CLIENT_OPTIONS


def test_insert_one_round_trips_every_bson_type(db):
    doc = SON([
        ("_id", 1), ("double", 1.5), ("string", "héllo wörld ✓"), ("doc", {"a": {"b": [1, 2]}}),
        ("array", [1, "two", 3.0, None, {"x": 1}, [5]]), ("binary", b"\x00\x01\xff"),
        ("uuid", uuid.UUID(int=42)), ("oid", ObjectId("5f1a2b3c4d5e6f7a8b9c0d1e")),
        ("bool", True), ("date", datetime.datetime(2020, 5, 17, 12, 30, 45, 123000)),
        ("null", None), ("regex", Regex("^ab.*c$", "im")), ("code", Code("function() {}")),
        ("int32", 2 ** 31 - 1), ("timestamp", Timestamp(1600000000, 7)),
        ("int64", Int64(2 ** 62)), ("decimal", Decimal128("1234.5678901234567890")),
        ("minkey", MinKey()), ("maxkey", MaxKey()), ("empty_doc", {}), ("empty_array", []),
    ])
    db.types.insert_one(doc)
    got = db.types.find_one({"_id": 1})
    assert list(got.keys()) == list(doc.keys()), "field order must be preserved"
    for key, value in doc.items():
        assert got[key] == value, key
        assert type(got[key]) is type(value) or key in ("doc",), key


def test_insert_one_returns_the_id_and_generates_object_ids(db):
    result = db.c.insert_one({"x": 1})
    assert isinstance(result.inserted_id, ObjectId)
    assert db.c.find_one({"_id": result.inserted_id})["x"] == 1


def test_server_generates_an_id_when_the_client_sends_none(db):
    # pymongo always adds _id; send the raw command to see the server do it.
    reply = db.command("insert", "noid", documents=[{"x": 1}, {"x": 2}])
    assert reply["n"] == 2
    docs = list(db.noid.find())
    assert len(docs) == 2 and all(isinstance(d["_id"], ObjectId) for d in docs)
    assert docs[0]["_id"] != docs[1]["_id"]


def test_insert_many_ordered_inserts_all(db):
    result = db.c.insert_many([{"_id": i, "v": i * i} for i in range(1000)])
    assert result.inserted_ids == list(range(1000))
    assert db.c.count_documents({}) == 1000
    assert db.c.find_one({"_id": 999})["v"] == 998001


def test_duplicate_id_raises_duplicate_key_error_11000_with_key_value(db):
    db.c.insert_one({"_id": "k1", "x": 1})
    with pytest.raises(pymongo.errors.DuplicateKeyError) as info:
        db.c.insert_one({"_id": "k1", "x": 2})
    assert info.value.code == 11000
    details = info.value.details
    assert details.get("keyValue") == {"_id": "k1"}, details
    assert details.get("keyPattern") == {"_id": 1}, details
    assert "E11000 duplicate key error" in details["errmsg"]
    assert db.c.find_one({"_id": "k1"})["x"] == 1, "the first document must stay unchanged"


def test_ordered_insert_many_stops_at_first_duplicate(db):
    docs = [{"_id": 1}, {"_id": 2}, {"_id": 1}, {"_id": 3}]
    with pytest.raises(pymongo.errors.BulkWriteError) as info:
        db.c.insert_many(docs, ordered=True)
    result = info.value.details
    assert result["nInserted"] == 2
    assert [(e["index"], e["code"]) for e in result["writeErrors"]] == [(2, 11000)]
    assert sorted(d["_id"] for d in db.c.find()) == [1, 2]


def test_unordered_insert_many_reports_every_duplicate_and_inserts_the_rest(db):
    db.c.insert_one({"_id": 2})
    docs = [{"_id": 1}, {"_id": 2}, {"_id": 3}, {"_id": 3}, {"_id": 4}]
    with pytest.raises(pymongo.errors.BulkWriteError) as info:
        db.c.insert_many(docs, ordered=False)
    result = info.value.details
    assert result["nInserted"] == 3
    assert [(e["index"], e["code"]) for e in result["writeErrors"]] == [(1, 11000), (3, 11000)]
    assert sorted(d["_id"] for d in db.c.find()) == [1, 2, 3, 4]


def test_equal_numeric_ids_of_different_types_are_duplicates(db):
    db.c.insert_one({"_id": 1})
    for same in (1.0, Int64(1), Decimal128("1")):
        with pytest.raises(pymongo.errors.DuplicateKeyError):
            db.c.insert_one({"_id": same})


def test_document_ids_can_be_documents_and_find_them_by_value(db):
    db.c.insert_one({"_id": {"a": 1, "b": "x"}, "v": 1})
    assert db.c.find_one({"_id": {"a": 1, "b": "x"}})["v"] == 1
    assert db.c.find_one({"_id": {"b": "x", "a": 1}}) is None  # field order matters


def test_array_id_is_rejected(db):
    with pytest.raises(pymongo.errors.WriteError) as info:
        db.c.insert_one({"_id": [1, 2]})
    assert info.value.code == 2  # BadValue "can't use an array for _id", as mongod's insert.cpp


def test_unacknowledged_insert_is_visible_to_the_next_read_on_the_connection(client, db):
    # docs/DESIGN.md: a read that follows a w:0 write on the same connection sees that write.
    with pymongo.MongoClient(client.address[0], client.address[1], w=0, maxPoolSize=1,
                             **CLIENT_OPTIONS) as c:
        coll = c[db.name].get_collection("w0")
        for i in range(100):
            coll.insert_one({"_id": i})
        assert coll.with_options(write_concern=pymongo.WriteConcern(w=1)).count_documents({}) == 100


def test_insert_with_journal_write_concern_is_acknowledged(db):
    coll = db.get_collection("j", write_concern=pymongo.WriteConcern(w=1, j=True))
    assert coll.insert_one({"_id": 1}).acknowledged
    assert coll.find_one({"_id": 1}) == {"_id": 1}


def test_document_over_16_mib_is_rejected_and_nothing_is_stored(db):
    # pymongo refuses such a document itself, so send the command as one body: a command may
    # be 16 MiB + 16 KiB, the document inside it may not exceed 16 MiB.
    big = {"_id": "big", "data": "x" * (16 * 1024 * 1024)}
    try:
        reply = db.command("insert", "c", documents=[big])
    except pymongo.errors.OperationFailure as e:
        reply = e.details
    assert reply.get("ok") == 0 or reply.get("writeErrors"), f"accepted: {reply!r:.300}"
    if reply.get("writeErrors"):
        assert reply["writeErrors"][0]["code"] in (2, 10334), reply["writeErrors"]
    assert db.c.find_one({"_id": "big"}) is None


def test_document_just_under_16_mib_is_stored(db):
    doc = {"_id": "almost", "data": "y" * (16 * 1024 * 1024 - 100)}
    db.c.insert_one(doc)
    got = db.c.find_one({"_id": "almost"})
    assert len(got["data"]) == len(doc["data"])


def test_unicode_field_names_round_trip(db):
    db.c.insert_one({"_id": 1, "ключ": "значение", "emoji 🐟": 1})
    got = db.c.find_one({"_id": 1})
    assert got["ключ"] == "значение" and got["emoji 🐟"] == 1


def test_dotted_field_names_inside_documents_are_stored(db):
    # mongod 5.0+ stores them; pymongo 3.11 refuses them in insert_one, so send the command.
    db.command("insert", "c", documents=[{"_id": 1, "a": {"b.c": 2}}])
    assert db.c.find_one({"_id": 1})["a"] == {"b.c": 2}


def test_regex_values_are_stored_not_compiled(db):
    db.c.insert_one({"_id": 1, "r": re.compile("^a", re.IGNORECASE)})
    got = db.c.find_one({"_id": 1})
    assert isinstance(got["r"], Regex) and got["r"].pattern == "^a"
    assert got["r"].flags & re.IGNORECASE


def test_bulk_write_mixes_inserts_updates_and_deletes(db):
    result = db.c.bulk_write([
        pymongo.InsertOne({"_id": 1, "v": 1}),
        pymongo.InsertOne({"_id": 2, "v": 2}),
        pymongo.UpdateOne({"_id": 1}, {"$set": {"v": 10}}),
        pymongo.ReplaceOne({"_id": 2}, {"v": 20}),
        pymongo.UpdateOne({"_id": 3}, {"$set": {"v": 30}}, upsert=True),
        pymongo.DeleteOne({"_id": 2}),
    ])
    assert (result.inserted_count, result.matched_count, result.modified_count,
            result.upserted_count, result.deleted_count) == (2, 2, 2, 1, 1)
    assert list(db.c.find(sort=[("_id", 1)])) == [{"_id": 1, "v": 10}, {"_id": 3, "v": 30}]


def test_bson_int64_ids_keep_their_type(db):
    db.c.insert_one({"_id": Int64(5)})
    assert type(db.c.find_one()["_id"]) is Int64
    assert bson.decode(bson.encode(db.c.find_one())) == {"_id": 5}
