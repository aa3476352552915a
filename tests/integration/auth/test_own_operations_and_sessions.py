"""Under --auth, operations and sessions belong to the user that started them, as in mongod:
without allUsers, currentOp/$currentOp and $listLocalSessions list the caller's own without
inprog or listSessions; killOp of one's own operation needs no killop; killSessions reaches only
the caller's sessions; killAllSessions and killAllSessionsByPattern select users' sessions; an
open transaction's idle-session entry is listed for its own user."""

import concurrent.futures
import time
import uuid

import pymongo.errors
import pytest
from bson.son import SON

from auth_helpers import assert_unauthorized, connect

INTERRUPTED = 11601
CURSOR_NOT_FOUND = 43
# Every document fails it, slowly: a scan of some tens of thousands of documents lasts seconds.
SLOW_FILTER = {"$expr": {"$lt": [{"$reduce": {"input": {"$range": [0, 300]}, "initialValue": 0,
                                              "in": {"$add": ["$$value", "$$this"]}}}, 0]}}


def users_of(ops):
    return {tuple((u["user"], u["db"]) for u in op.get("effectiveUsers", [])) for op in ops}


def test_current_op_without_all_users_lists_only_the_callers_own(make_user, admin):
    name, reader = make_user(["readAnyDatabase"])
    admin.admin.command("ping")  # admin's connection exists, idle
    own = list(reader.admin.aggregate([{"$currentOp": {"idleConnections": True}}]))
    assert own, "the caller's own aggregate is listed"
    assert users_of(own) == {((name, "admin"),)}
    # The command form needs $ownOps: true without inprog.
    assert_unauthorized(lambda: reader.admin.command("currentOp"))
    inprog = reader.admin.command(SON([("currentOp", 1), ("$ownOps", True), ("$all", True)]))
    assert users_of(inprog["inprog"]) == {((name, "admin"),)}
    # Everyone's needs inprog.
    assert_unauthorized(lambda: list(reader.admin.aggregate([{"$currentOp": {"allUsers": True}}])))
    everyone = list(admin.admin.aggregate([{"$currentOp": {"allUsers": True,
                                                           "idleConnections": True}}]))
    assert {((name, "admin"),), (("admin", "admin"),)} <= users_of(everyone)
    # Without allUsers even root sees only its own.
    assert users_of(admin.admin.aggregate([{"$currentOp": {"idleConnections": True}}])) == {
        (("admin", "admin"),)}


def wait_for_own_op(client, **filters):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ops = list(client.admin.aggregate([{"$currentOp": {}}, {"$match": filters}]))
        if ops:
            return ops[0]
        time.sleep(0.01)
    raise AssertionError(f"no operation matching {filters} appeared")


def filled(coll, n):
    """`coll` emptied and given documents _id 0..n-1."""
    coll.drop()
    coll.insert_many([{"_id": i} for i in range(n)])
    return coll


@pytest.fixture
def slow_items(admin):
    yield filled(admin.own_ops.slow, 30000)
    admin.own_ops.slow.drop()


def test_a_user_kills_its_own_operation_without_killop_but_not_anothers(
        make_user, slow_items, auth_server):
    name, worker = make_user([{"role": "read", "db": "own_ops"}], password="worker-pw")
    _, other = make_user([{"role": "read", "db": "own_ops"}])
    # A second connection of the same user lists and kills the scan.
    with connect(auth_server, name, "worker-pw") as same_user, \
            concurrent.futures.ThreadPoolExecutor(1) as pool:
        scan = pool.submit(lambda: list(worker.own_ops.slow.find(SLOW_FILTER)))
        op = wait_for_own_op(same_user, **{"command.find": "slow"})
        assert op["effectiveUsers"] == [{"user": name, "db": "admin"}]
        assert_unauthorized(lambda: other.admin.command("killOp", op=op["opid"]))
        assert same_user.admin.command("killOp", op=op["opid"])["info"] == "attempting to kill op"
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            scan.result(timeout=120)
        assert info.value.code == INTERRUPTED
    # An opid that runs nothing of the user's needs killop, as in mongod.
    assert_unauthorized(lambda: worker.admin.command("killOp", op=2**31 - 1))


