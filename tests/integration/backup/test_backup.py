"""createBackup and `quarry backup`: a hot backup of a running quarryd, taken while a client
writes, that a second quarryd starts on with the data and oplog of the backup's moment."""

import os
import stat
import subprocess
import threading

import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


class _SequentialWriter(threading.Thread):
    """Inserts {_id: 0}, {_id: 1}, ... one at a time with w:1 until stopped; `acked` counts the
    inserts the server acknowledged."""

    def __init__(self, uri, db, coll):
        super().__init__(daemon=True)
        self.client = pymongo.MongoClient(uri, **CLIENT_OPTIONS)
        self.coll = self.client[db].get_collection(
            coll, write_concern=pymongo.WriteConcern(w=1))
        self.acked = 0
        self.stop = threading.Event()
        self.error = None

    def run(self):
        try:
            while not self.stop.is_set():
                self.coll.insert_one({"_id": self.acked, "pad": "x" * 200})
                self.acked += 1
        except Exception as e:  # reported by the test
            self.error = e
        finally:
            self.client.close()


def _watch_ids(client, db, coll, resume_after, count):
    """The _ids and clusterTimes of the next `count` change events after `resume_after`."""
    events = []
    idle_polls = 0
    with client[db][coll].watch(resume_after=resume_after, max_await_time_ms=1000) as stream:
        while len(events) < count and idle_polls < 10:
            change = stream.try_next()
            if change is None:
                idle_polls += 1
                continue
            idle_polls = 0
            events.append((change["operationType"], change["documentKey"]["_id"],
                           change["clusterTime"]))
    return events


def test_backup_under_writes_starts_with_a_prefix_of_them_and_their_oplog(make_server, tmp_path):
    source = make_server("backup-source")
    client = pymongo.MongoClient(source.uri(), **CLIENT_OPTIONS)
    db, coll = "shop", "orders"
    client[db][coll].insert_one({"_id": -1, "first": True})
    # A resume token from before the backup point, for the restored server's change stream.
    with client[db][coll].watch() as stream:
        client[db][coll].insert_one({"_id": -2})
        token = stream.next()["_id"]
    client[db][coll].delete_many({"_id": {"$in": [-1, -2]}})

    writer = _SequentialWriter(source.uri(), db, coll)
    writer.start()
    while writer.acked < 2000 and writer.error is None:
        threading.Event().wait(0.01)
    acked_before = writer.acked
    backup_dir = str(tmp_path / "backup")
    reply = client.admin.command({"createBackup": 1, "backupDir": backup_dir})
    assert reply["ok"] == 1
    writes_after = writer.acked
    while writer.acked < writes_after + 500 and writer.error is None:
        threading.Event().wait(0.01)
    writer.stop.set()
    writer.join()
    assert writer.error is None, writer.error

    restored = make_server("backup-restored", dbpath=backup_dir)
    restored_client = pymongo.MongoClient(restored.uri(), **CLIENT_OPTIONS)
    ids = [d["_id"] for d in restored_client[db][coll].find({}, {"_id": 1}).sort("_id", 1)]
    k = len(ids)
    assert ids == list(range(k)), "the restored collection has gaps or extra documents"
    assert k >= acked_before
    assert k < writer.acked, "the backup holds writes made after it finished"
    assert restored_client[db][coll].count_documents({}) == k

    # The oplog came along: a change stream resumes from a token older than the backup and
    # sees the same events, at the same times, as on the source, up to the backup's moment.
    restored_events = _watch_ids(restored_client, db, coll, token, 2 + k)
    source_events = _watch_ids(client, db, coll, token, 2 + k)
    assert restored_events == source_events
    assert [e[1] for e in restored_events[2:]] == list(range(k))
    restored_client.close()
    client.close()


