"""killSessions and killAllSessions with pymongo: a killed session's running operation fails with
11601 Interrupted, its cursors are gone (getMore answers 43 CursorNotFound), and other sessions
go on."""

import concurrent.futures
import math
import time
import uuid

import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS

pytestmark = pytest.mark.slow

INTERRUPTED = 11601
CURSOR_NOT_FOUND = 43
DOCUMENTS = 200_000
# No document matches: PCRE tries every way of splitting the a's before it gives up at the b,
# so each document costs microseconds and a query reads the whole collection.
SUBJECT = "a" * 17 + "b"
BACKTRACKING = {"s": {"$regex": "^(a|aa)+$"}}
# An unkilled scan lasts at least this long, so a kill sent as soon as the operation has
# started lands while it runs, however slow the machine.
MIN_SCAN_S = 2.0


@pytest.fixture(scope="module")
def user(module_client):
    """The client whose sessions get killed."""
    return module_client


@pytest.fixture(scope="module")
def admin(module_server):
    """Another client, which kills them."""
    with pymongo.MongoClient(module_server.uri(), **CLIENT_OPTIONS) as c:
        yield c


class SlowScan:
    def __init__(self, collection, query, seconds):
        self.collection = collection
        self.query = query  # matches nothing, and takes `seconds` to say so
        self.seconds = seconds


@pytest.fixture(scope="module")
def slow_scan(user):
    coll = user.t_kill_sessions.big
    coll.drop()
    for start in range(0, DOCUMENTS, 20_000):
        coll.insert_many([{"_id": i, "s": SUBJECT} for i in range(start, start + 20_000)])
    # The same failing regex several times over ($or tries every clause) until a scan takes
    # MIN_SCAN_S: the machine decides how many.
    clauses = 1
    for _ in range(5):
        query = {"$or": [BACKTRACKING] * clauses}
        started = time.monotonic()
        assert user.t_kill_sessions.command("count", "big", query=query)["n"] == 0
        seconds = time.monotonic() - started
        if seconds >= MIN_SCAN_S:
            break
        clauses = max(clauses + 1, math.ceil(clauses * 1.5 * MIN_SCAN_S / seconds))
    assert seconds >= MIN_SCAN_S, f"a scan took only {seconds:.2f} s with {clauses} clauses"
    yield SlowScan(coll, query, seconds)
    user.drop_database("t_kill_sessions")


@pytest.fixture
def small(user, request):
    coll = user.t_kill_sessions[request.node.name[:40].replace("[", "_").replace("]", "_")]
    coll.drop()
    coll.insert_many([{"_id": i} for i in range(20)])
    yield coll
    coll.drop()


def id_bytes(value):
    return value.bytes if isinstance(value, uuid.UUID) else bytes(value)


def listed_sessions(admin):
    return {id_bytes(s["_id"]["id"]) for s in admin.admin.aggregate([{"$listLocalSessions": {}}])}


def wait_until_started(admin, session, future):
    """A new session is listed from the moment its first operation starts on the server."""
    want = id_bytes(session.session_id["id"])
    deadline = time.monotonic() + 30
    while want not in listed_sessions(admin):
        assert not future.done(), f"the operation ended before it was seen: {future.result()}"
        assert time.monotonic() < deadline, "the operation did not start within 30 s"
        time.sleep(0.005)


OPERATIONS = {
    "find": lambda coll, query, s: list(coll.find(query, session=s)),
    "count": lambda coll, query, s: coll.database.command("count", coll.name, query=query,
                                                          session=s),
    "aggregate": lambda coll, query, s: coll.count_documents(query, session=s),
}


