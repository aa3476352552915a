"""compact rewrites a collection's records and index keys without what deletes left behind and
answers the bytes given back, as mongod's does on a replica set primary with force: true;
reIndex is refused as on any replica set member."""

import random
import time

import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS

WINDOW_SECONDS = 1


@pytest.fixture
def client(make_server, request):
    # A short snapshot history, so that what the deletes left is not kept for past reads.
    server = make_server(request.node.name, extra_args=[
        "--setParameter", f"minSnapshotHistoryWindowInSeconds={WINDOW_SECONDS}"])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        yield c
    server.stop()


def storage_size(db, name):
    return db.command("collStats", name)["storageSize"]


def test_compact_gives_back_the_space_of_deleted_documents(client):
    db = client.t_compact
    db.docs.create_index("k")
    rng = random.Random(11)
    for start in range(0, 20_000, 2_000):
        db.docs.insert_many([{"_id": i, "k": i, "blob": rng.randbytes(1_000)}
                             for i in range(start, start + 2_000)])
    client.admin.command("fsync")
    db.docs.delete_many({"_id": {"$lt": 18_000}})
    before = storage_size(db, "docs")
    time.sleep(WINDOW_SECONDS + 1)  # the deletes are past the snapshot history

    reply = db.command({"compact": "docs", "force": True})

    assert reply["ok"] == 1.0
    # ~18 MB of incompressible records went, and their index keys.
    assert reply["bytesFreed"] > 10_000_000, reply
    after = storage_size(db, "docs")
    assert after < before / 4, (before, after)
    # What is left reads back whole, through the index too.
    assert db.docs.count_documents({}) == 2_000
    assert db.docs.count_documents({"k": {"$gte": 19_000}}) == 1_000
    assert [d["_id"] for d in db.docs.find({"k": {"$lt": 18_002}}).hint("k_1")] == [18_000, 18_001]


def test_compact_runs_while_writes_go_on(client):
    db = client.t_compact
    db.live.insert_many([{"_id": i} for i in range(1_000)])
    db.command({"compact": "live", "force": True})
    db.live.insert_one({"_id": 1_000})
    assert db.live.count_documents({}) == 1_001


def test_compact_answers_mongods_errors(client):
    db = client.t_compact
    db.c.insert_one({"_id": 1})
    cases = [
        ({"compact": "c"}, 20),  # a primary needs force: true
        ({"compact": "missing", "force": True}, 26),
        ({"compact": 5, "force": True}, 73),
        ({"compact": "system.views", "force": True}, 73),
        ({"compact": "c", "force": True, "dryRun": True}, 238),
        ({"compact": "c", "force": True, "freeSpaceTargetMB": 1}, 238),
        ({"compact": "c", "force": True, "paddingFactor": 1.1}, 40415),
    ]
    for command, code in cases:
        with pytest.raises(pymongo.errors.OperationFailure) as failure:
            db.command(command)
        assert failure.value.code == code, (command, failure.value.details)
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.local.command({"compact": "oplog.rs", "force": True})
    assert failure.value.code == 238


def test_reindex_is_refused_on_a_replica_set_member(client):
    db = client.t_compact
    db.c.insert_one({"_id": 1})
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        db.command({"reIndex": "c"})
    assert failure.value.code == 20
    assert "reIndex is only allowed on a standalone mongod instance" in str(failure.value)
    assert "'t_compact.c'" in str(failure.value)
