"""validate with pymongo: every index holds exactly the entries its documents make, in
mongod's reply shape; with full: true every record the oplog holds a change of agrees with its
newest change; and after kill -9 in the middle of an index build or of TTL deletes, a
restarted server's indexes and records still match their records and oplog."""

import datetime
import threading
import time

import struct

import pymongo
import pymongo.errors
import pytest
from bson.raw_bson import RawBSONDocument

from quarry_server import CLIENT_OPTIONS


def check_valid(db, coll, documents=None, full=False):
    reply = db.command("validate", coll, full=full)
    assert reply["valid"] is True, reply
    assert reply["errors"] == [] and reply["missingIndexEntries"] == []
    assert reply["extraIndexEntries"] == []
    if documents is not None:
        assert reply["nrecords"] == documents
    return reply


def test_validate_reports_records_and_keys_per_index(db):
    db.c.create_index("k", unique=True)
    db.c.create_index("tags")
    db.c.create_index("s", sparse=True)
    db.c.create_index("p", partialFilterExpression={"p": {"$gt": 5}})
    db.c.insert_many([{"_id": i, "k": i, "tags": [i, i + 1, i + 2], "p": i}
                      | ({"s": i} if i % 2 else {}) for i in range(100)])
    db.c.update_many({"_id": {"$lt": 10}}, {"$set": {"tags": ["x"]}})
    db.c.delete_many({"_id": {"$gte": 90}})
    reply = check_valid(db, "c", documents=90)
    assert reply["ns"] == f"{db.name}.c"
    assert reply["nIndexes"] == 5
    assert reply["keysPerIndex"] == {"_id_": 90, "k_1": 90, "tags_1": 10 + 80 * 3,
                                     "s_1": 45, "p_1": 84}
    assert all(detail["valid"] for detail in reply["indexDetails"].values())


def test_full_validate_checks_each_record_against_its_newest_oplog_entry(db):
    large = "x" * 200_000  # stored and logged as a compressed frame
    db.c.insert_many([{"_id": i, "v": i} for i in range(50)])
    db.c.update_many({"_id": {"$lt": 20}}, {"$inc": {"v": 100}})
    db.c.replace_one({"_id": 20}, {"replaced": True})
    db.c.delete_many({"_id": {"$gte": 40}})
    db.c.insert_one({"_id": 45, "again": True})  # deleted, then inserted again
    db.c.insert_one({"_id": "big", "s": large})
    db.c.update_one({"_id": "big"}, {"$set": {"t": large}})
    db.old.insert_many([{"_id": i} for i in range(5)])
    db.old.rename("renamed")  # its entries name the old namespace, under the same UUID
    db.renamed.delete_one({"_id": 0})
    db.gone.insert_many([{"_id": i} for i in range(5)])
    db.gone.drop()
    db.gone.insert_one({"_id": 1, "new": True})  # another UUID: the old entries are not its
    reply = check_valid(db, "c", documents=42, full=True)
    assert reply["warnings"] == []
    check_valid(db, "renamed", documents=4, full=True)
    check_valid(db, "gone", documents=1, full=True)
    assert db.command("validate", "c", full=False)["valid"] is True


