"""Retryable writes: a write sent again with the same lsid and txnNumber is not applied twice
and gets the first attempt's reply; pymongo's own retries (retryWrites=True, its default) work.

The raw commands go over wire_client's RawConnection: pymongo 3.11's Database.command replaces
an `lsid` in the command with one of its own sessions, even with session=None."""

import contextlib
import uuid

import pymongo
import pymongo.errors
import pymongo.monitoring
import pytest
from bson.binary import Binary, UUID_SUBTYPE
from bson.int64 import Int64
from pymongo import ReturnDocument

from quarry_server import CLIENT_OPTIONS
from wire_client import RawConnection

DUPLICATE_KEY = 11000
INVALID_OPTIONS = 72
TRANSACTION_TOO_OLD = 225


# The fail points that make a write's reply go missing.
SERVER_ARGS = ["--enableTestCommands"]


@pytest.fixture
def coll(module_client, request):
    name = "t_retry_" + request.node.name[:40].replace("[", "_").replace("]", "_")
    module_client.drop_database(name)
    yield module_client[name].c
    module_client.drop_database(name)


class Session:
    """One logical session of raw commands: send(command, txn) adds $db, lsid and txnNumber."""

    def __init__(self, server, db_name):
        self.conn = RawConnection(server.host, server.port)
        self.db_name = db_name
        self.lsid = {"id": Binary(uuid.uuid4().bytes, UUID_SUBTYPE)}

    def send(self, command, txn):
        reply = self.conn.command(dict(command, **{"$db": self.db_name, "lsid": self.lsid,
                                                   "txnNumber": Int64(txn)})).doc
        for key in ("$clusterTime", "operationTime"):
            reply.pop(key, None)
        return reply


@pytest.fixture
def session(module_server, coll):
    s = Session(module_server, coll.database.name)
    yield s
    s.conn.close()


def codes(reply):
    return [(e["index"], e["code"]) for e in reply.get("writeErrors", [])]


def test_a_retried_insert_gets_the_same_reply_and_inserts_once(session, coll):
    insert = {"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]}
    first = session.send(insert, 1)
    retried = session.send(insert, 1)
    assert first == {"n": 3, "ok": 1.0}
    assert retried == first
    assert sorted(d["_id"] for d in coll.find()) == [1, 2, 3]


def test_a_retried_ordered_insert_skips_what_it_inserted_and_stops_at_the_duplicate_again(
        session, coll):
    coll.insert_one({"_id": "taken", "v": "old"})
    insert = {"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": "taken", "v": "new"},
                                           {"_id": 4}]}
    first = session.send(insert, 1)
    assert first["n"] == 2 and codes(first) == [(2, DUPLICATE_KEY)]
    # Documents 1 and 2 executed in the first attempt: the retry skips them (even the one
    # deleted since) instead of inserting them or failing on them.
    coll.delete_one({"_id": 1})
    retried = session.send(insert, 1)
    assert retried["n"] == 2 and codes(retried) == [(2, DUPLICATE_KEY)]
    assert sorted(map(str, (d["_id"] for d in coll.find()))) == ["2", "taken"]
    assert coll.find_one({"_id": "taken"})["v"] == "old"


def test_a_retried_inc_is_applied_once(session, coll):
    coll.insert_one({"_id": 1, "n": 0})
    update = {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}}}]}
    first = session.send(update, 1)
    assert session.send(update, 1) == first == {"n": 1, "nModified": 1, "ok": 1.0}
    assert coll.find_one({"_id": 1})["n"] == 1


def test_a_retried_upsert_reports_the_same_upserted_id_and_inserts_one_document(session, coll):
    upsert = {"update": "c", "updates": [{"q": {"k": "u"}, "u": {"$set": {"v": 1}},
                                          "upsert": True}]}
    first = session.send(upsert, 1)
    retried = session.send(upsert, 1)
    assert first["n"] == 1 and len(first["upserted"]) == 1
    assert retried["upserted"] == first["upserted"]
    assert [d["_id"] for d in coll.find({"k": "u"})] == [first["upserted"][0]["_id"]]


