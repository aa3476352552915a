"""Dropping a collection or an index gives its disk space back once the snapshot history
(minSnapshotHistoryWindowInSeconds) no longer reaches back before the drop, as mongod removes a
dropped collection's files: the table files RocksDB keeps are measured through serverStatus."""

import random
import time

import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS

WINDOW_SECONDS = 1


def live_sst_bytes(client):
    return client.admin.command("serverStatus")["rocksdb"]["live-sst-files-size"]


def steady_live_sst_bytes(client, seconds=30):
    """live-sst-files-size once it stops changing (compactions have finished)."""
    deadline = time.monotonic() + seconds
    last = live_sst_bytes(client)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = live_sst_bytes(client)
        if now == last:
            return now
        last = now
    return last


def wait_until_below(client, limit, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if live_sst_bytes(client) < limit:
            return True
        time.sleep(0.2)
    return False


@pytest.fixture
def client(make_server, request):
    server = make_server(request.node.name, extra_args=[
        "--setParameter", f"minSnapshotHistoryWindowInSeconds={WINDOW_SECONDS}"])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        # ~40 MB of barely compressible documents, flushed to table files.
        rng = random.Random(7)
        for start in range(0, 40_000, 2_000):
            c.t.big.insert_many([{"_id": i, "k": i, "blob": rng.randbytes(1_000)}
                                 for i in range(start, start + 2_000)])
        c.admin.command("fsync")
        yield c
    server.stop()


def test_dropping_a_collection_gives_its_space_back(client):
    before = steady_live_sst_bytes(client)
    client.t.big.drop()
    # The records' 40 MB go (the oplog keeps its entries of the inserts). Without a compaction
    # of the dropped range, they would stay until a later write's compaction reached them.
    assert wait_until_below(client, before - 35_000_000), (before, live_sst_bytes(client))


def test_dropping_indexes_gives_their_space_back(client):
    client.t.big.create_index("k")
    client.t.big.create_index([("k", -1), ("_id", 1)])
    client.admin.command("fsync")
    with_indexes = steady_live_sst_bytes(client)
    client.t.big.drop_index("k_1")
    client.t.big.drop_index("k_-1__id_1")
    time.sleep(WINDOW_SECONDS + 2)
    after = steady_live_sst_bytes(client)
    # The keys of 40,000 records in two indexes (over 1 MB) go; the records stay.
    assert with_indexes - after > 1_000_000, (with_indexes, after)
    assert client.t.big.count_documents({}) == 40_000


def test_get_parameter_shows_the_window(client):
    reply = client.admin.command("getParameter", 1, minSnapshotHistoryWindowInSeconds=1)
    assert reply["minSnapshotHistoryWindowInSeconds"] == WINDOW_SECONDS


def test_the_window_is_a_start_up_parameter_checked_as_mongod_checks_it(make_server):
    with pytest.raises(Exception) as failed:
        make_server("bad-window", extra_args=[
            "--setParameter", "minSnapshotHistoryWindowInSeconds=-1"])
    assert "minSnapshotHistoryWindowInSeconds" in str(failed.value)