def test_backup_files_are_private_and_restart_cleanly(make_server, tmp_path):
    source = make_server("backup-modes")
    client = pymongo.MongoClient(source.uri(), **CLIENT_OPTIONS)
    client.t.c.insert_many([{"_id": i} for i in range(100)])
    client.t.c.create_index("x")
    backup_dir = tmp_path / "b"
    client.admin.command({"createBackup": 1, "backupDir": str(backup_dir)})
    assert _mode(backup_dir) == 0o700
    names = []
    for root, dirs, files in os.walk(backup_dir):
        for d in dirs:
            assert _mode(os.path.join(root, d)) == 0o700, d
        for f in files:
            names.append(f)
            assert _mode(os.path.join(root, f)) == 0o600, f
    assert "CURRENT" in names and not any(n.startswith(".checkpoint") for n in names)
    client.close()

    restored = make_server("backup-modes-restored", dbpath=str(backup_dir))
    restored_client = pymongo.MongoClient(restored.uri(), **CLIENT_OPTIONS)
    assert restored_client.t.c.count_documents({}) == 100
    assert "x_1" in restored_client.t.c.index_information()
    restored_client.t.c.insert_one({"_id": 100})  # writable, ids go on
    assert restored.stop() == 0
    restored.start()
    assert restored_client.t.c.count_documents({}) == 101
    restored_client.close()


def _error(client, command):
    with pytest.raises(pymongo.errors.OperationFailure) as e:
        client.admin.command(command)
    return e.value


def test_create_backup_refuses_bad_destinations(client, tmp_path):
    e = _error(client, {"createBackup": 1, "backupDir": "relative/dir"})
    assert (e.code, e.details["codeName"]) == (30, "InvalidPath")
    assert "must be absolute" in e.details["errmsg"]
    e = _error(client, {"createBackup": 1, "backupDir": ""})
    assert e.code == 30

    e = _error(client, {"createBackup": 1})
    assert e.code == 40414 and "backupDir" in e.details["errmsg"]
    e = _error(client, {"createBackup": 1, "backupDir": 7})
    assert e.code == 14

    full = tmp_path / "full"
    full.mkdir()
    (full / "something").write_text("x")
    e = _error(client, {"createBackup": 1, "backupDir": str(full)})
    assert e.code == 30 and "must be empty" in e.details["errmsg"]
    assert os.listdir(full) == ["something"]

    a_file = tmp_path / "file"
    a_file.write_text("x")
    e = _error(client, {"createBackup": 1, "backupDir": str(a_file / "below")})
    assert e.code == 30

    e = _error(client, {"createBackup": 1, "backupDir": str(tmp_path / "x"), "archive": "a.tar"})
    assert e.code == 72 and "archive" in e.details["errmsg"]

    with pytest.raises(pymongo.errors.OperationFailure) as not_admin:
        client.test.command({"createBackup": 1, "backupDir": str(tmp_path / "y")})
    assert not_admin.value.code == 13
    assert not os.path.exists(tmp_path / "y")


def test_create_backup_into_an_existing_empty_directory(client, tmp_path):
    client.t_empty_dir.c.insert_one({"_id": 1})
    empty = tmp_path / "empty"
    empty.mkdir()
    client.admin.command({"createBackup": 1, "backupDir": str(empty)})
    assert "CURRENT" in os.listdir(empty)
    client.drop_database("t_empty_dir")


def test_quarry_backup_tool_writes_a_startable_backup(make_server, quarry_tool, tmp_path):
    source = make_server("backup-tool")
    client = pymongo.MongoClient(source.uri(), **CLIENT_OPTIONS)
    client.inv.items.insert_many([{"_id": i, "n": i} for i in range(50)])
    out = str(tmp_path / "tool-backup")
    run = subprocess.run([quarry_tool, "backup", "--uri", source.uri(), "--out", out],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert out in run.stderr
    client.close()

    restored = make_server("backup-tool-restored", dbpath=out)
    restored_client = pymongo.MongoClient(restored.uri(), **CLIENT_OPTIONS)
    assert sorted(d["n"] for d in restored_client.inv.items.find()) == list(range(50))
    restored_client.close()

    relative = subprocess.run([quarry_tool, "backup", "--uri", source.uri(), "--out", "rel"],
                              capture_output=True, text=True, timeout=60)
    assert relative.returncode == 2 and "absolute" in relative.stderr
    again = subprocess.run([quarry_tool, "backup", "--uri", source.uri(), "--out", out],
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "must be empty" in again.stderr
