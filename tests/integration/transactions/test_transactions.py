"""Multi-document transactions through pymongo: atomic commits, aborts, snapshot isolation,
write conflicts, and mongod's rules for transaction numbers and states."""

import time

import pymongo
import pymongo.errors
import pytest
from bson.int64 import Int64

from quarry_server import CLIENT_OPTIONS
from raw_session import RawSession, raw
from waiting import outcome_after_waiting


def labels(error):
    return (error.details or {}).get("errorLabels", [])


def test_writes_become_visible_together_at_commit(client, db):
    coll = db.accounts
    coll.insert_many([{"_id": "a", "balance": 100}, {"_id": "b", "balance": 0}])
    with client.start_session() as session:
        session.start_transaction()
        coll.update_one({"_id": "a"}, {"$inc": {"balance": -30}}, session=session)
        coll.update_one({"_id": "b"}, {"$inc": {"balance": 30}}, session=session)
        coll.insert_one({"_id": "log1", "amount": 30}, session=session)
        # Others see none of it yet.
        assert coll.find_one({"_id": "a"})["balance"] == 100
        assert coll.find_one({"_id": "log1"}) is None
        session.commit_transaction()
    assert coll.find_one({"_id": "a"})["balance"] == 70
    assert coll.find_one({"_id": "b"})["balance"] == 30
    assert coll.find_one({"_id": "log1"}) == {"_id": "log1", "amount": 30}


def test_an_aborted_transaction_leaves_nothing(client, db):
    coll = db.items
    coll.insert_one({"_id": 1, "n": 1})
    with client.start_session() as session:
        session.start_transaction()
        coll.insert_one({"_id": 2}, session=session)
        coll.update_one({"_id": 1}, {"$set": {"n": 2}}, session=session)
        coll.delete_one({"_id": 1}, session=session)
        session.abort_transaction()
    assert list(coll.find().sort("_id", 1)) == [{"_id": 1, "n": 1}]


def test_reads_in_a_transaction_see_its_own_writes_through_every_access_path(client, db):
    coll = db.own
    coll.create_index("k")
    coll.insert_many([{"_id": i, "k": i % 3} for i in range(10)])
    with client.start_session() as session:
        with session.start_transaction():
            coll.insert_one({"_id": 100, "k": 7}, session=session)
            coll.delete_one({"_id": 0}, session=session)
            coll.update_one({"_id": 1}, {"$set": {"k": 7}}, session=session)
            # By _id, by a secondary index, by a collection scan, and through aggregate.
            assert coll.find_one({"_id": 100}, session=session) == {"_id": 100, "k": 7}
            assert coll.find_one({"_id": 0}, session=session) is None
            by_index = coll.find({"k": 7}, session=session).hint("k_1").sort("_id", 1)
            assert [d["_id"] for d in by_index] == [1, 100]
            assert coll.count_documents({}, session=session) == 10
            backwards = [d["_id"] for d in coll.find({}, session=session).sort("_id", -1)]
            assert backwards == [100, 9, 8, 7, 6, 5, 4, 3, 2, 1]
            assert sorted(coll.distinct("k", session=session)) == [0, 1, 2, 7]
    assert coll.count_documents({"k": 7}) == 2


def test_a_transaction_reads_one_snapshot(client, db):
    coll = db.snap
    coll.insert_one({"_id": 1, "v": "old"})
    with client.start_session() as session:
        session.start_transaction()
        assert coll.find_one({"_id": 1}, session=session)["v"] == "old"
        coll.update_one({"_id": 1}, {"$set": {"v": "new"}})  # outside the transaction
        coll.insert_one({"_id": 2})
        assert coll.find_one({"_id": 1}, session=session)["v"] == "old"
        assert coll.count_documents({}, session=session) == 1
        session.commit_transaction()
    assert coll.find_one({"_id": 1})["v"] == "new"


def test_a_second_transaction_writing_the_same_document_gets_a_transient_write_conflict(
        client, db):
    coll = db.conflict
    coll.insert_one({"_id": 1, "n": 0})
    with client.start_session() as first, client.start_session() as second:
        first.start_transaction()
        second.start_transaction()
        coll.update_one({"_id": 1}, {"$inc": {"n": 1}}, session=first)
        with pytest.raises(pymongo.errors.OperationFailure) as conflict:
            coll.update_one({"_id": 1}, {"$inc": {"n": 10}}, session=second)
        assert conflict.value.code == 112
        assert "TransientTransactionError" in labels(conflict.value)
        # The conflict aborted the second transaction; the first commits.
        with pytest.raises(pymongo.errors.OperationFailure) as aborted:
            second.commit_transaction()
        assert aborted.value.code == 251
        first.commit_transaction()
    assert coll.find_one({"_id": 1})["n"] == 1


