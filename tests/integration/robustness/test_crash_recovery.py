"""Durability across kill -9 and clean restarts, and the dbpath lock (docs/DESIGN.md "The write path":
an acknowledged write survives a process crash)."""

import os
import signal
import subprocess
import threading
import time

import pymongo
import pymongo.errors
import pytest
from pymongo import WriteConcern

from quarry_server import CLIENT_OPTIONS, QuarryServer, free_port

pytestmark = pytest.mark.slow


def connect(server):
    return pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)


def test_acknowledged_writes_survive_kill_9(own_server):
    with connect(own_server) as c:
        w1 = c.t_crash.get_collection("docs", write_concern=WriteConcern(w=1))
        j = c.t_crash.get_collection("docs", write_concern=WriteConcern(w=1, j=True))
        w1.insert_many([{"_id": i, "kind": "many"} for i in range(5000)])
        for i in range(5000, 5200):
            w1.insert_one({"_id": i, "kind": "one"})
        for i in range(5200, 5250):
            j.insert_one({"_id": i, "kind": "journaled"})
        w1.update_many({"kind": "one"}, {"$set": {"updated": True}})
        w1.delete_many({"_id": {"$lt": 100}})
        last = w1.insert_one({"_id": "last", "kind": "last"})  # acknowledged just before the kill
        assert last.acknowledged
    own_server.restart(crash=True)
    with connect(own_server) as c:
        docs = c.t_crash.docs
        assert docs.count_documents({}) == 5250 - 100 + 1
        assert sorted(d["_id"] for d in docs.find({"kind": "many"}, {"_id": 1})) == list(
            range(100, 5000))
        assert docs.count_documents({"kind": "one", "updated": True}) == 200
        assert docs.count_documents({"kind": "journaled"}) == 50
        assert docs.find_one({"_id": "last"}) is not None
        assert docs.find_one({"_id": 0}) is None, "a delete was lost"


def test_collection_drops_renames_and_replacements_survive_kill_9(own_server):
    # Records are replayed from the oplog after a crash (docs/formats/storage-layout.md): a
    # dropped collection must stay empty, a renamed one keep its documents under its new name,
    # and the newest version of each document win, also across a second crash.
    with connect(own_server) as c:
        db = c.t_crash_ddl
        db.gone.insert_many([{"_id": i} for i in range(1000)])
        db.gone.drop()
        db.old_name.insert_many([{"_id": i, "v": 0} for i in range(1000)])
        db.old_name.rename("new_name")
        for round_ in range(1, 4):
            db.new_name.update_many({}, {"$set": {"v": round_}})
        db.new_name.replace_one({"_id": 7}, {"replaced": True})
        db.new_name.delete_many({"_id": {"$gte": 900}})
        db.gone.insert_one({"_id": "reborn"})  # a new collection of the same name
    for _ in range(2):
        own_server.restart(crash=True)
        with connect(own_server) as c:
            db = c.t_crash_ddl
            assert sorted(db.list_collection_names()) == ["gone", "new_name"]
            assert list(db.gone.find()) == [{"_id": "reborn"}]
            assert db.new_name.count_documents({}) == 900
            assert db.new_name.count_documents({"v": 3}) == 899
            assert db.new_name.find_one({"_id": 7}) == {"_id": 7, "replaced": True}
            stats = db.command("collStats", "new_name")
            assert stats["count"] == 900


def test_a_retried_write_after_a_crash_gets_the_first_reply_instead_of_applying_again(
        own_server):
    # A driver retries a write once when its connection breaks; if the server crashed after
    # applying it and is back, the retry (same lsid and txnNumber) must get the first attempt's
    # reply, as from mongod, not duplicate-key errors or a second $inc.
    import uuid

    from bson.binary import Binary
    from bson.int64 import Int64

    from wire_client import RawConnection

    lsid = {"id": Binary(uuid.uuid4().bytes, 4)}
    insert = {"insert": "retried", "documents": [{"_id": i} for i in range(100)],
              "lsid": lsid, "txnNumber": Int64(1), "$db": "t_crash_retry"}
    update = {"update": "retried", "updates": [{"q": {"_id": 0}, "u": {"$inc": {"n": 1}}}],
              "lsid": lsid, "txnNumber": Int64(2), "$db": "t_crash_retry"}
    with RawConnection(own_server.host, own_server.port) as conn:
        first_insert = conn.command(insert).doc
        first_update = conn.command(update).doc
    assert first_insert["n"] == 100 and "writeErrors" not in first_insert
    assert first_update["nModified"] == 1
    own_server.restart(crash=True)
    with RawConnection(own_server.host, own_server.port) as conn:
        # Only the session's last write is remembered, as in mongod: txnNumber 2.
        retried = conn.command(update).doc
        assert retried["ok"] == 1 and retried["nModified"] == 1
        newer = dict(update, txnNumber=Int64(3))
        assert conn.command(newer).doc["nModified"] == 1  # a new txnNumber runs
    with connect(own_server) as c:
        assert c.t_crash_retry.retried.find_one({"_id": 0})["n"] == 2
        assert c.t_crash_retry.retried.count_documents({}) == 100


