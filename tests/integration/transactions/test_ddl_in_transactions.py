"""Collections and indexes created inside transactions (mongod's 4.4 rules): they exist for the
transaction at once, for everyone else at commit, and never after an abort."""

import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS
from waiting import outcome_after_waiting


def labels(error):
    return (error.details or {}).get("errorLabels", [])


def test_a_collection_created_in_a_transaction_appears_at_commit(client, db):
    with client.start_session() as session:
        session.start_transaction()
        db.create_collection("fresh", session=session)
        db.fresh.insert_one({"_id": 1}, session=session)
        assert db.fresh.find_one({"_id": 1}, session=session) == {"_id": 1}
        # Outside the transaction it does not exist yet.
        assert "fresh" not in db.list_collection_names()
        assert db.fresh.find_one({"_id": 1}) is None
        session.commit_transaction()
    assert "fresh" in db.list_collection_names()
    assert list(db.fresh.find()) == [{"_id": 1}]


def test_an_aborted_transaction_leaves_no_collection_behind(client, db):
    with client.start_session() as session:
        session.start_transaction()
        db.command("create", "explicit", session=session)
        db.implicit.insert_one({"_id": 1}, session=session)  # created by its first insert
        db.implicit.update_one({"_id": 2}, {"$set": {"x": 1}}, upsert=True, session=session)
        session.abort_transaction()
    assert "explicit" not in db.list_collection_names()
    assert "implicit" not in db.list_collection_names()
    # The names are free again.
    db.create_collection("explicit")
    db.implicit.insert_one({"_id": 3})
    assert list(db.implicit.find()) == [{"_id": 3}]


def test_creating_an_existing_collection_in_a_transaction_fails_and_aborts_it(client, db):
    db.create_collection("there")
    with client.start_session() as session:
        session.start_transaction()
        with pytest.raises(pymongo.errors.OperationFailure) as exists:
            db.command("create", "there", session=session)
        assert exists.value.code == 48
        with pytest.raises(pymongo.errors.OperationFailure) as gone:
            session.commit_transaction()
        assert gone.value.code == 251


def test_indexes_created_with_a_new_collection_commit_with_it(client, db):
    with client.start_session() as session:
        session.start_transaction()
        reply = db.command({"createIndexes": "indexed",
                            "indexes": [{"key": {"email": 1}, "name": "email_1", "unique": True},
                                        {"key": {"tags": 1}, "name": "tags_1"}]},
                           session=session)
        assert reply["createdCollectionAutomatically"] is True
        assert reply["numIndexesBefore"] == 1 and reply["numIndexesAfter"] == 3
        db.indexed.insert_one({"_id": 1, "email": "a@x", "tags": ["p", "q"]}, session=session)
        # The new indexes serve and constrain the transaction's own reads and writes.
        found = db.indexed.find({"tags": "q"}, session=session).hint("tags_1")
        assert [d["_id"] for d in found] == [1]
        with pytest.raises(pymongo.errors.OperationFailure) as duplicate:
            db.indexed.insert_one({"_id": 2, "email": "a@x"}, session=session)
        assert duplicate.value.code == 11000
    # The duplicate key aborted the transaction: nothing of it exists.
    assert "indexed" not in db.list_collection_names()

    with client.start_session() as session:
        with session.start_transaction():
            db.create_collection("indexed", session=session)
            db.indexed.create_index("email", unique=True, session=session)
            db.indexed.insert_one({"_id": 1, "email": "a@x"}, session=session)
    names = sorted(index["name"] for index in db.indexed.list_indexes())
    assert names == ["_id_", "email_1"]
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        db.indexed.insert_one({"_id": 2, "email": "a@x"})
    plan = db.indexed.find({"email": "a@x"}).explain()["queryPlanner"]["winningPlan"]
    assert "email_1" in str(plan)


