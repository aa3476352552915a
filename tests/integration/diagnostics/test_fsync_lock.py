"""fsync {lock: true} and fsyncUnlock as mongod 7.0 has them: writes of every kind wait while
the lock is held (listed by currentOp as waitingForLock) and go on at the last unlock; reads,
currentOp and fsyncUnlock itself go on; locks nest; a waiting write honours maxTimeMS, killOp
and killSessions."""

import signal

import pymongo
import pymongo.errors
import pytest
from bson.int64 import Int64

from current_op_helpers import Background, current_op, wait_for_op
from quarry_server import CLIENT_OPTIONS


def fails_with(code, call, *args, **kwargs):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        call(*args, **kwargs)
    assert failure.value.code == code, failure.value.details
    return failure.value


@pytest.fixture
def locked_server(own_server):
    """A server of the test's own (the lock is the whole server's) and a client of it."""
    client = pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS)
    yield own_server, client
    while client.admin.command("currentOp").get("fsyncLock"):
        client.admin.command("fsyncUnlock")
    client.close()


def test_lock_nests_and_unlock_counts_down(locked_server):
    _, client = locked_server
    client.t.c.insert_one({"_id": 0})
    reply = client.admin.command("fsync", lock=True)
    assert reply["info"] == "now locked against writes, use db.fsyncUnlock() to unlock"
    assert reply["lockCount"] == 1 and isinstance(reply["lockCount"], Int64)
    assert reply["seeAlso"] == "http://dochub.mongodb.org/core/fsynccommand"
    assert "numFiles" not in reply
    assert client.admin.command("fsync", lock=True)["lockCount"] == 2
    status = client.admin.command("currentOp")
    assert status["fsyncLock"] is True
    assert status["info"] == "use db.fsyncUnlock() to terminate the fsync write/snapshot lock"
    # Reads go on: a point read on an io thread, a scan on a worker, a count.
    assert client.t.c.find_one({"_id": 0}) == {"_id": 0}
    assert list(client.t.c.find({"x": {"$exists": False}})) == [{"_id": 0}]
    assert client.t.c.count_documents({}) == 1
    unlocked = client.admin.command("fsyncUnlock")
    assert unlocked["info"] == "fsyncUnlock completed" and unlocked["lockCount"] == 1
    assert client.admin.command("currentOp")["fsyncLock"] is True
    assert client.admin.command("fsyncUnlock")["lockCount"] == 0
    assert "fsyncLock" not in client.admin.command("currentOp")
    failure = fails_with(20, client.admin.command, "fsyncUnlock")
    assert failure.details["codeName"] == "IllegalOperation"
    assert failure.details["errmsg"] == "fsyncUnlock called when not locked"
    client.t.c.insert_one({"_id": 1})


def test_the_lock_flushes_what_was_written_to_files(locked_server):
    _, client = locked_server
    client.t.c.insert_many([{"_id": i, "pad": "x" * 100} for i in range(2000)])
    before = client.admin.command("serverStatus")["rocksdb"]["live-sst-files-size"]
    client.admin.command("fsync", lock=True)
    after = client.admin.command("serverStatus")["rocksdb"]["live-sst-files-size"]
    assert after > before
    client.admin.command("fsyncUnlock")


def test_writes_wait_for_the_last_unlock_and_then_apply(locked_server):
    server, client = locked_server
    client.t.c.insert_one({"_id": 0})
    client.admin.command("fsync", lock=True)
    client.admin.command("fsync", lock=True)
    writer = Background(server, "held-insert", lambda c: c.t.c.insert_one({"_id": 1}).inserted_id)
    op = wait_for_op(client, appName="held-insert", waitingForLock=True)
    assert op["command"]["insert"] == "c"
    assert client.admin.command("fsyncUnlock")["lockCount"] == 1
    # Still held: one lock is left.
    assert current_op(client, appName="held-insert", waitingForLock=True)
    assert client.t.c.find_one({"_id": 1}) is None
    assert client.admin.command("fsyncUnlock")["lockCount"] == 0
    assert writer.join() == 1
    assert client.t.c.find_one({"_id": 1}) == {"_id": 1}