def local_sessions(client, spec=None):
    return list(client.admin.aggregate([{"$listLocalSessions": spec or {}}]))


def id_bytes(value):
    return value.bytes if isinstance(value, uuid.UUID) else bytes(value)


def session_ids(docs):
    return [id_bytes(d["_id"]["id"]) for d in docs]


def test_list_local_sessions_lists_the_callers_own_sessions(make_user, admin):
    name, reader = make_user(["readAnyDatabase"])
    with reader.start_session() as s:
        reader.admin.command("ping", session=s)
        mine = local_sessions(reader)
        assert id_bytes(s.session_id["id"]) in session_ids(mine)
        assert {d["user"]["name"] for d in mine} == {f"{name}@admin"}
        # Naming oneself is one's own list too.
        named_self = local_sessions(reader, {"users": [{"user": name, "db": "admin"}]})
        assert id_bytes(s.session_id["id"]) in session_ids(named_self)
        assert_unauthorized(lambda: local_sessions(reader, {"allUsers": True}))
        assert_unauthorized(lambda: local_sessions(reader, {"users": [{"user": "admin",
                                                                       "db": "admin"}]}))
        everyone = local_sessions(admin, {"allUsers": True})
        assert {f"{name}@admin", "admin@admin"} <= {d["user"]["name"] for d in everyone}
        by_name = local_sessions(admin, {"users": [{"user": name, "db": "admin"}]})
        assert id_bytes(s.session_id["id"]) in session_ids(by_name)
        assert {d["user"]["name"] for d in by_name} == {f"{name}@admin"}
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        local_sessions(admin, {"allUsers": True, "users": [{"user": name, "db": "admin"}]})
    assert info.value.code == 12  # UnsupportedFormat


def test_list_sessions_on_config_system_sessions_lists_the_callers_own(make_user, admin):
    name, reader = make_user(["readAnyDatabase"])
    sessions = reader.config["system.sessions"]
    with reader.start_session() as s:
        reader.admin.command("ping", session=s)
        mine = list(sessions.aggregate([{"$listSessions": {}}]))
        assert id_bytes(s.session_id["id"]) in session_ids(mine)
        assert {d["user"]["name"] for d in mine} == {f"{name}@admin"}
        all_users = [{"$listSessions": {"allUsers": True}}]
        assert_unauthorized(lambda: list(sessions.aggregate(all_users)))
        everyone = admin.config["system.sessions"].aggregate(all_users)
        assert id_bytes(s.session_id["id"]) in session_ids(everyone)
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(admin.admin.aggregate([{"$listSessions": {}}]))
    assert info.value.code == 73  # InvalidNamespace
    assert info.value.details["errmsg"] == \
        "$listSessions may only be run against config.system.sessions"


@pytest.fixture
def items(admin):
    yield filled(admin.own_sessions.items, 10)
    admin.own_sessions.items.drop()


