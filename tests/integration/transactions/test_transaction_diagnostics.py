"""What the diagnostics show of multi-document transactions, as mongod 7.0 shows them: currentOp
and $currentOp list a transaction's statement with its lsid and `transaction` sub-document, and
an open transaction that no command runs in as an idle session; serverStatus counts
transactions started, committed and aborted, those open now, and retried writes."""

import datetime
import threading
import time
import uuid

import pymongo
import pymongo.errors
import pytest
from bson.binary import Binary
from bson.int64 import Int64
from bson.son import SON
from bson.timestamp import Timestamp
from pymongo.read_concern import ReadConcern

from quarry_server import CLIENT_OPTIONS
from wire_client import RawConnection

# A filter every document fails, slowly, so that a scan of the collection below lasts seconds.
SLOW_FILTER = {"$expr": {"$lt": [{"$reduce": {"input": {"$range": [0, 300]}, "initialValue": 0,
                                              "in": {"$add": ["$$value", "$$this"]}}}, 0]}}
SLOW_DOCS = 30000


@pytest.fixture
def observer(server):
    """A second client, which watches the first one's transactions."""
    other = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    yield other
    other.close()


@pytest.fixture
def slow_coll(db):
    db.slow.insert_many([{"_id": i} for i in range(SLOW_DOCS)], ordered=False)
    return db.slow


def as_uuid(value):
    """An lsid's id as a UUID, however pymongo decoded it."""
    return value if isinstance(value, uuid.UUID) else uuid.UUID(bytes=bytes(value))


def session_id(session):
    return as_uuid(session.session_id["id"])


def idle_sessions(observer, **stage):
    spec = {"allUsers": True}
    spec.update(stage)
    return list(observer.admin.aggregate([{"$currentOp": spec},
                                          {"$match": {"type": "idleSession"}}]))


def idle_entry_of(observer, session, **stage):
    entries = [op for op in idle_sessions(observer, **stage)
               if as_uuid(op["lsid"]["id"]) == session_id(session)]
    assert len(entries) <= 1, entries
    return entries[0] if entries else None


def parse_time(text):
    return datetime.datetime.fromisoformat(text)


def transaction_metrics(client):
    return client.admin.command("serverStatus")["transactions"]


def test_an_open_transaction_between_statements_is_an_idle_session(client, observer, db):
    coll = db.idle
    coll.insert_one({"_id": 0})
    with client.start_session() as session:
        session.start_transaction(read_concern=ReadConcern("snapshot"))
        coll.insert_one({"_id": 1}, session=session)
        first = idle_entry_of(observer, session)
        assert first is not None
        assert first["type"] == "idleSession"
        assert first["desc"] == "inactive transaction"
        assert first["active"] is False
        assert first["waitingForLock"] is False
        assert as_uuid(first["lsid"]["id"]) == session_id(session)
        assert len(first["lsid"]["uid"]) == 32
        # The connection of its latest statement.
        assert first["client"].startswith("127.0.0.1:")
        assert isinstance(first["connectionId"], int)
        assert "driver" in first["clientMetadata"]

        txn = first["transaction"]
        assert isinstance(txn["parameters"]["txnNumber"], Int64)
        assert txn["parameters"] == {"txnNumber": txn["parameters"]["txnNumber"],
                                     "txnRetryCounter": 0, "autocommit": False,
                                     "readConcern": {"level": "snapshot",
                                                     "provenance": "clientSupplied"}}
        assert isinstance(txn["readTimestamp"], Timestamp)
        assert txn["readTimestamp"] > Timestamp(0, 0)  # a snapshot read chooses its time
        start = parse_time(txn["startWallClockTime"])
        expiry = parse_time(txn["expiryTime"])
        assert expiry - start == datetime.timedelta(seconds=60)  # transactionLifetimeLimitSeconds
        assert txn["timeOpenMicros"] == txn["timeActiveMicros"] + txn["timeInactiveMicros"]
        assert txn["timeActiveMicros"] > 0

        # While it sits idle, it stays open longer and only its idle time grows.
        second = idle_entry_of(observer, session)
        later = second["transaction"]
        assert later["timeOpenMicros"] > txn["timeOpenMicros"]
        assert later["timeInactiveMicros"] > txn["timeInactiveMicros"]
        assert later["timeActiveMicros"] == txn["timeActiveMicros"]
        assert later["startWallClockTime"] == txn["startWallClockTime"]

        # The currentOp command lists idle sessions too; the stage leaves them out on request.
        inprog = observer.admin.command(SON([("currentOp", 1), ("type", "idleSession")]))["inprog"]
        assert session_id(session) in [as_uuid(op["lsid"]["id"]) for op in inprog]
        assert idle_entry_of(observer, session, idleSessions=False) is None

        session.commit_transaction()
        assert idle_entry_of(observer, session) is None