def test_every_kind_of_write_waits_and_reads_and_unlock_still_answer(locked_server):
    server, client = locked_server
    client.t.c.insert_many([{"_id": i, "v": i} for i in range(50)])
    client.t.c2.insert_one({})
    # More waiting writes than the server has workers (at least 4): none of them holds one.
    work = {
        "w-insert": lambda c: c.t.c.insert_one({"_id": 100}).inserted_id,
        "w-bulk": lambda c: len(c.t.c.insert_many([{"_id": 200 + i} for i in range(100)])
                                .inserted_ids),
        "w-update": lambda c: c.t.c.update_many({}, {"$inc": {"v": 1000}}).modified_count,
        "w-delete": lambda c: c.t.c.delete_one({"_id": 0}).deleted_count,
        "w-fam": lambda c: c.t.c.find_one_and_update({"_id": 1}, {"$set": {"f": 1}})["_id"],
        "w-create": lambda c: c.t.command("create", "made").get("ok"),
        "w-index": lambda c: c.t.c.create_index("v"),
        "w-drop": lambda c: c.t.command("drop", "c2").get("ok"),
        "w-out": lambda c: list(c.t.c.aggregate([{"$match": {}}, {"$out": "copy"}])),
    }
    client.admin.command("fsync", lock=True)
    writers = {name: Background(server, name, fn) for name, fn in work.items()}
    for name in work:
        wait_for_op(client, appName=name, waitingForLock=True)
    # Reads that need a worker still get one, and nothing has changed.
    assert client.t.c.count_documents({"v": {"$lt": 1000}}) == 50
    assert sorted(client.t.list_collection_names()) == ["c", "c2"]
    assert client.admin.command("fsyncUnlock")["lockCount"] == 0
    results = {name: writer.join() for name, writer in writers.items()}
    assert results["w-insert"] == 100 and results["w-bulk"] == 100
    assert results["w-delete"] == 1 and results["w-fam"] == 1
    assert results["w-index"] == "v_1"
    assert "made" in client.t.list_collection_names()
    assert "c2" not in client.t.list_collection_names()
    assert "copy" in client.t.list_collection_names()


def test_a_waiting_write_honours_max_time_ms_kill_op_and_kill_sessions(locked_server):
    server, client = locked_server
    client.admin.command("fsync", lock=True)
    fails_with(50, client.t.command, "insert", "c", documents=[{"_id": 1}], maxTimeMS=50)
    writer = Background(server, "killed-insert",
                        lambda c: c.t.c.insert_one({"_id": 2}).inserted_id)
    op = wait_for_op(client, appName="killed-insert", waitingForLock=True)
    client.admin.command("killOp", op=op["opid"])
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        writer.join()
    assert failure.value.code == 11601
    # pymongo sends each write under an implicit session, which killAllSessions ends.
    writer = Background(server, "session-insert",
                        lambda c: c.t.c.insert_one({"_id": 3}).inserted_id)
    wait_for_op(client, appName="session-insert", waitingForLock=True)
    client.admin.command("killAllSessions", [])
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        writer.join()
    assert failure.value.code == 11601
    client.admin.command("fsyncUnlock")
    assert client.t.c.count_documents({}) == 0


def test_fsync_needs_the_admin_database(client):
    fails_with(13, client.test.command, "fsync", lock=True)
    fails_with(13, client.test.command, "fsyncUnlock")


def test_under_auth_lock_needs_fsync_and_unlock_needs_unlock(make_server):
    server = make_server("fsync-auth", extra_args=["--auth"])
    first = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    first.admin.command("createUser", "root", pwd="rootpw", roles=["root"])
    first.close()
    uri = f"mongodb://{{}}@{server.host}:{server.port}/?authSource=admin"
    root = pymongo.MongoClient(uri.format("root:rootpw"), **CLIENT_OPTIONS)
    root.admin.command("createUser", "writer", pwd="pw", roles=["readWriteAnyDatabase"])
    root.admin.command("createUser", "host", pwd="pw", roles=["hostManager"])
    writer = pymongo.MongoClient(uri.format("writer:pw"), **CLIENT_OPTIONS)
    host = pymongo.MongoClient(uri.format("host:pw"), **CLIENT_OPTIONS)
    try:
        fails_with(13, writer.admin.command, "fsync", lock=True)
        assert host.admin.command("fsync", lock=True)["lockCount"] == 1
        fails_with(13, writer.admin.command, "fsyncUnlock")
        assert writer.t.c.find_one() is None
        assert host.admin.command("fsyncUnlock")["lockCount"] == 0
        writer.t.c.insert_one({"_id": 1})
    finally:
        for c in (root, writer, host):
            c.close()


def test_a_stop_lets_go_of_the_lock_and_the_waiting_write_is_kept(own_server):
    client = pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS)
    client.admin.command("fsync", lock=True)
    writer = Background(own_server, "held-at-stop",
                        lambda c: c.t.c.insert_one({"_id": 1}).inserted_id)
    wait_for_op(client, appName="held-at-stop", waitingForLock=True)
    client.close()
    own_server.proc.send_signal(signal.SIGTERM)
    assert own_server.proc.wait(timeout=60) == 0
    assert writer.join() == 1
    own_server.start()
    client = pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS)
    try:
        assert client.t.c.find_one() == {"_id": 1}
        assert "fsyncLock" not in client.admin.command("currentOp")
    finally:
        client.close()
