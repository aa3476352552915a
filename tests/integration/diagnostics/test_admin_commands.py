"""Admin commands tools run: getParameter/setParameter with real values, serverStatus' metrics,
opLatencies and rocksdb sections, profile's slowms, fsync and shutdown (fsync's lock is
test_fsync_lock.py's)."""

import json

import pymongo
import pymongo.errors
import pytest


def fails_with(code, call, *args, **kwargs):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        call(*args, **kwargs)
    assert failure.value.code == code, failure.value.details
    return failure.value


def test_get_parameter_star_lists_real_values(client):
    params = client.admin.command("getParameter", "*")
    assert params["enableTestCommands"] is False
    assert params["ttlMonitorSleepSecs"] == 60
    assert params["ttlMonitorEnabled"] is True
    assert params["internalQueryMaxBlockingSortMemoryUsageBytes"] == 100 * 1024 * 1024
    assert params["internalDocumentSourceGroupMaxMemoryBytes"] == 100 * 1024 * 1024
    assert params["featureCompatibilityVersion"] == {"version": "7.0"}


def test_get_parameter_details_and_unknown(client):
    reply = client.admin.command({"getParameter": {"showDetails": True}, "ttlMonitorSleepSecs": 1})
    assert reply["ttlMonitorSleepSecs"]["value"] == 60
    assert reply["ttlMonitorSleepSecs"]["settableAtRuntime"] is True
    fails_with(72, client.admin.command, "getParameter", 1, noSuchParameter=1)


def test_set_parameter_changes_the_value_and_reports_was(own_server):
    client = pymongo.MongoClient(own_server.uri(), directConnection=True)
    try:
        reply = client.admin.command("setParameter", 1, ttlMonitorSleepSecs=5)
        assert reply["was"] == 60
        assert client.admin.command("getParameter", 1, ttlMonitorSleepSecs=1)[
            "ttlMonitorSleepSecs"] == 5
        reply = client.admin.command("setParameter", 1, ttlMonitorEnabled=False)
        assert reply["was"] is True
        assert client.admin.command("getParameter", 1, ttlMonitorEnabled=1)[
            "ttlMonitorEnabled"] is False
    finally:
        client.close()


def test_set_parameter_refusals(client):
    error = fails_with(72, client.admin.command, "setParameter", 1, noSuchParameter=1)
    assert "attempted to set unrecognized parameter [noSuchParameter]" in str(error)
    error = fails_with(20, client.admin.command, "setParameter", 1, enableTestCommands=True)
    assert "not allowed to change [enableTestCommands] at runtime" in str(error)
    fails_with(72, client.admin.command, "setParameter", 1)
    fails_with(2, client.admin.command, "setParameter", 1, ttlMonitorSleepSecs="x")
    fails_with(13, client.test.command, "setParameter", 1, ttlMonitorSleepSecs=5)
    assert client.admin.command("getParameter", 1, ttlMonitorSleepSecs=1)[
        "ttlMonitorSleepSecs"] == 60


def test_server_status_metrics_and_latencies(client, db):
    before = client.admin.command("serverStatus")
    db.c.insert_many([{"_id": i} for i in range(3)])
    db.c.update_one({"_id": 0}, {"$set": {"x": 1}})
    db.c.delete_many({"_id": {"$in": [1, 2]}})
    list(db.c.find())
    after = client.admin.command("serverStatus")
    document = after["metrics"]["document"]
    assert document["inserted"] - before["metrics"]["document"]["inserted"] == 3
    assert document["updated"] - before["metrics"]["document"]["updated"] == 1
    assert document["deleted"] - before["metrics"]["document"]["deleted"] == 2
    for kind in ("reads", "writes", "commands"):
        assert after["opLatencies"][kind]["ops"] > before["opLatencies"][kind]["ops"]
        assert after["opLatencies"][kind]["latency"] >= before["opLatencies"][kind]["latency"]
    assert "total" in after["metrics"]["cursor"]["open"]
    assert after["metrics"]["cursor"]["timedOut"] >= 0
    assert after["mem"]["resident"] > 0
    assert after["uptimeMillis"] >= 0
    assert after["storageEngine"]["name"] == "rocksdb"
    rocksdb = after["rocksdb"]
    assert rocksdb["block-cache-capacity"] > 0
    assert rocksdb["estimate-num-keys"] >= 0


