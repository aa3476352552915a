"""Snapshot reads at a past cluster time (readConcern snapshot with atClusterTime) against a
recorded history: every write's operationTime, and the collection as it was right after it."""

import random

import pymongo.errors
import pytest
from bson.timestamp import Timestamp

from raw_session import RawSession, raw


def at(time):
    return {"level": "snapshot", "atClusterTime": time}


def read_at(db, name, time):
    reply = db.command({"find": name, "sort": {"_id": 1}, "batchSize": 1000,
                        "readConcern": at(time)})
    assert reply["cursor"]["atClusterTime"] == time
    return reply["cursor"]["firstBatch"]


def test_reads_at_each_past_write_time_see_the_data_as_it_was(db):
    rng = random.Random(7)
    state = {}
    history = []  # (operationTime, documents after that write)
    for step in range(120):
        key = rng.randrange(15)
        if key in state and rng.random() < 0.3:
            reply = db.command({"delete": "ledger", "deletes": [{"q": {"_id": key}, "limit": 1}]})
            del state[key]
        elif key in state:
            reply = db.command({"update": "ledger",
                                "updates": [{"q": {"_id": key}, "u": {"$inc": {"v": 1}}}]})
            state[key]["v"] += 1
        else:
            reply = db.command({"insert": "ledger", "documents": [{"_id": key, "v": step}]})
            state[key] = {"_id": key, "v": step}
        expected = [dict(state[k]) for k in sorted(state)]
        history.append((reply["operationTime"], expected))
    # Newest first and oldest first: every one of them, exactly.
    for time, expected in reversed(history):
        assert read_at(db, "ledger", time) == expected
    for time, expected in history:
        assert read_at(db, "ledger", time) == expected
    # Counting and aggregating read the same history.
    time, expected = history[40]
    counted = db.command({"aggregate": "ledger", "cursor": {}, "readConcern": at(time),
                          "pipeline": [{"$group": {"_id": None, "n": {"$sum": 1},
                                                   "v": {"$sum": "$v"}}}]})
    row = counted["cursor"]["firstBatch"][0] if expected else {"n": 0, "v": 0}
    assert (row["n"], row["v"]) == (len(expected), sum(d["v"] for d in expected))
    distinct = db.command({"distinct": "ledger", "key": "_id", "readConcern": at(time)})
    assert sorted(distinct["values"]) == [d["_id"] for d in expected]


def test_a_time_between_two_writes_reads_the_earlier_one(db):
    first = db.command({"insert": "gaps", "documents": [{"_id": 1}]})["operationTime"]
    second = db.command({"insert": "gaps", "documents": [{"_id": 2}]})["operationTime"]
    oplog = db.client.local["oplog.rs"]
    times = [e["ts"] for e in oplog.find({"ns": db.name + ".gaps"}).sort("$natural", 1)]
    assert times == [first, second]
    assert read_at(db, "gaps", first) == [{"_id": 1}]
    assert read_at(db, "gaps", second) == [{"_id": 1}, {"_id": 2}]


def test_times_the_history_cannot_answer_fail_as_mongod_does(db):
    reply = db.command({"insert": "edges", "documents": [{"_id": i} for i in range(3)]})
    end = reply["operationTime"]
    oplog = db.client.local["oplog.rs"]
    times = [e["ts"] for e in oplog.find({"ns": db.name + ".edges"}).sort("$natural", 1)]
    assert len(times) == 3 and times[-1] == end
    # Inside one insert's batch: part of it is at or before the time, part after.
    with pytest.raises(pymongo.errors.OperationFailure) as inside:
        db.command({"find": "edges", "readConcern": at(times[0])})
    assert inside.value.code == 246
    # Before anything this server keeps, and after the latest commit.
    with pytest.raises(pymongo.errors.OperationFailure) as too_old:
        db.command({"find": "edges", "readConcern": at(Timestamp(1, 1))})
    assert too_old.value.code == 239
    with pytest.raises(pymongo.errors.OperationFailure) as future:
        db.command({"find": "edges", "readConcern": at(Timestamp(end.time + 3600, 1))})
    assert future.value.code == 246


def test_an_index_built_after_the_read_time_is_not_used_at_it(db):
    before = db.command({"insert": "late", "documents": [{"_id": i, "k": i % 2} for i in range(6)]})
    db.late.create_index("k")
    db.late.insert_one({"_id": 6, "k": 1})
    then = read_at(db, "late", before["operationTime"])
    assert [d["_id"] for d in then] == [0, 1, 2, 3, 4, 5]
    # The index holds no keys in that snapshot: the read finds its documents without it.
    filtered = db.command({"find": "late", "filter": {"k": 1}, "sort": {"_id": 1},
                           "readConcern": at(before["operationTime"])})
    assert [d["_id"] for d in filtered["cursor"]["firstBatch"]] == [1, 3, 5]
    with pytest.raises(pymongo.errors.OperationFailure) as hinted:
        db.command({"find": "late", "filter": {"k": 1}, "hint": "k_1",
                    "readConcern": at(before["operationTime"])})
    assert hinted.value.code == 2
    # Now it serves.
    now = db.command({"find": "late", "filter": {"k": 1}, "hint": "k_1",
                      "readConcern": {"level": "snapshot"}})
    assert sorted(d["_id"] for d in now["cursor"]["firstBatch"]) == [1, 3, 5, 6]


def test_a_transaction_can_read_and_write_as_of_a_past_time(client, db):
    first = db.command({"insert": "pinned", "documents": [{"_id": 1, "v": 1}, {"_id": 2, "v": 1}]})
    db.command({"update": "pinned", "updates": [{"q": {"_id": 1}, "u": {"$set": {"v": 2}}}]})
    with RawSession(client) as session:
        found = session.command(db.name, raw({"find": "pinned", "sort": {"_id": 1}}, session, 1,
                                             startTransaction=True,
                                             readConcern=at(first["operationTime"])))
        assert found["cursor"]["firstBatch"] == [{"_id": 1, "v": 1}, {"_id": 2, "v": 1}]
        # A document unchanged since then can be written; one changed since is a conflict.
        session.command(db.name, raw({"update": "pinned",
                                      "updates": [{"q": {"_id": 2}, "u": {"$set": {"v": 3}}}]},
                                     session, 1))
        with pytest.raises(pymongo.errors.OperationFailure) as conflict:
            session.command(db.name, raw({"update": "pinned",
                                          "updates": [{"q": {"_id": 1}, "u": {"$set": {"v": 4}}}]},
                                         session, 1))
        assert conflict.value.code == 112
        # Too old a time fails the first command, and the transaction with it.
        with pytest.raises(pymongo.errors.OperationFailure) as too_old:
            session.command(db.name, raw({"find": "pinned"}, session, 2, startTransaction=True,
                                         readConcern=at(Timestamp(1, 1))))
        assert too_old.value.code == 239
    assert list(db.pinned.find().sort("_id", 1)) == [{"_id": 1, "v": 2}, {"_id": 2, "v": 1}]
