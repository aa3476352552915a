"""TTL indexes with pymongo: a monitor pass (every second here, via --setParameter
ttlMonitorSleepSecs=1) deletes the documents whose indexed date is older than
expireAfterSeconds, through ordinary deletes that change streams show; what createIndexes
accepts as a TTL index; the parameter's command-line and config-file forms."""

import datetime
import subprocess
import time

import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS

CANNOT_CREATE_INDEX = 67


@pytest.fixture(scope="module")
def ttl_server(make_server):
    server = make_server("ttl", extra_args=["--setParameter", "ttlMonitorSleepSecs=1"])
    yield server
    server.stop()


@pytest.fixture
def coll(ttl_server, request):
    with pymongo.MongoClient(ttl_server.uri(), **CLIENT_OPTIONS) as c:
        name = request.node.name[:60]
        c.ttl[name].drop()
        yield c.ttl[name]
        c.ttl[name].drop()


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def wait_for(predicate, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return predicate()


def ids(coll):
    return sorted(d["_id"] for d in coll.find())


def test_expired_documents_are_deleted_and_others_kept(coll):
    coll.create_index("at", expireAfterSeconds=30)
    past, future = now() - datetime.timedelta(hours=1), now() + datetime.timedelta(hours=1)
    coll.insert_many([
        {"_id": "old", "at": past},
        {"_id": "new", "at": future},
        {"_id": "recent", "at": now()},                       # expires in 30 s, not yet
        {"_id": "string", "at": past.isoformat()},            # not a date: never expires
        {"_id": "number", "at": 1},
        {"_id": "missing"},
        {"_id": "array-with-old", "at": [future, past]},      # the earliest date decides
        {"_id": "array-all-new", "at": [future, future]},
    ])
    assert wait_for(lambda: "old" not in ids(coll) and "array-with-old" not in ids(coll))
    time.sleep(1.5)  # another pass deletes nothing more
    assert ids(coll) == ["array-all-new", "missing", "new", "number", "recent", "string"]


def test_a_partial_ttl_index_deletes_only_what_its_filter_selects(coll):
    coll.create_index("at", expireAfterSeconds=0,
                      partialFilterExpression={"kind": "session"})
    past = now() - datetime.timedelta(minutes=5)
    coll.insert_many([{"_id": 1, "at": past, "kind": "session"},
                      {"_id": 2, "at": past, "kind": "audit"}])
    assert wait_for(lambda: ids(coll) == [2])


def test_ttl_deletes_appear_in_change_streams(coll):
    coll.create_index("at", expireAfterSeconds=1)
    with coll.watch() as stream:
        coll.insert_one({"_id": "soon", "at": now()})
        events = []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and len(events) < 2:
            event = stream.try_next()
            if event is not None:
                events.append((event["operationType"], event["documentKey"]["_id"]))
    assert events == [("insert", "soon"), ("delete", "soon")]


def test_server_status_counts_passes_and_deleted_documents(ttl_server, coll):
    admin = coll.database.client.admin
    before = admin.command("serverStatus")["metrics"]["ttl"]
    coll.create_index("at", expireAfterSeconds=0)
    coll.insert_many([{"at": now() - datetime.timedelta(seconds=10)} for _ in range(3)])
    assert wait_for(lambda: coll.count_documents({}) == 0)
    after = admin.command("serverStatus")["metrics"]["ttl"]
    assert after["deletedDocuments"] - before["deletedDocuments"] >= 3
    assert after["passes"] > before["passes"]


def test_list_indexes_shows_expire_after_seconds_as_given(coll):
    coll.create_index("at", expireAfterSeconds=3600, name="by_age")
    spec = coll.index_information()["by_age"]
    assert spec["expireAfterSeconds"] == 3600
    # The same spec again is a no-op; another lifetime under the same name conflicts (85).
    coll.create_index("at", expireAfterSeconds=3600, name="by_age")
    with pytest.raises(pymongo.errors.OperationFailure) as failed:
        coll.create_index("at", expireAfterSeconds=60, name="by_age")
    assert failed.value.code == 85


def test_coll_mod_changes_the_lifetime_or_makes_an_index_a_ttl_index(coll):
    coll.create_index("at")
    coll.insert_one({"_id": 1, "at": now() - datetime.timedelta(minutes=10)})
    time.sleep(1.5)
    assert ids(coll) == [1]  # not a TTL index yet
    reply = coll.database.command("collMod", coll.name,
                                  index={"keyPattern": {"at": 1}, "expireAfterSeconds": 3600})
    assert "expireAfterSeconds_old" not in reply and reply["expireAfterSeconds_new"] == 3600
    time.sleep(1.5)
    assert ids(coll) == [1]  # ten minutes old, lives an hour
    reply = coll.database.command("collMod", coll.name,
                                  index={"name": "at_1", "expireAfterSeconds": 60})
    assert (reply["expireAfterSeconds_old"], reply["expireAfterSeconds_new"]) == (3600, 60)
    assert coll.index_information()["at_1"]["expireAfterSeconds"] == 60
    assert wait_for(lambda: ids(coll) == [])


@pytest.mark.parametrize("keys, options", [
    ([("a", 1), ("b", 1)], {"expireAfterSeconds": 10}),      # compound
    ([("_id", 1)], {"expireAfterSeconds": 10, "name": "ttl_id"}),
    ([("a", 1)], {"expireAfterSeconds": -1}),
    ([("a", 1)], {"expireAfterSeconds": 2**31}),
    ([("a", 1)], {"expireAfterSeconds": "10"}),
])
def test_invalid_ttl_indexes_are_refused(coll, keys, options):
    with pytest.raises(pymongo.errors.OperationFailure) as failed:
        coll.create_index(keys, **options)
    assert failed.value.code == CANNOT_CREATE_INDEX
    assert "expireAfterSeconds" in str(failed.value) or "TTL" in str(failed.value)
    assert len(coll.index_information()) <= 1


def test_the_monitor_can_be_disabled(make_server):
    server = make_server("ttl-off", extra_args=["--setParameter", "ttlMonitorSleepSecs=1",
                                                "--setParameter", "ttlMonitorEnabled=false"])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        c.t.c.create_index("at", expireAfterSeconds=0)
        c.t.c.insert_one({"at": now() - datetime.timedelta(hours=1)})
        time.sleep(2.5)
        assert c.t.c.count_documents({}) == 1
        assert c.admin.command("serverStatus")["metrics"]["ttl"]["passes"] == 0
    server.stop()


def test_the_config_file_sets_the_monitor_interval(make_server, tmp_path):
    config = tmp_path / "quarryd.conf"
    config.write_text("setParameter:\n  ttlMonitorSleepSecs: 1\n")
    server = make_server("ttl-conf", extra_args=["--config", str(config)])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        c.t.c.create_index("at", expireAfterSeconds=0)
        c.t.c.insert_one({"at": now() - datetime.timedelta(hours=1)})
        assert wait_for(lambda: c.t.c.count_documents({}) == 0)
    server.stop()


def test_an_unknown_parameter_stops_the_server_with_a_clear_message(quarry_binary, tmp_path):
    proc = subprocess.run([quarry_binary, "--dbpath", str(tmp_path / "db"), "--port", "1",
                           "--setParameter", "noSuchParameter=1"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0
    assert "unknown setParameter 'noSuchParameter'" in proc.stderr