def test_a_transaction_without_read_concern_reads_at_the_implicit_default(client, observer, db):
    coll = db.implicit
    with client.start_session(causal_consistency=False) as session:
        with session.start_transaction():
            coll.insert_one({"_id": 1}, session=session)
            entry = idle_entry_of(observer, session)
            txn = entry["transaction"]
            assert txn["parameters"]["readConcern"] == {"level": "local",
                                                        "provenance": "implicitDefault"}
            # Levels local and majority read the latest data, at no chosen time.
            assert txn["readTimestamp"] == Timestamp(0, 0)


def test_the_next_transaction_of_a_session_shows_its_own_number(client, observer, db):
    coll = db.numbers
    with client.start_session() as session:
        with session.start_transaction():
            coll.insert_one({"_id": 1}, session=session)
            first = idle_entry_of(observer, session)["transaction"]["parameters"]["txnNumber"]
        with session.start_transaction():
            coll.insert_one({"_id": 2}, session=session)
            entry = idle_entry_of(observer, session)
            assert entry["transaction"]["parameters"]["txnNumber"] == first + 1


def run_in_background(server, work):
    """Runs work(client) on a thread with a client of its own; returns (thread, outcome)."""
    client = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    outcome = {}

    def run():
        try:
            outcome["result"] = work(client)
        except Exception as e:  # examined by the test
            outcome["error"] = e
        finally:
            client.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def wait_for_op(observer, **filters):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        inprog = observer.admin.command(SON([("currentOp", 1)] + list(filters.items())))["inprog"]
        if inprog:
            return inprog[0]
        time.sleep(0.01)
    raise AssertionError(f"no operation matching {filters} appeared")


def test_a_running_statement_shows_its_transaction(server, observer, slow_coll):
    db_name, name = slow_coll.database.name, slow_coll.name

    def slow_find_in_transaction(c):
        with c.start_session() as session:
            with session.start_transaction():
                c[db_name][name].insert_one({"_id": "mine"}, session=session)
                return list(c[db_name][name].find(SLOW_FILTER, session=session))

    thread, outcome = run_in_background(server, slow_find_in_transaction)
    op = wait_for_op(observer, **{"command.find": name, "transaction": {"$exists": True}})
    assert op["active"] is True
    assert len(op["lsid"]["uid"]) == 32
    assert as_uuid(op["lsid"]["id"]) == as_uuid(op["command"]["lsid"]["id"])
    txn = op["transaction"]
    assert txn["parameters"]["txnNumber"] == op["command"]["txnNumber"]
    assert txn["parameters"]["autocommit"] is False
    assert txn["timeActiveMicros"] > 0
    assert txn["timeOpenMicros"] >= txn["timeActiveMicros"]
    # A transaction with a statement running is no idle session.
    mine = as_uuid(op["lsid"]["id"])
    assert [s for s in idle_sessions(observer) if as_uuid(s["lsid"]["id"]) == mine] == []
    # The same from the aggregation stage.
    staged = list(observer.admin.aggregate([{"$currentOp": {"allUsers": True}},
                                            {"$match": {"opid": op["opid"]}}]))
    assert len(staged) == 1
    assert staged[0]["transaction"]["parameters"] == txn["parameters"]

    observer.admin.command("killOp", op=op["opid"])
    thread.join(120)
    assert not thread.is_alive()
    assert isinstance(outcome.get("error"), pymongo.errors.OperationFailure)
    assert outcome["error"].code == 11601


def test_a_running_retryable_write_shows_its_number(server, observer, slow_coll):
    db_name, name = slow_coll.database.name, slow_coll.name
    thread, outcome = run_in_background(
        server, lambda c: c[db_name][name].delete_one(SLOW_FILTER))
    op = wait_for_op(observer, **{"command.delete": name})
    assert as_uuid(op["lsid"]["id"]) == as_uuid(op["command"]["lsid"]["id"])
    assert op["transaction"] == {"parameters": {"txnNumber": op["command"]["txnNumber"]}}
    observer.admin.command("killOp", op=op["opid"])
    thread.join(120)
    assert not thread.is_alive()