def test_a_document_changed_after_the_snapshot_is_a_write_conflict(client, db):
    coll = db.stale
    coll.insert_many([{"_id": 1, "n": 0}, {"_id": 2}])
    with client.start_session() as session:
        session.start_transaction()
        coll.find_one({"_id": 2}, session=session)  # the snapshot is taken
        coll.update_one({"_id": 1}, {"$set": {"n": 5}})
        with pytest.raises(pymongo.errors.OperationFailure) as conflict:
            coll.update_one({"_id": 1}, {"$inc": {"n": 1}}, session=session)
        assert conflict.value.code == 112
        assert "TransientTransactionError" in labels(conflict.value)
        try:
            session.abort_transaction()
        except pymongo.errors.OperationFailure:
            pass
    assert coll.find_one({"_id": 1})["n"] == 5


def test_a_plain_write_waits_for_the_transaction_holding_its_document(client, db):
    coll = db.waits
    coll.insert_one({"_id": 1, "n": 0})
    with client.start_session() as session:
        session.start_transaction()
        coll.update_one({"_id": 1}, {"$inc": {"n": 1}}, session=session)
        outcome = outcome_after_waiting(
            lambda: coll.update_one({"_id": 1}, {"$inc": {"n": 100}}).modified_count,
            session.commit_transaction)
    assert outcome == {"returned": 1}
    # Both applied, the plain write after the transaction's.
    assert coll.find_one({"_id": 1})["n"] == 101


def test_with_transaction_moves_money_between_accounts(client, db):
    coll = db.bank
    coll.insert_many([{"_id": "alice", "balance": 50}, {"_id": "bob", "balance": 50}])

    def transfer(session):
        coll.update_one({"_id": "alice"}, {"$inc": {"balance": -20}}, session=session)
        coll.update_one({"_id": "bob"}, {"$inc": {"balance": 20}}, session=session)

    with client.start_session() as session:
        session.with_transaction(transfer)
    assert {d["_id"]: d["balance"] for d in coll.find()} == {"alice": 30, "bob": 70}


def test_with_transaction_rolls_back_when_the_callback_raises(client, db):
    coll = db.rollback
    coll.insert_one({"_id": 1, "n": 0})

    def failing(session):
        coll.update_one({"_id": 1}, {"$inc": {"n": 1}}, session=session)
        raise RuntimeError("application error")

    with client.start_session() as session:
        with pytest.raises(RuntimeError):
            session.with_transaction(failing)
    assert coll.find_one({"_id": 1})["n"] == 0


def test_with_transaction_retries_after_a_transient_conflict(client, db):
    coll = db.retry
    coll.insert_one({"_id": 1, "n": 0})
    attempts = []

    def increment(session):
        attempts.append(1)
        coll.find_one({"_id": 1}, session=session)
        if len(attempts) == 1:
            coll.update_one({"_id": 1}, {"$inc": {"n": 100}})  # a concurrent writer
        coll.update_one({"_id": 1}, {"$inc": {"n": 1}}, session=session)

    with client.start_session() as session:
        session.with_transaction(increment)
    assert len(attempts) == 2
    assert coll.find_one({"_id": 1})["n"] == 101


def test_transaction_numbers_and_states_follow_mongods_rules(client, db):
    with RawSession(client) as session:
        def run(db_name, command, txn, **fields):
            return session.command(db_name, raw(command, session, txn, **fields))

        run(db.name, {"insert": "states", "documents": [{"_id": 1}]}, 5, startTransaction=True)
        assert run("admin", {"commitTransaction": 1}, 5)["ok"] == 1
        # Committing again answers the first result.
        assert run("admin", {"commitTransaction": 1}, 5)["ok"] == 1
        for command, db_name, code in [({"abortTransaction": 1}, "admin", 256),
                                       ({"find": "states"}, db.name, 256)]:
            with pytest.raises(pymongo.errors.OperationFailure) as error:
                run(db_name, command, 5)
            assert error.value.code == code
        with pytest.raises(pymongo.errors.OperationFailure) as too_old:
            run(db.name, {"find": "states"}, 4, startTransaction=True)
        assert too_old.value.code == 225
        with pytest.raises(pymongo.errors.OperationFailure) as same_number:
            run(db.name, {"find": "states"}, 5, startTransaction=True)
        assert same_number.value.code == 117
        with pytest.raises(pymongo.errors.OperationFailure) as not_started:
            run(db.name, {"find": "states"}, 6)
        assert not_started.value.code == 251
        assert "TransientTransactionError" in labels(not_started.value)
    assert db.states.count_documents({}) == 1