@pytest.mark.parametrize("change", [
    {"update": {"$inc": {"n": 1}}, "new": True},
    {"update": {"$inc": {"n": 1}}},
    {"remove": True},
], ids=["update-new", "update-old", "remove"])
def test_a_retried_find_and_modify_returns_the_same_value(session, coll, change):
    coll.insert_many([{"_id": 1, "n": 0}, {"_id": 2, "n": 0}])
    command = dict({"findAndModify": "c", "query": {"n": 0}, "sort": {"_id": 1}}, **change)
    first = session.send(command, 1)
    retried = session.send(command, 1)
    assert first["ok"] == 1 and first["value"]["_id"] == 1
    assert retried["value"] == first["value"]
    assert retried["lastErrorObject"] == first["lastErrorObject"]
    if "remove" in change:
        assert [d["_id"] for d in coll.find()] == [2]
    else:
        assert list(coll.find()) == [{"_id": 1, "n": 1}, {"_id": 2, "n": 0}]


def test_a_retried_delete_reports_the_same_n(session, coll):
    coll.insert_many([{"_id": 1, "g": 1}, {"_id": 2, "g": 1}])
    delete = {"delete": "c", "deletes": [{"q": {"g": 1}, "limit": 1}]}
    assert session.send(delete, 1) == {"n": 1, "ok": 1.0}
    assert session.send(delete, 1) == {"n": 1, "ok": 1.0}
    assert coll.count_documents({}) == 1, "the retry deleted a second document"


def test_a_new_txn_number_is_a_new_write(session, coll):
    coll.insert_one({"_id": 1, "n": 0})
    update = {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}}}]}
    session.send(update, 1)
    session.send(update, 2)
    session.send(update, 2)
    assert coll.find_one({"_id": 1})["n"] == 2


def test_an_older_txn_number_after_a_newer_one_fails_with_transaction_too_old(session, coll):
    session.send({"insert": "c", "documents": [{"_id": 1}]}, 5)
    old = session.send({"insert": "c", "documents": [{"_id": 2}]}, 4)
    assert old["ok"] == 0 and old["code"] == TRANSACTION_TOO_OLD, old
    assert [d["_id"] for d in coll.find()] == [1]


def test_sessions_are_independent(module_server, coll):
    a, b = Session(module_server, coll.database.name), Session(module_server, coll.database.name)
    try:
        a.send({"insert": "c", "documents": [{"_id": 1}]}, 7)
        assert b.send({"insert": "c", "documents": [{"_id": 2}]}, 1) == {"n": 1, "ok": 1.0}
    finally:
        a.conn.close()
        b.conn.close()
    assert [d["_id"] for d in coll.find()] == [1, 2]


@pytest.mark.parametrize("command", [
    {"update": "c", "updates": [{"q": {}, "u": {"$set": {"m": 1}}, "multi": True}]},
    {"delete": "c", "deletes": [{"q": {}, "limit": 0}]},
], ids=["update-multi", "delete-limit-0"])
def test_a_multi_document_statement_in_a_retryable_write_fails_with_invalid_options(
        session, coll, command):
    coll.insert_many([{"_id": 1}, {"_id": 2}])
    reply = session.send(command, 1)
    assert reply["ok"] == 1 and codes(reply) == [(0, INVALID_OPTIONS)], reply
    assert list(coll.find()) == [{"_id": 1}, {"_id": 2}], "the statement ran anyway"


# pymongo's retryable writes.

class WriteCommands(pymongo.monitoring.CommandListener):
    def __init__(self):
        self.sent = []  # (command name, txnNumber) of every write command started

    def started(self, event):
        if event.command_name in ("insert", "update", "delete", "findAndModify"):
            self.sent.append((event.command_name, event.command.get("txnNumber")))

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


