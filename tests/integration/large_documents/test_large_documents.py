"""Multi-megabyte documents, which the server stores as zstd frames: every read path returns them
byte for byte, under each wire compressor; a zstd client gets the stored frame as its reply
(far fewer bytes than the document); writes that replace, update and delete them, change
streams, secondary indexes, and a crash before the records reach disk all see whole documents."""

import random
import time

import bson
import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS

COMPRESSORS = [None, "snappy", "zlib", "zstd"]


def large_document(_id, megabytes, seed=1):
    """Nested records as an application stores them: compressible, not repetitive."""
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "omega", "kappa", "sigma", "theta"]
    records = []
    size = 0
    while size < megabytes * 1_000_000:
        record = {"n": len(records), "name": " ".join(rng.choice(words) for _ in range(3)),
                  "price": round(rng.random() * 1000, 2), "tags": rng.sample(words, 3),
                  "address": {"city": rng.choice(words), "zip": str(rng.randint(10000, 99999))}}
        records.append(record)
        size += 110
    return {"_id": _id, "kind": "large", "seed": seed, "records": records}


def network(client):
    return client.admin.command("serverStatus")["network"]


def connect(server, compressor):
    options = {"compressors": compressor} if compressor else {}
    return pymongo.MongoClient(server.uri(**options), **CLIENT_OPTIONS)


@pytest.mark.parametrize("compressor", COMPRESSORS)
def test_every_read_path_returns_the_document_whole(server, db, compressor):
    doc = large_document(1, 3)
    with connect(server, compressor) as c:
        coll = c[db.name].docs
        coll.insert_one(doc)
        coll.insert_one({"_id": 2, "kind": "small"})
        assert coll.find_one({"_id": 1}) == doc                 # by _id
        assert coll.find_one({"kind": "large"}) == doc          # a collection scan
        assert list(coll.find({"_id": {"$in": [1, 2]}}, sort=[("_id", 1)]))[0] == doc
        assert list(coll.aggregate([{"$match": {"seed": 1}}])) == [doc]
        projected = coll.find_one({"_id": 1}, {"records": {"$slice": 2}})
        assert projected["records"] == doc["records"][:2]
        assert coll.count_documents({}) == 2


def test_a_zstd_reply_sends_the_stored_frame(server, db):
    doc = large_document(1, 5)
    size = len(bson.encode(doc))
    with connect(server, "zstd") as c:
        coll = c[db.name].docs
        coll.insert_one(doc)
        before = network(c)
        assert coll.find_one({"_id": 1}) == doc
        after = network(c)
    physical = after["physicalBytesOut"] - before["physicalBytesOut"]
    logical = after["bytesOut"] - before["bytesOut"]
    assert logical > size
    assert physical < size / 3, f"{physical} bytes on the wire for a {size}-byte document"


@pytest.mark.parametrize("compressor", [None, "zstd"])
def test_a_document_at_the_16_mib_limit_round_trips(server, db, compressor):
    doc = large_document(1, 17)
    size = len(bson.encode(doc))
    per_record = size / len(doc["records"])
    excess = size - (16 * 1024 * 1024 - 2000)
    if excess > 0:
        del doc["records"][-(int(excess / per_record) + 10):]
    assert 16 * 1024 * 1024 - 64 * 1024 < len(bson.encode(doc)) < 16 * 1024 * 1024
    with connect(server, compressor) as c:
        coll = c[db.name].docs
        coll.insert_one(doc)
        assert coll.find_one({"_id": 1}) == doc
        assert coll.find_one({"seed": 1}) == doc