def test_retryable_writes_and_transactions_share_one_order_of_numbers(client, db):
    with RawSession(client) as session:
        def retryable(txn, _id):
            return session.command(db.name, {"insert": "shared", "documents": [{"_id": _id}],
                                             "lsid": session.session_id,
                                             "txnNumber": Int64(txn)})

        def in_transaction(command, txn, **fields):
            return session.command(db.name, raw(command, session, txn, **fields))

        def code_of(call, *args, **fields):
            with pytest.raises(pymongo.errors.OperationFailure) as error:
                call(*args, **fields)
            return error.value.code

        retryable(3, "w3")
        # A transaction cannot start at or below the latest retryable write's number.
        assert code_of(in_transaction, {"find": "shared"}, 3, startTransaction=True) == 117
        assert code_of(in_transaction, {"find": "shared"}, 2, startTransaction=True) == 225
        # Nor continue at it: no transaction has that number.
        assert code_of(in_transaction, {"find": "shared"}, 3) == 251
        in_transaction({"insert": "shared", "documents": [{"_id": "t4"}]}, 4,
                       startTransaction=True)
        # The transaction's number cannot be reused by a retryable write, and older ones are
        # too old, while the transaction goes on.
        assert code_of(retryable, 4, "w4") == 217
        assert code_of(retryable, 3, "w3") == 225
        session.command("admin", raw({"commitTransaction": 1}, session, 4))
        assert code_of(retryable, 4, "w4") == 217
        retryable(5, "w5")
        assert code_of(in_transaction, {"find": "shared"}, 4) == 225
    assert sorted(d["_id"] for d in db.shared.find()) == ["t4", "w3", "w5"]


def test_transaction_arguments_are_checked_as_mongod_checks_them(client, db):
    with RawSession(client) as session:
        def fails(txn, command, **fields):
            with pytest.raises(pymongo.errors.OperationFailure) as error:
                session.command(db.name, raw(command, session, txn, **fields))
            return error.value.code

        assert fails(1, {"find": "args"}, autocommit=True, startTransaction=True) == 72
        assert fails(1, {"find": "args"}, startTransaction=False) == 72
        assert fails(2, {"count": "args"}, startTransaction=True) == 263
        assert fails(3, {"insert": "args", "documents": [{}]}, startTransaction=True,
                     writeConcern={"w": 1}) == 72
        session.command(db.name, raw({"find": "args"}, session, 4, startTransaction=True,
                                     readConcern={"level": "snapshot"}))
        assert fails(4, {"find": "args"}, readConcern={"level": "snapshot"}) == 72
        assert fails(5, {"find": "args"}, startTransaction=True,
                     readConcern={"level": "linearizable"}) == 72
        no_number = {"find": "args", "lsid": session.session_id, "autocommit": False}
        with pytest.raises(pymongo.errors.OperationFailure) as error:
            session.command(db.name, no_number)
        assert error.value.code == 72


def test_commit_and_abort_outside_a_transaction_fail_as_mongods_do(client):
    for name in ("commitTransaction", "abortTransaction"):
        with pytest.raises(pymongo.errors.OperationFailure) as error:
            client.admin.command({name: 1})
        assert error.value.code == 125
        assert error.value.details["errmsg"] == f"{name} must be run within a transaction"
        with pytest.raises(pymongo.errors.OperationFailure) as error:
            client.admin.command({name: 1, "unknownOption": 1})
        assert error.value.code == 40415


def test_a_write_error_aborts_the_transaction(client, db):
    coll = db.dupes
    coll.insert_one({"_id": 1})
    with client.start_session() as session:
        session.start_transaction()
        coll.insert_one({"_id": 2}, session=session)
        with pytest.raises(pymongo.errors.DuplicateKeyError):
            coll.insert_one({"_id": 1}, session=session)
        with pytest.raises(pymongo.errors.OperationFailure) as commit:
            session.commit_transaction()
        assert commit.value.code == 251
    assert coll.find_one({"_id": 2}) is None