def test_validate_of_the_oplog_checks_its_entries(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        c.t.c.insert_many([{"_id": i} for i in range(20)])
        c.t.c.delete_many({"_id": {"$lt": 5}})
        reply = c.local.command("validate", "oplog.rs")
        assert reply["valid"] is True and reply["errors"] == [], reply
        assert reply["ns"] == "local.oplog.rs"
        assert reply["nrecords"] == len(list(c.local["oplog.rs"].find()))
        assert reply["nIndexes"] == 0


def test_validate_of_a_missing_collection_fails_with_26(db):
    with pytest.raises(pymongo.errors.OperationFailure) as failed:
        db.command("validate", "nope")
    assert failed.value.code == 26


def test_repair_is_refused_rather_than_ignored(db):
    db.c.insert_one({})
    with pytest.raises(pymongo.errors.OperationFailure) as failed:
        db.command("validate", "c", repair=True)
    assert failed.value.code == 238


def raw_document_with_string(_id, raw):
    """{_id, s} with the string's bytes as given, valid UTF-8 or not."""
    body = b"\x10_id\x00" + struct.pack("<i", _id)
    body += b"\x02s\x00" + struct.pack("<i", len(raw) + 1) + raw + b"\x00"
    return RawBSONDocument(struct.pack("<i", len(body) + 5) + body + b"\x00")


def test_check_bson_conformance_counts_strings_that_are_not_utf8(db):
    db.c.create_index("s")
    db.c.insert_many([raw_document_with_string(i, "é".encode()) for i in range(5)])
    db.c.insert_many([raw_document_with_string(10, b"\xff\xfe"),
                      raw_document_with_string(11, b"ok \xc3")])
    plain = check_valid(db, "c", documents=7)
    assert plain["nNonCompliantDocuments"] == 0 and plain["nInvalidDocuments"] == 0
    checked = db.command("validate", "c", checkBSONConformance=True)
    assert checked["valid"] is True, checked  # as mongod: a warning, not an error
    assert checked["nNonCompliantDocuments"] == 2
    assert checked["nInvalidDocuments"] == 0
    assert checked["errors"] == []
    assert len(checked["warnings"]) == 1 and "UTF-8" in checked["warnings"][0]
    assert checked["keysPerIndex"] == plain["keysPerIndex"]
    db.c.delete_many({"_id": {"$gte": 10}})
    again = db.command("validate", "c", checkBSONConformance=True, full=True)
    assert again["nNonCompliantDocuments"] == 0 and again["warnings"] == [], again


def test_background_validate_checks_what_a_foreground_one_does(db):
    db.c.create_index("v")
    db.c.insert_many([{"_id": i, "v": i % 7} for i in range(300)])
    foreground = check_valid(db, "c", documents=300)
    background = db.command("validate", "c", background=True)
    for field in ("valid", "nrecords", "nIndexes", "keysPerIndex", "errors", "warnings"):
        assert background[field] == foreground[field], field


def test_metadata_validate_checks_the_index_specs_alone(db):
    db.c.create_index([("a", 1), ("b", -1)], name="ab", sparse=True)
    db.c.create_index("t", expireAfterSeconds=3600)
    db.c.create_index("p", partialFilterExpression={"p": {"$gt": 1}})
    db.c.insert_many([{"_id": i, "a": i} for i in range(10)])
    reply = db.command("validate", "c", metadata=True)
    assert reply["valid"] is True and reply["warnings"] == [] and reply["errors"] == [], reply
    assert reply["nIndexes"] == 4
    # No record or index entry was read: the reply counts none.
    assert "nrecords" not in reply and "keysPerIndex" not in reply
    oplog = db.client.local.command("validate", "oplog.rs", metadata=True)
    assert oplog["valid"] is True and oplog["nIndexes"] == 0


@pytest.mark.parametrize("options", [
    {"background": True, "full": True},
    {"background": True, "repair": True},
    {"checkBSONConformance": True, "repair": True},
    {"metadata": True, "full": True},
    {"metadata": True, "background": True},
    {"metadata": True, "checkBSONConformance": True},
    {"metadata": True, "repair": True},
])
def test_option_combinations_mongod_refuses_answer_invalid_options(db, options):
    db.c.insert_one({})
    with pytest.raises(pymongo.errors.OperationFailure) as failed:
        db.command("validate", "c", **options)
    assert failed.value.code == 72, failed.value.details
    assert "not supported" in str(failed.value)


def test_validate_is_consistent_while_writes_go_on(db):
    db.c.create_index("v")
    db.c.insert_many([{"_id": i, "v": i} for i in range(2000)])
    stop = threading.Event()

    def write():
        i = 0
        while not stop.is_set():
            db.c.update_one({"_id": i % 2000}, {"$inc": {"v": 1}})
            i += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        for round_number in range(6):
            check_valid(db, "c", documents=2000, full=round_number % 2 == 1)
    finally:
        stop.set()
        writer.join()


def test_builds_while_writers_change_the_records_match_them(db):
    db.c.insert_many([{"_id": i, "v": i, "u": i} for i in range(60_000)])
    stop = threading.Event()
    changes = []

    def write():
        i = 0
        while not stop.is_set():
            target = (i * 7919) % 60_000
            if i % 3 == 0:
                db.c.update_one({"_id": target}, {"$inc": {"v": 100_000}})
            elif i % 3 == 1:
                db.c.delete_one({"_id": target})
            else:
                db.c.insert_one({"_id": 100_000 + i, "v": -i, "u": 100_000 + i})
            i += 1
        changes.append(i)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        db.c.create_index("v")
        db.c.create_index("u", unique=True)
        db.c.create_index([("v", -1)], unique=True)
    finally:
        stop.set()
        writer.join()
    assert changes[0] > 0
    documents = db.c.count_documents({})
    reply = check_valid(db, "c", documents=documents, full=True)
    assert reply["keysPerIndex"] == {"_id_": documents, "v_1": documents, "u_1": documents,
                                     "v_-1": documents}
    by_scan = sorted(d["_id"] for d in db.c.find({"v": {"$gt": 50_000}}).hint([("$natural", 1)]))
    for index in ("v_1", "v_-1"):
        assert sorted(d["_id"] for d in db.c.find({"v": {"$gt": 50_000}}).hint(index)) == by_scan


def test_kill9_during_an_index_build_leaves_consistent_indexes(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        for start in range(0, 100_000, 10_000):
            c.t.c.insert_many([{"_id": i, "k": i % 977, "tags": [i, -i - 1]}
                               for i in range(start, start + 10_000)])

        def build():
            try:
                c.t.c.create_index([("tags", 1), ("k", 1)])
            except pymongo.errors.PyMongoError:
                pass  # the server dies under it

        builder = threading.Thread(target=build)
        builder.start()
        time.sleep(0.1)  # into the build, which takes a few tenths of a second
        own_server.kill9()
        builder.join()
    own_server.start()
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        # The interrupted build was finished (or removed) at start-up; nothing is half built.
        names = sorted(c.t.c.index_information())
        assert names in (["_id_"], ["_id_", "tags_1_k_1"])
        reply = check_valid(c.t, "c", documents=100_000, full=True)
        if "tags_1_k_1" in names:
            assert reply["keysPerIndex"]["tags_1_k_1"] == 200_000


def test_kill9_during_ttl_deletes_leaves_consistent_indexes(make_server):
    server = make_server("ttl-kill9", extra_args=["--setParameter", "ttlMonitorSleepSecs=1"])
    past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1)
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        c.t.c.create_index("k")
        for start in range(0, 100_000, 10_000):
            c.t.c.insert_many([{"_id": i, "k": i % 100, "at": past}
                               for i in range(start, start + 10_000)])
        c.t.c.create_index("at", expireAfterSeconds=60)
        deadline = time.monotonic() + 30
        while c.t.c.estimated_document_count() == 100_000 and time.monotonic() < deadline:
            time.sleep(0.05)
    server.kill9()  # while the monitor deletes
    server.start()
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        remaining = c.t.c.estimated_document_count()
        reply = check_valid(c.t, "c", full=True)
        assert reply["keysPerIndex"]["k_1"] == reply["nrecords"]
        assert reply["keysPerIndex"]["at_1"] == reply["nrecords"]
        assert remaining <= 100_000
        # The monitor goes on after the restart.
        deadline = time.monotonic() + 60
        while c.t.c.estimated_document_count() > 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert c.t.c.estimated_document_count() == 0
        check_valid(c.t, "c", documents=0)
    server.stop()