@pytest.mark.parametrize("compressor", [None, "zstd"])
def test_replace_update_and_delete(server, db, compressor):
    with connect(server, compressor) as c:
        coll = c[db.name].docs
        coll.insert_one(large_document(1, 2))
        replacement = large_document(1, 2, seed=2)
        assert coll.replace_one({"_id": 1}, replacement).modified_count == 1
        assert coll.find_one({"_id": 1}) == replacement
        assert coll.update_one({"_id": 1},
                               {"$set": {"records.0.name": "changed"}}).modified_count == 1
        assert coll.update_one({"_id": 1}, {"$push": {"records": {"n": -1}}}).modified_count == 1
        got = coll.find_one({"_id": 1})
        assert got["records"][0]["name"] == "changed"
        assert got["records"][-1] == {"n": -1}
        assert got["records"][1:-1] == replacement["records"][1:]
        found = coll.find_one_and_update({"_id": 1}, {"$set": {"kind": "after"}},
                                         return_document=pymongo.ReturnDocument.AFTER)
        assert found["kind"] == "after" and found["records"] == got["records"]
        stats = c[db.name].command("collStats", "docs")
        assert stats["size"] == len(bson.encode(found))
        assert coll.delete_one({"_id": 1}).deleted_count == 1
        assert coll.find_one({"_id": 1}) is None
        assert c[db.name].command("collStats", "docs")["size"] == 0


def test_a_secondary_index_finds_large_documents(server, db):
    with connect(server, "zstd") as c:
        coll = c[db.name].docs
        coll.create_index("seed")
        docs = [large_document(i, 1, seed=10 + i) for i in range(3)]
        coll.insert_many(docs)
        assert coll.find_one({"seed": 11}) == docs[1]
        plan = coll.find({"seed": 11}).explain()["queryPlanner"]["winningPlan"]
        assert "IXSCAN" in str(plan)
        coll.update_one({"_id": 1}, {"$set": {"seed": 99}})
        assert coll.find_one({"seed": 11}) is None
        assert coll.find_one({"seed": 99})["_id"] == 1


def test_change_streams_carry_whole_documents(server, db):
    with connect(server, "zstd") as c:
        coll = c[db.name].docs
        with coll.watch(full_document="updateLookup") as stream:
            doc = large_document(1, 2)
            coll.insert_one(doc)
            coll.update_one({"_id": 1}, {"$set": {"kind": "updated"}})
            inserted = stream.next()
            updated = stream.next()
    assert inserted["operationType"] == "insert"
    assert inserted["fullDocument"] == doc
    assert updated["operationType"] == "update"
    assert updated["updateDescription"]["updatedFields"] == {"kind": "updated"}
    assert updated["fullDocument"]["records"] == doc["records"]


def test_pre_images_of_large_documents_are_whole(server, db):
    with connect(server, "zstd") as c:
        d = c[db.name]
        d.create_collection("images", changeStreamPreAndPostImages={"enabled": True})
        doc = large_document(1, 2)
        d.images.insert_one(doc)
        # pymongo 3.11's watch() has no fullDocumentBeforeChange: the stage itself.
        reply = d.command("aggregate", "images", cursor={},
                          pipeline=[{"$changeStream": {"fullDocumentBeforeChange": "required"}}])
        cursor_id = reply["cursor"]["id"]
        d.images.update_one({"_id": 1}, {"$set": {"kind": "updated"}})
        d.images.delete_one({"_id": 1})
        events = list(reply["cursor"]["firstBatch"])
        deadline = time.monotonic() + 10
        while len(events) < 2 and time.monotonic() < deadline:
            more = d.command("getMore", cursor_id, collection="images", maxTimeMS=500)
            events.extend(more["cursor"]["nextBatch"])
        d.command("killCursors", "images", cursors=[cursor_id])
    assert [e["operationType"] for e in events] == ["update", "delete"]
    assert events[0]["fullDocumentBeforeChange"] == doc
    assert events[1]["fullDocumentBeforeChange"] == dict(doc, kind="updated")


def test_documents_not_yet_on_disk_survive_a_crash(own_server):
    docs = [large_document(i, 2, seed=i) for i in range(3)]
    with connect(own_server, None) as c:
        coll = c.crash_large.docs
        coll.insert_many(docs)
        coll.replace_one({"_id": 1}, large_document(1, 2, seed=7))
        coll.delete_one({"_id": 2})
        c.admin.command("ping")
    own_server.restart(crash=True)
    with connect(own_server, "zstd") as c:
        got = list(c.crash_large.docs.find(sort=[("_id", 1)]))
    assert got == [docs[0], large_document(1, 2, seed=7)]
