"""Blocking stages past their memory limits: $sort, $group and find's sort spill to
<dbpath>/_tmp with allowDiskUse and answer exactly as in memory; without it they fail with 292.

The server runs with small limits (--setParameter internalQueryMaxBlockingSortMemoryUsageBytes
and internalDocumentSourceGroupMaxMemoryBytes), so a few hundred kilobytes of data spill."""

import os

import pymongo
import pytest
from pymongo.errors import OperationFailure

from quarry_server import CLIENT_OPTIONS

SORT_LIMIT = 64 * 1024
GROUP_LIMIT = 16 * 1024
NAMES = ["ann", "Ann", "bob", "BOB", "cy", "Cy"]
N_DOCS = 3000


def make_doc(i):
    doc = {"_id": i, "g": i % 50, "v": (i * 7919) % 1000, "name": NAMES[i % 6], "pad": "x" * 150}
    if i % 4:
        doc["m"] = i
    return doc


DOCS = [make_doc(i) for i in range(N_DOCS)]


@pytest.fixture(scope="module")
def spill_server(make_server):
    server = make_server("disk-spill", extra_args=[
        "--setParameter", f"internalQueryMaxBlockingSortMemoryUsageBytes={SORT_LIMIT}",
        "--setParameter", f"internalDocumentSourceGroupMaxMemoryBytes={GROUP_LIMIT}"])
    yield server
    server.stop()


@pytest.fixture(scope="module")
def coll(spill_server):
    client = pymongo.MongoClient(spill_server.uri(), **CLIENT_OPTIONS)
    c = client.spilldb.docs
    c.insert_many(DOCS)
    yield c
    client.close()


def spill_files(server):
    tmp = os.path.join(server.dbpath, "_tmp")
    return sorted(os.listdir(tmp)) if os.path.isdir(tmp) else []


def sort_ids(key, reverse=False):
    # A stable sort of the collection's _id order, as the server's is.
    return [d["_id"] for d in sorted(DOCS, key=key, reverse=reverse)]


def test_sort_past_the_limit_fails_with_292_without_allow_disk_use(coll):
    with pytest.raises(OperationFailure) as err:
        list(coll.aggregate([{"$sort": {"v": 1}}]))
    assert err.value.code == 292
    assert err.value.details["codeName"] == "QueryExceededMemoryLimitNoDiskUseAllowed"


def test_sort_spills_and_gives_the_stable_in_memory_order(coll, spill_server):
    got = [d["_id"] for d in coll.aggregate([{"$sort": {"v": 1}}], allowDiskUse=True)]
    assert got == sort_ids(lambda d: d["v"])
    got = [d["_id"] for d in coll.aggregate([{"$sort": {"g": -1, "v": 1}}], allowDiskUse=True)]
    assert got == [d["_id"] for d in sorted(DOCS, key=lambda d: (-d["g"], d["v"]))]
    assert spill_files(spill_server) == []


def test_sort_with_limit_keeps_the_first_documents(coll):
    got = [d["_id"] for d in coll.aggregate([{"$sort": {"v": -1}}, {"$limit": 25}],
                                            allowDiskUse=True)]
    assert got == [d["_id"] for d in sorted(DOCS, key=lambda d: -d["v"])][:25]


def test_find_sort_spills_with_allow_disk_use(coll, spill_server):
    with pytest.raises(OperationFailure) as err:
        list(coll.find().sort("v", 1))
    assert err.value.code == 292
    got = [d["_id"] for d in coll.find({}, {"v": 1}).sort("v", 1).allow_disk_use(True)]
    assert got == sort_ids(lambda d: d["v"])
    assert spill_files(spill_server) == []


def expected_groups():
    groups = {}
    for d in DOCS:
        g = groups.setdefault(d["g"], {"_id": d["g"], "sum": 0, "n": 0, "vs": [], "names": [],
                                      "first": d.get("m"), "last": None, "max": None})
        g["sum"] += d["v"]
        g["n"] += 1
        g["vs"].append(d["v"])
        if d["name"] not in g["names"]:
            g["names"].append(d["name"])
        g["last"] = d.get("m")
        if "m" in d and (g["max"] is None or d["m"] > g["max"]):
            g["max"] = d["m"]
    for g in groups.values():
        g["avg"] = g["sum"] / g["n"]
        g["min"] = min(g["vs"])
    return groups


GROUP = {"$group": {"_id": "$g", "sum": {"$sum": "$v"}, "n": {"$count": {}},
                    "avg": {"$avg": "$v"}, "min": {"$min": "$v"}, "max": {"$max": "$m"},
                    "first": {"$first": "$m"}, "last": {"$last": "$m"}, "vs": {"$push": "$v"},
                    "names": {"$addToSet": "$name"}}}


def test_group_past_the_limit_fails_with_292_without_allow_disk_use(coll):
    with pytest.raises(OperationFailure) as err:
        list(coll.aggregate([GROUP]))
    assert err.value.code == 292


def test_group_spills_and_gives_the_in_memory_answer(coll, spill_server):
    got = {d["_id"]: d for d in coll.aggregate([GROUP], allowDiskUse=True)}
    expected = expected_groups()
    assert sorted(got) == sorted(expected)
    for key, want in expected.items():
        have = got[key]
        for field in ("sum", "n", "avg", "min", "max", "first", "last", "vs"):
            assert have[field] == want[field], (key, field)
        assert sorted(have["names"]) == sorted(want["names"])
    assert spill_files(spill_server) == []