def test_unique_indexes_hold_inside_a_transaction(client, db):
    coll = db.unique
    coll.create_index("email", unique=True)
    coll.insert_one({"_id": 1, "email": "a@x"})
    with client.start_session() as session:
        session.start_transaction()
        coll.insert_one({"_id": 2, "email": "b@x"}, session=session)
        with pytest.raises(pymongo.errors.DuplicateKeyError):
            coll.insert_one({"_id": 3, "email": "b@x"}, session=session)
        session.abort_transaction()
    assert coll.count_documents({}) == 1


def test_a_unique_key_another_open_transaction_gives_is_a_write_conflict(client, db):
    coll = db.claims
    coll.create_index("email", unique=True)
    with client.start_session() as first, client.start_session() as second:
        first.start_transaction()
        coll.insert_one({"_id": 1, "email": "a@x"}, session=first)
        second.start_transaction()
        with pytest.raises(pymongo.errors.OperationFailure) as conflict:
            coll.insert_one({"_id": 2, "email": "a@x"}, session=second)
        assert conflict.value.code == 112
        assert "TransientTransactionError" in labels(conflict.value)
        second.abort_transaction()

        # A plain insert of the key waits for the transaction, then meets its commit.
        outcome = outcome_after_waiting(lambda: coll.insert_one({"_id": 3, "email": "a@x"}),
                                        first.commit_transaction)
    assert isinstance(outcome.get("raised"), pymongo.errors.DuplicateKeyError), outcome
    assert list(coll.find({}, {"_id": 1})) == [{"_id": 1}]


def test_kill_sessions_aborts_the_sessions_transaction(client, db):
    coll = db.killed
    with client.start_session() as session:
        session.start_transaction()
        coll.insert_one({"_id": 1}, session=session)
        client.admin.command({"killSessions": [session.session_id]})
        with pytest.raises(pymongo.errors.OperationFailure) as commit:
            session.commit_transaction()
        assert commit.value.code == 251
    assert coll.count_documents({}) == 0


def test_a_transaction_past_its_lifetime_limit_is_aborted(client, db):
    coll = db.expired
    admin = client.admin
    assert admin.command({"getParameter": 1, "transactionLifetimeLimitSeconds": 1})[
        "transactionLifetimeLimitSeconds"] == 60
    admin.command({"setParameter": 1, "transactionLifetimeLimitSeconds": 1})
    try:
        with client.start_session() as session:
            session.start_transaction()
            coll.insert_one({"_id": 1}, session=session)
            # The reaper that aborts expired transactions runs every 30 s: allow two turns.
            deadline = time.time() + 75
            while True:
                try:
                    coll.find_one({}, session=session)
                except pymongo.errors.OperationFailure as error:
                    assert error.code == 251
                    break
                assert time.time() < deadline, "the transaction was never aborted"
                time.sleep(0.5)
            with pytest.raises(pymongo.errors.OperationFailure):
                session.commit_transaction()
    finally:
        admin.command({"setParameter": 1, "transactionLifetimeLimitSeconds": 60})
    assert coll.count_documents({}) == 0