def test_server_status_counts_returned_documents_examined_work_and_in_memory_sorts(own_server):
    client = pymongo.MongoClient(own_server.uri(), directConnection=True)
    try:
        db = client.t
        db.c.insert_many([{"_id": i, "a": i, "b": i % 7} for i in range(100)])
        db.c.create_index("a")
        before = client.admin.command("serverStatus")["metrics"]
        assert len(list(db.c.find({"a": {"$lt": 10}}, batch_size=4))) == 10  # find + getMores
        assert len(list(db.c.aggregate([{"$match": {"b": 3}}]))) == 14
        assert len(list(db.c.find({"b": 1}).sort("b", -1))) == 15  # sorted in memory
        client.admin.command("fsync", lock=True)  # a write then waits past its maxTimeMS
        with pytest.raises(pymongo.errors.ExecutionTimeout):
            db.command("insert", "c", documents=[{}], maxTimeMS=10)
        client.admin.command("fsyncUnlock")
        after = client.admin.command("serverStatus")["metrics"]
        assert after["document"]["returned"] - before["document"]["returned"] == 10 + 14 + 15
        scanned = after["queryExecutor"]["scanned"] - before["queryExecutor"]["scanned"]
        assert scanned == 10  # the index keys of the first find
        objects = (after["queryExecutor"]["scannedObjects"]
                   - before["queryExecutor"]["scannedObjects"])
        assert objects >= 10 + 100 + 100
        operation = after["operation"]
        assert operation["scanAndOrder"] - before["operation"]["scanAndOrder"] == 1
        assert operation["writeConflicts"] >= 0
        assert (operation["killedDueToMaxTimeMSExpired"]
                - before["operation"]["killedDueToMaxTimeMSExpired"]) == 1
    finally:
        client.close()


def test_open_cursors_are_counted(client, db):
    db.c.insert_many([{"_id": i} for i in range(10)])
    before = client.admin.command("serverStatus")["metrics"]["cursor"]["open"]["total"]
    cursor = db.c.find(batch_size=2)
    next(cursor)
    assert client.admin.command("serverStatus")["metrics"]["cursor"]["open"]["total"] == before + 1
    cursor.close()


def test_profile_reads_and_sets_slowms(own_server):
    client = pymongo.MongoClient(own_server.uri(), directConnection=True)
    try:
        reply = client.test.command("profile", -1)
        assert reply["was"] == 0 and reply["slowms"] == 100 and reply["sampleRate"] == 1.0
        assert client.test.command("profile", 0, slowms=0)["slowms"] == 100
        assert client.test.command("profile", -1)["slowms"] == 0
        client.test.c.insert_one({"x": 1})
        slow = [line for line in own_server.log_tail(200).splitlines() if "Slow query" in line]
        inserts = [json.loads(line) for line in slow if '"insert"' in line]
        assert inserts, slow
        attr = inserts[-1]["attr"]
        assert attr["ns"] == "test.c" and attr["type"] == "command"
        assert attr["command"]["insert"] == "c" and attr["ok"] == 1
        assert attr["durationMillis"] >= 0
        fails_with(2, client.test.command, "profile", 3)
        fails_with(2, client.test.command, "profile", 0, sampleRate=2)
    finally:
        client.close()


def test_fsync_flushes(client, db):
    db.c.insert_one({"x": 1})
    assert client.admin.command("fsync")["numFiles"] == 1
    fails_with(20, client.admin.command, "fsyncUnlock")
    fails_with(13, client.test.command, "fsync")


def test_shutdown_stops_the_server_cleanly(own_server):
    client = pymongo.MongoClient(own_server.uri(), directConnection=True)
    client.test.c.insert_one({"kept": True})
    fails_with(13, client.test.command, "shutdown")
    try:
        client.admin.command("shutdown")
    except pymongo.errors.AutoReconnect:
        pass  # the connection may close before the reply, as with mongod
    finally:
        client.close()
    assert own_server.proc.wait(timeout=30) == 0  # a clean exit, as after SIGTERM
    own_server.start()
    client = pymongo.MongoClient(own_server.uri(), directConnection=True)
    try:
        assert client.test.c.find_one({}, {"_id": 0}) == {"kept": True}
    finally:
        client.close()


def test_profiler_records_operations_in_system_profile(own_server):
    client = pymongo.MongoClient(own_server.uri(), directConnection=True, appname="profiled")
    try:
        db = client.prof
        assert db.command("profile", 2)["was"] == 0
        db.c.insert_many([{"_id": 1}, {"_id": 2}])
        db.c.update_one({"_id": 1}, {"$set": {"x": 1}})
        db.c.delete_one({"_id": 2})
        list(db.c.find({"_id": 1}))
        entries = list(db["system.profile"].find({"ns": "prof.c"}))
        assert [e["op"] for e in entries] == ["insert", "update", "remove", "query"]
        insert, update, remove, query = entries
        assert insert["ninserted"] == 2
        assert update["nMatched"] == 1 and update["nModified"] == 1
        assert remove["ndeleted"] == 1
        assert query["command"]["filter"] == {"_id": 1}
        for entry in entries:
            assert entry["millis"] >= 0 and entry["appName"] == "profiled"
            assert entry["client"] == "127.0.0.1"
            assert "ts" in entry
        newest = db["system.profile"].find().sort("$natural", -1).limit(1).next()
        assert newest["op"] == "query"
        infos = {c["name"]: c for c in db.list_collections()}
        assert infos["system.profile"]["options"]["capped"] is True
        assert db.command("profile", 0)["was"] == 2
        before = len(list(db["system.profile"].find()))
        db.c.insert_one({"_id": 3})
        assert len(list(db["system.profile"].find())) == before
        with pytest.raises(pymongo.errors.OperationFailure):
            db.command("count", "system.profile")
        client.drop_database("prof")
        assert "system.profile" not in client.prof.list_collection_names()
    finally:
        client.close()