def test_writes_acknowledged_during_a_kill_are_all_found(own_server):
    # A writer thread records every acknowledged _id while the server is killed under it.
    acknowledged = []
    stop = threading.Event()

    def writer():
        with connect(own_server) as c:
            coll = c.t_crash.get_collection("racing", write_concern=WriteConcern(w=1))
            i = 0
            while not stop.is_set():
                try:
                    coll.insert_one({"_id": i, "payload": "z" * 200})
                    acknowledged.append(i)
                except pymongo.errors.PyMongoError:
                    return
                i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(1.5)
    own_server.kill9()
    stop.set()
    thread.join(timeout=30)
    assert len(acknowledged) > 10, "the writer did not get going"
    own_server.start()
    with connect(own_server) as c:
        found = {d["_id"] for d in c.t_crash.racing.find({}, {"_id": 1})}
    missing = sorted(set(acknowledged) - found)
    assert not missing, f"{len(missing)} acknowledged writes lost, first: {missing[:10]}"


def test_clean_sigterm_restart_keeps_data_and_identity(own_server):
    with connect(own_server) as c:
        c.t_restart.docs.insert_many([{"_id": i} for i in range(1000)])
        c.t_restart.create_collection("empty_one")
        election_before = c.admin.command("hello")["electionId"]
    status = own_server.stop()
    assert status == 0, f"SIGTERM exit status {status}; log:\n{own_server.log_tail()}"
    own_server.start()
    with connect(own_server) as c:
        assert c.t_restart.docs.count_documents({}) == 1000
        assert "empty_one" in c.t_restart.list_collection_names()
        election_after = c.admin.command("hello")["electionId"]
    assert election_after >= election_before, "electionId went backwards across a restart"


def test_sigterm_with_open_connections_exits_promptly(own_server):
    clients = [connect(own_server) for _ in range(5)]
    for c in clients:
        c.admin.command("ping")
    start = time.monotonic()
    status = own_server.stop(timeout=15)
    elapsed = time.monotonic() - start
    for c in clients:
        c.close()
    assert status == 0 and elapsed < 10, f"exit {status} after {elapsed:.1f} s"


def test_sigint_stops_cleanly_too(own_server):
    os.kill(own_server.pid, signal.SIGINT)
    assert own_server.proc.wait(timeout=15) == 0


def test_second_server_on_the_same_dbpath_exits_with_a_clear_message(own_server):
    second = QuarryServer(own_server.binary, own_server.dbpath, port=free_port())
    proc = subprocess.run(second.command(), capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"a second quarryd started on a locked dbpath:\n{output}"
    assert own_server.dbpath in output or "lock" in output.lower(), (
        f"the message does not say what is wrong:\n{output}")
    with connect(own_server) as c:  # the first one is unharmed
        c.t_lock.c.insert_one({"ok": 1})
        assert c.t_lock.c.count_documents({}) == 1


def test_restart_after_crash_during_large_batch_keeps_database_consistent(own_server):
    # An insert_many that may be cut by the kill: whatever is found must be whole documents,
    # and the server must start again.
    def big_batch():
        try:
            with connect(own_server) as c:
                c.t_crash.batch.insert_many(
                    [{"_id": i, "data": "d" * 1000} for i in range(50_000)])
        except pymongo.errors.PyMongoError:
            pass

    thread = threading.Thread(target=big_batch)
    thread.start()
    time.sleep(1.0)
    own_server.kill9()
    thread.join(timeout=60)
    own_server.start()
    with connect(own_server) as c:
        for doc in c.t_crash.batch.find():
            assert doc["data"] == "d" * 1000
        c.t_crash.batch.insert_one({"_id": "after"})