def test_a_commit_retried_after_a_restart_succeeds(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        with RawSession(c) as session:
            session.command("restart_db", raw({"insert": "t", "documents": [{"_id": 1}]},
                                              session, 7, startTransaction=True))
            session.command("admin", raw({"commitTransaction": 1}, session, 7))
        # The reply was lost, say, and the server restarted before the driver retried.
        own_server.restart()
        with RawSession(c) as retry:
            retry.session_id = session.session_id
            assert retry.command("admin", raw({"commitTransaction": 1}, retry, 7))["ok"] == 1
            with pytest.raises(pymongo.errors.OperationFailure) as other:
                retry.command("admin", raw({"commitTransaction": 1}, retry, 8))
            assert other.value.code == 251
        assert c.restart_db.t.count_documents({}) == 1


def test_a_change_stream_shows_a_transactions_operations_with_its_session(client, db):
    coll = db.watched
    with coll.watch() as stream:
        with client.start_session() as session:
            with session.start_transaction():
                coll.insert_one({"_id": 1}, session=session)
                coll.update_one({"_id": 1}, {"$set": {"x": 1}}, session=session)
            lsid = session.session_id
            txn_number = session._server_session.transaction_id
        events = [stream.next() for _ in range(2)]
    assert [e["operationType"] for e in events] == ["insert", "update"]
    for event in events:
        shown = event["lsid"]["id"]
        assert getattr(shown, "bytes", shown) == bytes(lsid["id"])
        assert event["txnNumber"] == txn_number


def test_a_transactions_events_are_all_at_its_commit_time_and_resume_inside_it(client, db):
    coll = db.committed
    coll.insert_one({"_id": "before"})
    with client.start_session() as session:
        with session.start_transaction():
            for i in range(4):
                coll.insert_one({"_id": i}, session=session)
        commit_time = session.operation_time
    coll.insert_one({"_id": "after"})
    # Starting at the commit's time shows the whole transaction, never a part of it.
    with coll.watch(start_at_operation_time=commit_time) as stream:
        events = [stream.next() for _ in range(5)]
    assert [e["documentKey"]["_id"] for e in events] == [0, 1, 2, 3, "after"]
    assert {e["clusterTime"] for e in events[:4]} == {commit_time}
    assert events[4]["clusterTime"] > commit_time
    # Each event's resume token resumes right after it, inside the transaction too.
    for k in range(4):
        with coll.watch(resume_after=events[k]["_id"]) as stream:
            rest = [stream.next()["documentKey"]["_id"] for _ in range(4 - k)]
        assert rest == [0, 1, 2, 3, "after"][k + 1:]
    tokens = [e["_id"]["_data"] for e in events]
    assert tokens == sorted(tokens) and len(set(tokens)) == 5


def test_snapshot_reads_outside_a_transaction_read_at_one_cluster_time(client, db):
    coll = db.history
    coll.insert_many([{"_id": 1, "x": 11}, {"_id": 2, "x": 11}])
    first = db.command({"find": "history", "readConcern": {"level": "snapshot"}})
    at = first["cursor"]["atClusterTime"]
    assert [d["x"] for d in first["cursor"]["firstBatch"]] == [11, 11]
    coll.update_one({"_id": 1}, {"$set": {"x": 12}})
    coll.insert_one({"_id": 3, "x": 33})
    # Reads at that time see the data as it was, through every kind of read.
    again = db.command({"find": "history", "sort": {"_id": 1},
                        "readConcern": {"level": "snapshot", "atClusterTime": at}})
    assert again["cursor"]["firstBatch"] == [{"_id": 1, "x": 11}, {"_id": 2, "x": 11}]
    assert again["cursor"]["atClusterTime"] == at
    distinct = db.command({"distinct": "history", "key": "x",
                           "readConcern": {"level": "snapshot", "atClusterTime": at}})
    assert distinct["values"] == [11] and distinct["atClusterTime"] == at
    counted = db.command({"aggregate": "history", "cursor": {},
                          "pipeline": [{"$group": {"_id": 1, "n": {"$sum": 1}}}],
                          "readConcern": {"level": "snapshot", "atClusterTime": at}})
    assert counted["cursor"]["firstBatch"][0]["n"] == 2
    # The latest data is another snapshot.
    latest = db.command({"find": "history", "readConcern": {"level": "snapshot"}})
    assert len(latest["cursor"]["firstBatch"]) == 3
    assert latest["cursor"]["atClusterTime"] > at


def test_read_concern_is_checked_as_mongod_checks_it(db):
    cases = [
        ({"insert": "rc", "documents": [{}], "readConcern": {"level": "snapshot"}}, 72),
        ({"listCollections": 1, "readConcern": {"level": "snapshot"}}, 72),
        ({"find": "rc", "readConcern": {"level": "eventual"}}, 9),
        ({"find": "rc", "readConcern": {"level": "local", "afterOpTime": {}}}, 72),
        ({"find": "rc", "readConcern": {"level": "majority",
                                        "atClusterTime": __import__("bson").Timestamp(1, 1)}}, 72),
    ]
    for command, code in cases:
        with pytest.raises(pymongo.errors.OperationFailure) as error:
            db.command(command)
        assert error.value.code == code, command
    for level in ("local", "majority", "available", "linearizable"):
        assert db.command({"find": "rc", "readConcern": {"level": level}})["ok"] == 1