def test_server_status_counts_transactions(client, observer, db):
    coll = db.counted
    coll.insert_one({"_id": "taken"})
    before = transaction_metrics(observer)
    assert list(before) == ["retriedCommandsCount", "retriedStatementsCount", "currentActive",
                            "currentInactive", "currentOpen", "totalAborted", "totalCommitted",
                            "totalStarted", "totalPrepared", "totalPreparedThenCommitted",
                            "totalPreparedThenAborted", "currentPrepared"]
    assert all(isinstance(value, Int64) for value in before.values())

    # Two commits, an explicit abort, an abort by a failed statement, and one left open.
    with client.start_session() as session:
        for i in range(2):
            with session.start_transaction():
                coll.insert_one({"_id": i}, session=session)
        session.start_transaction()
        coll.insert_one({"_id": "gone"}, session=session)
        session.abort_transaction()
        session.start_transaction()
        with pytest.raises(pymongo.errors.DuplicateKeyError):
            coll.insert_one({"_id": "taken"}, session=session)
        session.abort_transaction()  # already aborted by the failure: counted once

        with client.start_session() as open_session:
            open_session.start_transaction()
            coll.insert_one({"_id": "open"}, session=open_session)
            during = transaction_metrics(observer)
            assert during["totalStarted"] - before["totalStarted"] == 5
            assert during["totalCommitted"] - before["totalCommitted"] == 2
            assert during["totalAborted"] - before["totalAborted"] == 2
            assert during["currentOpen"] - before["currentOpen"] == 1
            assert during["currentInactive"] - before["currentInactive"] == 1
            assert during["currentActive"] == before["currentActive"] == 0
            for key in ("totalPrepared", "totalPreparedThenCommitted",
                        "totalPreparedThenAborted", "currentPrepared"):
                assert during[key] == 0

            open_session.commit_transaction()

    after = transaction_metrics(observer)
    assert after["totalStarted"] - before["totalStarted"] == 5
    assert after["totalCommitted"] - before["totalCommitted"] == 3
    assert after["totalAborted"] - before["totalAborted"] == 2
    assert after["currentOpen"] == before["currentOpen"]
    assert after["currentInactive"] == before["currentInactive"]


def test_ending_a_session_aborts_its_open_transaction(client, observer, db):
    coll = db.ended
    before = transaction_metrics(observer)
    session = client.start_session()
    session.start_transaction()
    coll.insert_one({"_id": 1}, session=session)
    assert transaction_metrics(observer)["currentOpen"] - before["currentOpen"] == 1
    client.admin.command("killSessions", [session.session_id])
    after = transaction_metrics(observer)
    assert after["totalAborted"] - before["totalAborted"] == 1
    assert after["currentOpen"] == before["currentOpen"]
    assert idle_entry_of(observer, session) is None
    session.end_session()


def test_a_newer_transaction_number_aborts_the_open_transaction(server, observer, db):
    host, port, _, _ = server
    lsid = {"id": Binary(uuid.uuid4().bytes, 4)}
    before = transaction_metrics(observer)
    with RawConnection(host, port) as connection:
        def run(db_name, body):
            reply = connection.command(dict(body, lsid=lsid, autocommit=False,
                                            **{"$db": db_name})).doc
            assert reply["ok"] == 1, reply

        run(db.name, {"insert": "superseded", "documents": [{"_id": 1}],
                      "txnNumber": Int64(1), "startTransaction": True})
        # A connection that sent no hello has no metadata to show.
        entries = [op for op in idle_sessions(observer) if as_uuid(op["lsid"]["id"]) == as_uuid(lsid["id"])]
        assert len(entries) == 1
        assert entries[0]["appName"] == ""
        assert entries[0]["clientMetadata"] == {}
        assert entries[0]["transaction"]["parameters"]["txnNumber"] == Int64(1)

        run(db.name, {"insert": "superseded", "documents": [{"_id": 2}],
                      "txnNumber": Int64(2), "startTransaction": True})
        during = transaction_metrics(observer)
        assert during["totalStarted"] - before["totalStarted"] == 2
        assert during["totalAborted"] - before["totalAborted"] == 1
        assert during["currentOpen"] - before["currentOpen"] == 1
        entries = [op for op in idle_sessions(observer) if as_uuid(op["lsid"]["id"]) == as_uuid(lsid["id"])]
        assert [op["transaction"]["parameters"]["txnNumber"] for op in entries] == [Int64(2)]

        run("admin", {"commitTransaction": 1, "txnNumber": Int64(2)})
        run("admin", {"commitTransaction": 1, "txnNumber": Int64(2)})  # a retry counts once
    after = transaction_metrics(observer)
    assert after["totalCommitted"] - before["totalCommitted"] == 1
    assert after["currentOpen"] == before["currentOpen"]
    assert list(db.superseded.find()) == [{"_id": 2}]


def test_server_status_counts_retried_writes_and_their_statements(server, observer, db):
    host, port, _, _ = server
    lsid = {"id": Binary(uuid.uuid4().bytes, 4)}
    insert = {"insert": "retried", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}],
              "lsid": lsid, "txnNumber": Int64(1), "$db": db.name}
    before = transaction_metrics(observer)
    with RawConnection(host, port) as connection:
        assert connection.command(insert).doc["n"] == 3
        # Not a retry: nothing had run.
        middle = transaction_metrics(observer)
        assert middle["retriedCommandsCount"] == before["retriedCommandsCount"]
        assert middle["retriedStatementsCount"] == before["retriedStatementsCount"]
        # The driver's retry of the same write: every statement had run.
        assert connection.command(insert).doc["n"] == 3
    after = transaction_metrics(observer)
    assert after["retriedCommandsCount"] - before["retriedCommandsCount"] == 1
    assert after["retriedStatementsCount"] - before["retriedStatementsCount"] == 3
    assert db.retried.count_documents({}) == 3