def run_killed(server, scan, admin, name, kill):
    """Starts OPERATIONS[name] over the slow scan in a thread, kills it with `kill(session)`
    once it runs, and returns (the error it failed with, seconds from the kill to the failure).
    The client is new: pymongo reuses the ids of ended sessions, and a session the server
    already lists would seem to have started before it has."""
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as fresh, \
            fresh.start_session() as session, \
            concurrent.futures.ThreadPoolExecutor(1) as pool:
        assert id_bytes(session.session_id["id"]) not in listed_sessions(admin)
        coll = fresh[scan.collection.database.name][scan.collection.name]
        future = pool.submit(OPERATIONS[name], coll, scan.query, session)
        wait_until_started(admin, session, future)
        killed_at = time.monotonic()
        kill(session)
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            future.result(timeout=scan.seconds * 10)
        return info.value, time.monotonic() - killed_at


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_kill_sessions_interrupts_the_sessions_running_operation(module_server, slow_scan,
                                                                 admin, name):
    error, seconds = run_killed(module_server, slow_scan, admin, name,
                                lambda s: admin.admin.command("killSessions", [s.session_id]))
    assert error.code == INTERRUPTED, error.details
    assert seconds < slow_scan.seconds / 2, (
        f"failed {seconds:.2f} s after the kill; the whole scan takes {slow_scan.seconds:.2f} s")


def test_kill_all_sessions_interrupts_running_operations(module_server, slow_scan, admin):
    error, seconds = run_killed(module_server, slow_scan, admin, "count",
                                lambda s: admin.admin.command("killAllSessions", []))
    assert error.code == INTERRUPTED, error.details
    assert seconds < slow_scan.seconds / 2


def open_cursor(coll, session):
    cursor = coll.find({}, batch_size=2, session=session)
    assert [next(cursor)["_id"], next(cursor)["_id"]] == [0, 1]
    return cursor


def test_kill_sessions_kills_its_cursors_and_no_other_sessions(user, admin, small):
    with user.start_session() as killed, user.start_session() as other:
        doomed = open_cursor(small, killed)
        spared = open_cursor(small, other)
        admin.admin.command("killSessions", [killed.session_id])
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            list(doomed)
        assert info.value.code == CURSOR_NOT_FOUND
        assert [d["_id"] for d in spared] == list(range(2, 20))
        # The session itself goes on: only what ran or was open at the kill is gone.
        assert small.count_documents({}, session=killed) == 20


def test_kill_all_sessions_kills_every_sessions_cursors(user, admin, small):
    with user.start_session() as first, user.start_session() as second:
        cursors = [open_cursor(small, first), open_cursor(small, second)]
        assert admin.admin.command("killAllSessions", [])["ok"] == 1
        for cursor in cursors:
            with pytest.raises(pymongo.errors.OperationFailure) as info:
                list(cursor)
            assert info.value.code == CURSOR_NOT_FOUND


def test_kill_all_sessions_with_a_user_pattern_kills_only_that_users_sessions(user, admin,
                                                                            small):
    # Without --auth sessions belong to no user: a user's pattern selects none of them.
    with user.start_session() as session:
        cursor = open_cursor(small, session)
        assert admin.admin.command("killAllSessions", [{"user": "ann", "db": "admin"}])["ok"] == 1
        assert [d["_id"] for d in cursor] == list(range(2, 20)), "nothing was killed"


def test_kill_all_sessions_by_pattern_kills_the_sessions_it_selects(user, admin, small):
    with user.start_session() as first, user.start_session() as second:
        cursors = [open_cursor(small, first), open_cursor(small, second)]
        uid = next(iter(admin.admin.aggregate([{"$listLocalSessions": {}}])))["_id"]["uid"]
        admin.admin.command("killAllSessionsByPattern",
                            [{"lsid": {"id": first.session_id["id"], "uid": uid}}])
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            list(cursors[0])
        assert info.value.code == CURSOR_NOT_FOUND
        assert next(cursors[1])["_id"] == 2, "the other session lives on"
        admin.admin.command("killAllSessionsByPattern", [{"uid": uid}])
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            list(cursors[1])
        assert info.value.code == CURSOR_NOT_FOUND
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        admin.admin.command("killAllSessionsByPattern", [{"nope": 1}])
    assert info.value.code == 40415
