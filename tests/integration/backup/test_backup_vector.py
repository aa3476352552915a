"""A backup of a server with a vector search index: the restored server answers $vectorSearch
for the backup's documents, from the index's snapshot when that is older than the backup, and
rebuilt from the collection when it is newer."""

import os
import random
import shutil
import time

import pymongo

from quarry_server import CLIENT_OPTIONS

DIMS = 4


def _ready(db):
    deadline = time.monotonic() + 60  # a guard against a build that never ends
    while time.monotonic() < deadline:
        found = list(db.items.aggregate([{"$listSearchIndexes": {"name": "vi"}}]))
        if found and found[0]["status"] == "READY":
            return
        time.sleep(0.05)
    raise AssertionError("the search index never became READY")


def _nearest(db, query):
    _ready(db)
    stage = {"index": "vi", "path": "v", "queryVector": query, "limit": 5, "exact": True}
    return [d["_id"] for d in db.items.aggregate([{"$vectorSearch": stage}])]


def _count(server, words):
    with open(server.log_path, encoding="utf-8", errors="replace") as log:
        return sum(words in line for line in log)


def test_backup_restores_vector_search_as_of_its_moment(make_server, tmp_path):
    rng = random.Random(5)
    source = make_server("backup-vector")
    client = pymongo.MongoClient(source.uri(), **CLIENT_OPTIONS)
    db = client.vec
    db.items.insert_many([{"_id": i, "v": [rng.uniform(-1, 1) for _ in range(DIMS)]}
                          for i in range(200)])
    db.command({"createSearchIndexes": "items", "indexes": [{"name": "vi", "type": "vectorSearch", "definition": {
        "fields": [{"type": "vector", "path": "v", "numDimensions": DIMS,
                    "similarity": "euclidean"}]}}]})
    _ready(db)
    client.close()
    source.restart()  # a clean stop writes the index's snapshot
    client = pymongo.MongoClient(source.uri(), **CLIENT_OPTIONS)
    db = client.vec
    query = [0.5] * DIMS
    db.items.insert_one({"_id": "in-backup", "v": query})  # after the snapshot, before the backup
    backup = str(tmp_path / "backup")
    client.admin.command({"createBackup": 1, "backupDir": backup})
    assert os.listdir(os.path.join(backup, "search_indexes"))
    db.items.insert_one({"_id": "after-backup", "v": query})
    expected = _nearest(db, query)
    assert expected[:2] in (["in-backup", "after-backup"], ["after-backup", "in-backup"])
    client.close()

    restored = make_server("backup-vector-restored", dbpath=backup)
    with pymongo.MongoClient(restored.uri(), **CLIENT_OPTIONS) as restored_client:
        found = _nearest(restored_client.vec, query)
    assert found[0] == "in-backup" and "after-backup" not in found
    others = [i for i in expected if i not in ("in-backup", "after-backup")]
    assert found[1:1 + len(others)] == others
    assert _count(restored, "Loaded a search index from its snapshot") == 1
    restored.stop()

    # The source's newer snapshot (it holds "after-backup") put into the backup is not used.
    source.stop()
    newer_backup = str(tmp_path / "newer")
    shutil.copytree(backup, newer_backup)
    for name in os.listdir(os.path.join(source.dbpath, "search_indexes")):
        shutil.copy(os.path.join(source.dbpath, "search_indexes", name),
                    os.path.join(newer_backup, "search_indexes", name))
    mixed = make_server("backup-vector-newer", dbpath=newer_backup)
    with pymongo.MongoClient(mixed.uri(), **CLIENT_OPTIONS) as mixed_client:
        assert _nearest(mixed_client.vec, query)[0] == "in-backup"
        assert "after-backup" not in _nearest(mixed_client.vec, query)
    assert _count(mixed, "newer than the oplog's last entry") == 1
