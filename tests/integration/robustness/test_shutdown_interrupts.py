"""SIGTERM stops the server even while a command would run for minutes: after
shutdownTimeoutMillisForSignaledShutdown the running operations fail with 11600
InterruptedAtShutdown (as mongod's shutdown kills them), the server exits cleanly, and every
acknowledged write is there after a restart."""
import os
import signal
import threading
import time

import pymongo
import pytest
from pymongo.errors import NotMasterError, OperationFailure

from quarry_server import CLIENT_OPTIONS

DOCUMENTS = 10_000
SHUTDOWN_TIMEOUT_MS = 1000
# Drain period, the two seconds an interrupted reply gets, closing the engine: well under this.
EXIT_LIMIT_S = 12

# A correlated $lookup of the collection into itself: every outer document re-runs the inner
# scan of all DOCUMENTS, which takes minutes in all.
ENDLESS_PIPELINE = [
    {"$lookup": {
        "from": "docs",
        "let": {"k": "$k"},
        "pipeline": [
            {"$match": {"$expr": {"$gt": [{"$strLenCP": "$t"}, "$$k"]}}},
            {"$count": "n"},
        ],
        "as": "longer",
    }},
]


def _running_aggregations(client):
    ops = client.admin.command("currentOp", {"command.aggregate": "docs"})["inprog"]
    return [op for op in ops if op.get("ns") == "shutdown.docs"]


@pytest.fixture
def slow_stop_server(make_server, request):
    server = make_server(request.node.name, extra_args=[
        "--setParameter", f"shutdownTimeoutMillisForSignaledShutdown={SHUTDOWN_TIMEOUT_MS}"])
    yield server
    server.stop()


def test_sigterm_interrupts_a_command_that_would_run_for_minutes(slow_stop_server):
    server = slow_stop_server
    client = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    docs = client.shutdown.docs
    docs.insert_many([{"_id": i, "k": i % 90, "t": "x" * (i % 100)} for i in range(DOCUMENTS)])

    outcome = {}

    def run_endless():
        runner = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS, retryReads=False)
        try:
            # A first batch of every document: the command itself runs for minutes, with no
            # pause between a first batch and its getMore for the stop to fall into.
            outcome["result"] = list(
                runner.shutdown.docs.aggregate(ENDLESS_PIPELINE, batchSize=DOCUMENTS))
        except Exception as e:  # noqa: BLE001 - the test inspects whatever the driver raised
            outcome["error"] = e
        finally:
            runner.close()

    worker = threading.Thread(target=run_endless)
    worker.start()
    deadline = time.monotonic() + 10
    while not _running_aggregations(client):
        assert time.monotonic() < deadline, "the aggregation never showed in currentOp"
        assert worker.is_alive(), f"the aggregation ended early: {outcome}"
        time.sleep(0.05)
    time.sleep(0.5)
    assert worker.is_alive(), f"the aggregation ended before the stop: {outcome}"

    sent = time.monotonic()
    os.kill(server.pid, signal.SIGTERM)
    try:
        status = server.proc.wait(timeout=EXIT_LIMIT_S)
    except Exception:
        server.kill9()
        raise AssertionError(f"quarryd still ran {EXIT_LIMIT_S} s after SIGTERM; log:\n"
                             f"{server.log_tail()}")
    took = time.monotonic() - sent
    worker.join(timeout=10)
    client.close()

    assert status == 0, server.log_tail()
    assert took >= SHUTDOWN_TIMEOUT_MS / 1000 * 0.9, "the running command got no drain period"
    # pymongo raises NotMasterError for 11600, as for mongod's reply: a state-change error.
    error = outcome.get("error")
    assert isinstance(error, (OperationFailure, NotMasterError)), outcome
    assert error.details["code"] == 11600, error.details
    assert error.details["codeName"] == "InterruptedAtShutdown"
    assert error.details["errmsg"] == "interrupted at shutdown"
    log = server.log_tail(200)
    assert "Interrupting the operations still running" in log

    server.start()
    client = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    assert client.shutdown.docs.count_documents({}) == DOCUMENTS
    client.close()


def test_a_bad_shutdown_timeout_stops_the_start(make_server):
    server = make_server("bad-shutdown-timeout", start=False, extra_args=[
        "--setParameter", "shutdownTimeoutMillisForSignaledShutdown=soon"])
    with pytest.raises(RuntimeError) as started:
        server.start()
    assert "shutdownTimeoutMillisForSignaledShutdown must be a whole number" in str(started.value)