def test_profile_and_slow_log_show_what_the_plan_examined(own_server):
    client = pymongo.MongoClient(own_server.uri(), directConnection=True)
    try:
        db = client.plans
        db.c.insert_many([{"_id": i, "a": i, "b": i % 10} for i in range(100)])
        db.c.create_index("a")
        db.command("profile", 2, slowms=-1)
        assert len(list(db.c.find({"a": {"$gte": 10, "$lt": 20}}, batch_size=4))) == 10
        assert len(list(db.c.find({"b": 3}))) == 10
        assert db.c.find_one({"_id": 5}) == {"_id": 5, "a": 5, "b": 5}
        assert len(list(db.c.find({"b": 1}).sort("b", 1))) == 10
        db.c.update_many({"a": {"$lt": 5}}, {"$set": {"u": 1}})
        assert len(list(db.c.aggregate([{"$match": {"a": {"$lt": 3}}}]))) == 3
        entries = list(db["system.profile"].find({"ns": "plans.c"}))
        ops = [(e["op"], e.get("planSummary")) for e in entries]
        assert ops == [("query", "IXSCAN { a: 1 }"), ("getmore", "IXSCAN { a: 1 }"),
                       ("getmore", "IXSCAN { a: 1 }"),
                       ("query", "COLLSCAN"), ("query", "IDHACK"), ("query", "COLLSCAN"),
                       ("update", "IXSCAN { a: 1 }"), ("command", "IXSCAN { a: 1 }")], ops
        ixscan, more1, more2, collscan, idhack, sorted_scan, update, aggregate = entries
        # The first batch examined one key and record past its 4 (kept for the next batch).
        assert (ixscan["keysExamined"], ixscan["docsExamined"], ixscan["nreturned"]) == (5, 5, 4)
        assert more1["nreturned"] == 4 and more2["nreturned"] == 2
        explained = db.c.find({"a": {"$gte": 10, "$lt": 20}}).explain()["executionStats"]
        assert (ixscan["keysExamined"] + more1["keysExamined"] + more2["keysExamined"]
                == explained["totalKeysExamined"] == 10)
        assert (ixscan["docsExamined"] + more1["docsExamined"] + more2["docsExamined"]
                == explained["totalDocsExamined"] == 10)
        assert (collscan["keysExamined"], collscan["docsExamined"]) == (0, 100)
        assert collscan["nreturned"] == 10 and "hasSortStage" not in collscan
        assert idhack["nreturned"] == 1 and idhack["docsExamined"] == 1
        assert sorted_scan["hasSortStage"] is True
        assert (update["keysExamined"], update["docsExamined"]) == (5, 5)
        assert update["nMatched"] == 5 and "nreturned" not in update
        assert aggregate["nreturned"] == 3 and aggregate["keysExamined"] == 3
        db.command("profile", 0)
        slow = [json.loads(line) for line in own_server.log_tail(400).splitlines()
                if "Slow query" in line and '"plans.c"' in line and '"find"' in line]
        attr = [line["attr"] for line in slow if '"b":3' in json.dumps(line["attr"]["command"],
                                                                       separators=(",", ":"))]
        assert attr, slow
        assert attr[-1]["planSummary"] == "COLLSCAN"
        assert (attr[-1]["keysExamined"], attr[-1]["docsExamined"]) == (0, 100)
        assert attr[-1]["nreturned"] == 10
    finally:
        client.close()


def test_profiler_level_one_keeps_slow_operations_only(own_server):
    client = pymongo.MongoClient(own_server.uri(), directConnection=True)
    try:
        db = client.prof1
        db.command("profile", 1, slowms=100000)
        db.c.insert_one({"_id": 1})
        assert list(db["system.profile"].find({"ns": "prof1.c"})) == []
        db.command("profile", 1, slowms=-1)
        db.c.insert_one({"_id": 2})
        entries = list(db["system.profile"].find({"ns": "prof1.c"}))
        assert [(e["op"], e["command"]["insert"], e["ninserted"]) for e in entries] == [
            ("insert", "c", 1)]
    finally:
        client.close()
