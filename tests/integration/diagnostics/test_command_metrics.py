"""serverStatus().metrics.commands with pymongo: per command, how many ran (total), how many
failed (failed) and the time spent in them (totalMicros); names that are no command count
under <UNKNOWN>."""

import pymongo.errors
import pytest


def command_metrics(client):
    return client.admin.command("serverStatus")["metrics"]["commands"]


def test_find_total_and_failed_grow_by_the_finds_run_and_failed(client, db):
    db.c.insert_many([{"_id": i} for i in range(3)])
    before = command_metrics(client)["find"]
    for _ in range(4):
        assert len(list(db.c.find({"_id": {"$gte": 1}}))) == 2
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(db.c.find({"$foo": 1}))
    assert info.value.code == 2  # BadValue: unknown top level operator
    after = command_metrics(client)["find"]
    assert after["total"] - before["total"] == 5
    assert after["failed"] - before["failed"] == 1


def test_a_write_error_is_not_a_failed_command(client, db):
    db.c.insert_one({"_id": 1})
    before = command_metrics(client)["insert"]
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        db.c.insert_one({"_id": 1})  # ok: 1 with a writeError, as from mongod
    after = command_metrics(client)["insert"]
    assert (after["total"] - before["total"], after["failed"] - before["failed"]) == (1, 0)


def test_unknown_commands_count_under_unknown(client, db):
    before = command_metrics(client)["<UNKNOWN>"]
    for _ in range(2):
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            db.command("noSuchCommand")
        assert info.value.code == 59  # CommandNotFound
    metrics = command_metrics(client)
    assert metrics["<UNKNOWN>"] - before == 2
    assert "noSuchCommand" not in metrics


def test_total_micros_is_reported_and_never_decreases(client, db):
    db.c.insert_many([{"_id": i, "pad": "x" * 100} for i in range(2000)])
    before = command_metrics(client)["find"]
    assert set(before) == {"total", "failed", "totalMicros"}
    assert before["totalMicros"] >= 0
    for _ in range(3):
        assert len(list(db.c.find({"pad": {"$ne": "y"}}))) == 2000
    after = command_metrics(client)["find"]
    assert after["totalMicros"] >= before["totalMicros"]
    assert after["totalMicros"] > 0  # three scans of 2000 documents take some microseconds


def test_server_status_counts_itself(client):
    first = command_metrics(client)["serverStatus"]["total"]
    second = command_metrics(client)["serverStatus"]["total"]
    assert second == first + 1  # the reply is built before its own command is counted