def test_kill_sessions_reaches_only_the_callers_own_sessions(make_user, admin, items):
    _, victim = make_user([{"role": "read", "db": "own_sessions"}])
    _, other = make_user([{"role": "read", "db": "own_sessions"}])
    with victim.start_session() as s:
        cursor = victim.own_sessions.items.find({}, batch_size=2, session=s)
        assert next(cursor)["_id"] == 0
        # Another user naming the same id kills its own session of that id: not the victim's.
        assert other.admin.command("killSessions", [{"id": s.session_id["id"]}])["ok"] == 1
        # Naming the victim's uid needs killAnySession (or impersonate).
        uid = local_sessions(victim)[0]["_id"]["uid"]
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            other.admin.command("killSessions", [{"id": s.session_id["id"], "uid": uid}])
        assert info.value.code == 13
        assert "Unauthorized to set user digest" in info.value.details["errmsg"]
        assert [d["_id"] for d in cursor] == list(range(1, 10)), "the cursor lives on"
        # Its owner kills it with [] (all of its own sessions).
        cursor = victim.own_sessions.items.find({}, batch_size=2, session=s)
        assert next(cursor)["_id"] == 0
        assert victim.admin.command("killSessions", [])["ok"] == 1
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            list(cursor)
        assert info.value.code == CURSOR_NOT_FOUND
        # killAnySession names another user's session by its uid.
        cursor = victim.own_sessions.items.find({}, batch_size=2, session=s)
        assert next(cursor)["_id"] == 0
        admin.admin.command("killSessions", [{"id": s.session_id["id"]}])
        assert next(cursor)["_id"] == 1, "root's own session of that id is another session"
        admin.admin.command("killSessions", [{"id": s.session_id["id"], "uid": uid}])
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            list(cursor)
        assert info.value.code == CURSOR_NOT_FOUND


def test_kill_all_sessions_by_user_and_by_pattern(make_user, admin, items):
    first_name, first = make_user([{"role": "read", "db": "own_sessions"}])
    _, second = make_user([{"role": "read", "db": "own_sessions"}])
    with first.start_session() as a, second.start_session() as b:
        cursor_a = first.own_sessions.items.find({}, batch_size=2, session=a)
        cursor_b = second.own_sessions.items.find({}, batch_size=2, session=b)
        assert next(cursor_a)["_id"] == 0 and next(cursor_b)["_id"] == 0
        admin.admin.command("killAllSessions", [{"user": first_name, "db": "admin"}])
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            list(cursor_a)
        assert info.value.code == CURSOR_NOT_FOUND
        assert next(cursor_b)["_id"] == 1, "the other user's session lives on"
        # By pattern: the session {lsid: {id, uid}}, then a user's sessions {uid}.
        uid_b = local_sessions(second)[0]["_id"]["uid"]
        admin.admin.command("killAllSessionsByPattern",
                            [{"lsid": {"id": b.session_id["id"], "uid": uid_b}}])
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            list(cursor_b)
        assert info.value.code == CURSOR_NOT_FOUND
        cursor_b = second.own_sessions.items.find({}, batch_size=2, session=b)
        assert next(cursor_b)["_id"] == 0
        admin.admin.command("killAllSessionsByPattern", [{"uid": uid_b}])
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            list(cursor_b)
        assert info.value.code == CURSOR_NOT_FOUND
    # users and roles are impersonation data: they need impersonate, which root lacks.
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        admin.admin.command("killAllSessionsByPattern",
                            [{"users": [{"user": first_name, "db": "admin"}]}])
    assert info.value.code == 13
    assert info.value.details["errmsg"] == \
        "Not authorized to impersonate in killAllSessionsByPattern"
    # Both need killAnySession.
    assert_unauthorized(lambda: first.admin.command("killAllSessions", []))
    assert_unauthorized(lambda: first.admin.command("killAllSessionsByPattern", []))


def test_idle_transactions_are_listed_for_their_own_user_only(make_user, admin):
    name, writer = make_user([{"role": "readWrite", "db": "own_txn"}])
    _, other = make_user([{"role": "readWrite", "db": "own_txn"}])

    def as_uuid(value):
        return value if isinstance(value, uuid.UUID) else uuid.UUID(bytes=bytes(value))

    def idle_ids(client, **stage):
        entries = client.admin.aggregate([{"$currentOp": stage},
                                          {"$match": {"type": "idleSession"}}])
        return {as_uuid(e["lsid"]["id"]) for e in entries}

    with writer.start_session() as session:
        session.start_transaction()
        writer.own_txn.items.insert_one({"_id": 1}, session=session)
        mine = as_uuid(session.session_id["id"])
        assert mine in idle_ids(writer)
        assert mine not in idle_ids(other)
        assert mine in idle_ids(admin, allUsers=True)
        session.abort_transaction()
    admin.own_txn.items.drop()
