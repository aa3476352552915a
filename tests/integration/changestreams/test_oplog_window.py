"""The oplog window of --oplogSizeMB with pymongo against a real quarryd: once the oplog outgrows
it, the oldest entries leave local.oplog.rs, a change stream resumed from before the window
fails with ChangeStreamHistoryLost (286), one resumed inside it sees every later change, and all
of this holds after a restart."""

import os
import time

import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS

TRIM_WAIT_S = 30  # the server trims every 5 s
DOC_BYTES = 16 * 1024


def oldest_oplog_ts(client):
    first = client.local["oplog.rs"].find_one(sort=[("$natural", 1)])
    return first["ts"] if first else None


def insert_entries(coll, first_id, count):
    """Inserts `count` documents of random bytes (incompressible, so the oplog's files grow
    with them); returns the resume token of a change stream's event for the last one."""
    with coll.watch() as stream:
        for start in range(first_id, first_id + count, 50):
            coll.insert_many([{"_id": i, "pad": os.urandom(DOC_BYTES)}
                              for i in range(start, min(start + 50, first_id + count))])
        last_id = first_id + count - 1
        while True:
            event = stream.next()
            if event["documentKey"]["_id"] == last_id:
                return event["_id"]


def wait_for_trim_past(client, ts):
    deadline = time.monotonic() + TRIM_WAIT_S
    while time.monotonic() < deadline:
        oldest = oldest_oplog_ts(client)
        if oldest is not None and oldest > ts:
            return oldest
        time.sleep(0.2)
    pytest.fail(f"the oplog still starts at or before {ts} after {TRIM_WAIT_S} s")


def assert_history_lost(coll, token):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        with coll.watch(resume_after=token) as stream:
            stream.try_next()
    assert failure.value.code == 286, failure.value.details


def test_trimmed_entries_leave_the_window_and_stay_gone_after_a_restart(make_server, request):
    server = make_server(request.node.name, extra_args=["--oplogSizeMB", "1"])
    client = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    coll = client.db.window
    first_token = insert_entries(coll, 0, 1)
    first_ts = client.local["oplog.rs"].find_one({"o._id": 0, "ns": "db.window"})["ts"]

    # About 2 MB of entries, then one more: the window is kept by whole seconds of entries and
    # always keeps the newest, so the 1 MB window keeps only that last one.
    time.sleep(1.1)
    insert_entries(coll, 1, 120)
    time.sleep(1.1)
    newest_token = insert_entries(coll, 121, 1)
    oldest = wait_for_trim_past(client, first_ts)

    assert_history_lost(coll, first_token)
    # Inside the window every entry is there, in order, up to the newest.
    kept = [e["o"]["_id"] for e in client.local["oplog.rs"].find({"ns": "db.window"},
                                                                 sort=[("$natural", 1)])]
    assert kept == list(range(kept[0], 122)) and kept[0] > 0
    assert coll.count_documents({}) == 122
    client.close()

    server.restart()
    client = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    coll = client.db.window
    assert oldest_oplog_ts(client) >= oldest
    assert client.local["oplog.rs"].count_documents({"ts": {"$lte": first_ts}}) == 0
    assert_history_lost(coll, first_token)
    assert coll.count_documents({}) == 122

    # A token inside the window resumes with every change after it.
    with coll.watch(resume_after=newest_token) as stream:
        coll.insert_many([{"_id": i} for i in range(122, 127)])
        seen = [stream.next()["documentKey"]["_id"] for _ in range(5)]
    assert seen == list(range(122, 127))
    client.close()