def test_new_indexes_on_existing_or_written_collections_are_refused(client, db):
    db.existing.create_index("a")
    with client.start_session() as session:
        session.start_transaction()
        # An index that is there already is no change, and allowed.
        same = db.command({"createIndexes": "existing",
                           "indexes": [{"key": {"a": 1}, "name": "a_1"}]}, session=session)
        assert same["note"] == "all indexes already exist"
        with pytest.raises(pymongo.errors.OperationFailure) as new_index:
            db.command({"createIndexes": "existing",
                        "indexes": [{"key": {"b": 1}, "name": "b_1"}]}, session=session)
        assert new_index.value.code == 263
        session.abort_transaction()
    with client.start_session() as session:
        session.start_transaction()
        db.written.insert_one({"_id": 1}, session=session)
        with pytest.raises(pymongo.errors.OperationFailure) as not_empty:
            db.command({"createIndexes": "written",
                        "indexes": [{"key": {"b": 1}, "name": "b_1"}]}, session=session)
        assert not_empty.value.code == 263
        assert "non-empty" in str(not_empty.value)
        session.abort_transaction()
    assert [i["name"] for i in db.existing.list_indexes()] == ["_id_", "a_1"]


def test_two_transactions_creating_one_collection_conflict(client, db):
    with client.start_session() as first, client.start_session() as second:
        first.start_transaction()
        db.contested.insert_one({"_id": "first"}, session=first)
        second.start_transaction()
        with pytest.raises(pymongo.errors.OperationFailure) as conflict:
            db.contested.insert_one({"_id": "second"}, session=second)
        assert conflict.value.code == 112
        assert "TransientTransactionError" in labels(conflict.value)
        second.abort_transaction()
        first.commit_transaction()
    assert list(db.contested.find()) == [{"_id": "first"}]


def test_a_plain_create_waits_for_the_transaction_creating_the_collection(client, db):
    with client.start_session() as session:
        session.start_transaction()
        db.create_collection("awaited", session=session)
        db.awaited.insert_one({"_id": "from the transaction"}, session=session)
        outcome = outcome_after_waiting(lambda: db.command("create", "awaited")["ok"],
                                        session.commit_transaction)
    # By then the transaction's collection exists: a create with the same options is a no-op.
    assert outcome == {"returned": 1.0}
    assert list(db.awaited.find()) == [{"_id": "from the transaction"}]


def test_collections_created_in_transactions_survive_a_restart_only_if_committed(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        db = c.ddl_restart
        with c.start_session() as session:
            with session.start_transaction():
                db.create_collection("kept", session=session)
                db.kept.create_index("k", session=session)
                db.kept.insert_many([{"_id": i, "k": i} for i in range(3)], session=session)
            session.start_transaction()
            db.create_collection("dropped", session=session)
            db.dropped.insert_one({"_id": 1}, session=session)
            session.abort_transaction()
    own_server.restart()
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        db = c.ddl_restart
        assert db.list_collection_names() == ["kept"]
        assert db.kept.count_documents({}) == 3
        assert [i["name"] for i in db.kept.list_indexes()] == ["_id_", "k_1"]
        assert [d["_id"] for d in db.kept.find({"k": {"$gte": 1}}).hint("k_1")] == [1, 2]
        # Ids taken by the aborted transaction are not handed out again.
        db.create_collection("after")
        db.after.insert_one({"_id": 1})
        assert db.kept.count_documents({}) == 3 and db.after.count_documents({}) == 1


def test_creating_in_a_transaction_needs_read_concern_local(client, db):
    from pymongo.read_concern import ReadConcern
    for level in ("snapshot", "majority"):
        for command in ({"create": "rc_" + level},
                        {"createIndexes": "rc_" + level,
                         "indexes": [{"key": {"a": 1}, "name": "a_1"}]}):
            with client.start_session() as session:
                session.start_transaction(read_concern=ReadConcern(level))
                with pytest.raises(pymongo.errors.OperationFailure) as refused:
                    db.command(command, session=session)
                assert refused.value.code == 72
                session.abort_transaction()
    with client.start_session() as session:
        with session.start_transaction(read_concern=ReadConcern("local")):
            db.command({"create": "rc_local"}, session=session)
    assert "rc_local" in db.list_collection_names()