@pytest.fixture
def retrying(module_server, coll):
    """A retryWrites=True client (pymongo's default) of its own, its listener, its collection."""
    listener = WriteCommands()
    with pymongo.MongoClient(module_server.uri(), retryWrites=True, event_listeners=[listener],
                             **CLIENT_OPTIONS) as c:
        yield c[coll.database.name].c, listener


@contextlib.contextmanager
def fail_point(client, name, data=None):
    """Fail point `name` acts once within the block, and is off after it whatever happened."""
    client.admin.command("configureFailPoint", name, mode={"times": 1}, data=data or {})
    try:
        yield
    finally:
        client.admin.command("configureFailPoint", name, mode="off")


def test_pymongo_retryable_writes_work_and_carry_a_txn_number(retrying):
    c, listener = retrying
    assert c.insert_one({"_id": 1, "n": 0}).inserted_id == 1
    updated = c.update_one({"_id": 1}, {"$inc": {"n": 1}})
    assert (updated.matched_count, updated.modified_count) == (1, 1)
    assert c.find_one_and_update({"_id": 1}, {"$inc": {"n": 10}},
                                 return_document=ReturnDocument.AFTER) == {"_id": 1, "n": 11}
    c.insert_one({"_id": 2})
    assert c.delete_one({"_id": 2}).deleted_count == 1
    assert list(c.find()) == [{"_id": 1, "n": 11}]
    assert [name for name, _ in listener.sent] == ["insert", "update", "findAndModify", "insert",
                                                   "delete"]
    assert all(isinstance(txn, Int64) for _, txn in listener.sent), listener.sent


@pytest.mark.parametrize("name", ["insert", "update", "findAndModify", "delete"])
def test_pymongo_retries_a_write_whose_reply_was_lost_and_it_applies_once(
        retrying, module_client, name):
    c, listener = retrying
    if name != "insert":
        c.insert_many([{"_id": 1, "n": 0}, {"_id": 2}])
    listener.sent.clear()
    # The write commits, then the server closes the connection instead of replying; pymongo
    # sends it again with the same lsid and txnNumber.
    with fail_point(module_client, "onPrimaryTransactionalWrite"):
        if name == "insert":
            assert c.insert_one({"_id": 1, "n": 0}).inserted_id == 1
        elif name == "update":
            updated = c.update_one({"_id": 1}, {"$inc": {"n": 1}})
            assert (updated.matched_count, updated.modified_count) == (1, 1)
        elif name == "findAndModify":
            assert c.find_one_and_update({"_id": 1}, {"$inc": {"n": 1}},
                                         return_document=ReturnDocument.AFTER) == {"_id": 1, "n": 1}
        else:
            assert c.delete_one({"_id": 2}).deleted_count == 1
    assert len(listener.sent) == 2 and listener.sent[0] == listener.sent[1], listener.sent
    if name == "delete":
        assert [d["_id"] for d in c.find()] == [1]
    else:
        assert c.find_one({"_id": 1}) == {"_id": 1, "n": 0 if name == "insert" else 1}


PRIMARY_STEPPED_DOWN = {"failCommands": ["insert"], "errorCode": 189}  # a retriable error


def test_pymongo_retries_a_write_that_failed_with_a_retriable_error(retrying, module_client):
    c, listener = retrying
    with fail_point(module_client, "failCommand", PRIMARY_STEPPED_DOWN):
        assert c.insert_one({"_id": 1}).inserted_id == 1
    assert [name for name, _ in listener.sent] == ["insert", "insert"]
    assert list(c.find()) == [{"_id": 1}]


def test_a_retryable_write_failing_with_a_retriable_code_carries_the_retryable_write_label(
        session, module_client):
    with fail_point(module_client, "failCommand", PRIMARY_STEPPED_DOWN):
        reply = session.send({"insert": "c", "documents": [{"_id": 1}]}, 1)
    assert reply["ok"] == 0 and reply["code"] == 189
    assert reply["errorLabels"] == ["RetryableWriteError"]