def test_collated_group_and_sort_spill_by_the_collation(coll):
    collation = {"locale": "en", "strength": 2}
    got = {d["_id"].lower(): d["n"] for d in coll.aggregate(
        [{"$group": {"_id": "$name", "n": {"$sum": 1}, "pads": {"$push": "$pad"}}},
         {"$project": {"n": 1}}], allowDiskUse=True, collation=collation)}
    assert got == {"ann": 1000, "bob": 1000, "cy": 1000}
    got = [d["_id"] for d in coll.aggregate([{"$sort": {"name": 1}}], allowDiskUse=True,
                                            collation=collation)]
    assert got == sort_ids(lambda d: d["name"].lower())


def find_stage(plan, name):
    if isinstance(plan, dict):
        if plan.get("stage") == name:
            return plan
        for value in plan.values():
            found = find_stage(value, name)
            if found:
                return found
    if isinstance(plan, list):
        for value in plan:
            found = find_stage(value, name)
            if found:
                return found
    return None


def test_explain_shows_used_disk(coll):
    db = coll.database
    explained = db.command("explain", {"aggregate": coll.name, "pipeline": [GROUP],
                                       "cursor": {}, "allowDiskUse": True},
                           verbosity="executionStats")
    group = [s for s in explained["stages"] if "$group" in s][0]
    assert group["usedDisk"] is True
    assert group["spills"] > 0 and group["spilledDataStorageSize"] > 0
    assert group["spilledRecords"] > 0
    explained = db.command("explain", {"aggregate": coll.name, "pipeline": [
        {"$sort": {"v": 1}}], "cursor": {}, "allowDiskUse": True}, verbosity="executionStats")
    sort = [s for s in explained["stages"] if "$sort" in s][0]
    assert sort["usedDisk"] is True and sort["spills"] > 0
    explained = db.command("explain", {"find": coll.name, "sort": {"v": 1},
                                       "allowDiskUse": True}, verbosity="executionStats")
    sort = find_stage(explained["executionStats"]["executionStages"], "SORT")
    assert sort["usedDisk"] is True and sort["spills"] > 0
    explained = db.command("explain", {"find": coll.name, "sort": {"v": 1}, "limit": 5},
                           verbosity="executionStats")
    sort = find_stage(explained["executionStats"]["executionStages"], "SORT")
    assert sort["usedDisk"] is False and sort["spills"] == 0


def test_server_status_counts_spills(coll):
    db = coll.database
    before = db.command("serverStatus")["metrics"]["query"]
    list(coll.aggregate([GROUP], allowDiskUse=True))
    list(coll.aggregate([{"$sort": {"v": 1}}], allowDiskUse=True))
    after = db.command("serverStatus")["metrics"]["query"]
    assert after["group"]["spills"] > before["group"]["spills"]
    assert after["group"]["spilledRecords"] > before["group"]["spilledRecords"]
    assert after["sort"]["spillToDisk"] > before["sort"]["spillToDisk"]


def test_a_killed_cursor_removes_its_runs(coll, spill_server):
    cursor = coll.aggregate([{"$sort": {"v": 1}}], allowDiskUse=True, batchSize=10)
    next(cursor)
    assert spill_files(spill_server) != []  # the merge reads the runs batch by batch
    cursor.close()  # killCursors
    assert spill_files(spill_server) == []

    cursor = coll.find().sort("v", 1).allow_disk_use(True).batch_size(10)
    next(cursor)
    assert spill_files(spill_server) != []
    cursor.close()
    assert spill_files(spill_server) == []

    cursor = coll.aggregate([GROUP], allowDiskUse=True, batchSize=2)
    next(cursor)
    assert spill_files(spill_server) != []
    cursor.close()
    assert spill_files(spill_server) == []


def test_the_spill_directory_is_private(coll, spill_server):
    cursor = coll.aggregate([{"$sort": {"v": 1}}], allowDiskUse=True, batchSize=10)
    next(cursor)
    tmp = os.path.join(spill_server.dbpath, "_tmp")
    assert os.stat(tmp).st_mode & 0o777 == 0o700
    for name in spill_files(spill_server):
        assert os.stat(os.path.join(tmp, name)).st_mode & 0o777 == 0o600
    cursor.close()


def test_stale_runs_are_removed_at_start_up(make_server):
    server = make_server("disk-spill-stale")
    server.stop()
    tmp = os.path.join(server.dbpath, "_tmp")
    os.makedirs(tmp, exist_ok=True)
    with open(os.path.join(tmp, "run-left-by-a-crash"), "wb") as f:
        f.write(b"\x05\x00\x00\x00\x00")
    server.start()
    assert os.listdir(tmp) == []
    server.stop()


def test_a_bad_limit_is_refused_at_start_up(make_server):
    server = make_server("disk-spill-bad", start=False,
                         extra_args=["--setParameter",
                                     "internalDocumentSourceGroupMaxMemoryBytes=lots"])
    with pytest.raises(RuntimeError):
        server.start()
