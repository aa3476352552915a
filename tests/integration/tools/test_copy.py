"""`quarry copy` between two real quarryd servers: collections with their options, indexes and
documents, the closing report of counts on both sides, --follow applying the source's changes
(made during and after the copy) until SIGTERM, and a restart resuming from the saved token with
the changes made while it was stopped.

The tool is the `quarry_tool` fixture (tests/integration/conftest.py).
"""

import hashlib
import signal
import subprocess
import threading
import time

import pymongo
import pytest
from bson import encode

from quarry_server import free_port

RUN_TIMEOUT_S = 120
CONVERGE_TIMEOUT_S = 30


@pytest.fixture
def two_servers(make_server, request):
    source = make_server("copy-source-" + request.node.name)
    target = make_server("copy-target-" + request.node.name)
    clients = (pymongo.MongoClient(source.uri()), pymongo.MongoClient(target.uri()))
    yield source, target, clients[0], clients[1]
    for c in clients:
        c.close()
    source.stop()
    target.stop()


def content_hash(collection):
    digest = hashlib.sha256()
    for doc in collection.find().sort("_id", 1):
        digest.update(encode(doc))
    return digest.hexdigest()


def wait_until_equal(source, target):
    deadline = time.monotonic() + CONVERGE_TIMEOUT_S
    while time.monotonic() < deadline:
        if content_hash(source) == content_hash(target):
            return
        time.sleep(0.2)
    assert content_hash(source) == content_hash(target), "the target never caught up"


def test_copy_brings_collections_with_options_and_indexes(quarry_tool, two_servers):
    source, target, a, b = two_servers
    a.shop.create_collection("people", collation={"locale": "fr", "strength": 2})
    a.shop.people.insert_many([{"_id": i, "name": "n%d" % i} for i in range(500)])
    a.shop.orders.insert_many([{"_id": i, "total": i} for i in range(7000)])
    a.shop.orders.create_index("total", unique=True, name="total_unique")
    a.other.things.insert_one({"_id": 1})
    result = subprocess.run([quarry_tool, "copy", "--from", source.uri(), "--to", target.uri(),
                             "-d", "shop", "-j", "2", "--batchSize", "300"],
                            capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert "shop.orders: 7000 on the source, 7000 on the target" in lines
    assert "shop.people: 500 on the source, 500 on the target" in lines
    assert lines[-1] == "copied 7500 documents, 0 failed; applied 0 changes"
    for name in ["people", "orders"]:
        assert content_hash(b.shop[name]) == content_hash(a.shop[name])
    assert "total_unique" in b.shop.orders.index_information()
    assert b.shop.orders.index_information()["total_unique"]["unique"] is True
    assert b.shop.people.options()["collation"]["locale"] == "fr"
    assert "other" not in b.list_database_names()


def test_a_large_collection_is_copied_in_parallel_id_ranges(quarry_tool, two_servers):
    source, target, a, b = two_servers
    # ObjectIds: the ranges split them by value, in _id order.
    a.big.items.insert_many([{"i": i, "pad": "x" * (i % 50)} for i in range(35000)])
    a.big.items.create_index("i", unique=True)
    result = subprocess.run([quarry_tool, "copy", "--from", source.uri(), "--to", target.uri(),
                             "-d", "big", "--numParallelRanges", "3", "--batchSize", "500"],
                            capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert "copying big.items in 3 _id ranges at once" in lines
    assert "big.items: 35000 on the source, 35000 on the target" in lines
    assert content_hash(b.big.items) == content_hash(a.big.items)
    assert b.big.items.index_information()["i_1"]["unique"] is True


def test_mixed_type_ids_are_copied_by_one_reader(quarry_tool, two_servers):
    source, target, a, b = two_servers
    # Numbers sort before strings: a range of numbers would leave the strings out.
    a.mixed.items.insert_many([{"_id": i} for i in range(30000)] +
                              [{"_id": "s%d" % i} for i in range(10)])
    result = subprocess.run([quarry_tool, "copy", "--from", source.uri(), "--to", target.uri(),
                             "-d", "mixed", "--numParallelRanges", "3"],
                            capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    assert "_id ranges" not in result.stderr
    assert "mixed.items: 30010 on the source, 30010 on the target" in result.stderr
    assert content_hash(b.mixed.items) == content_hash(a.mixed.items)


def test_follow_applies_changes_and_resumes_after_a_restart(quarry_tool, two_servers, tmp_path):
    source, target, a, b = two_servers
    live = a.app.live
    live.insert_many([{"_id": i, "n": 0} for i in range(3000)])
    token_file = tmp_path / "copy.token"
    command = [quarry_tool, "copy", "--from", source.uri(), "--to", target.uri(), "-d", "app",
               "--follow", "--resume-token-file", str(token_file)]

    stop_writing = threading.Event()

    def writer():
        i = 0
        while not stop_writing.is_set():
            live.insert_one({"_id": 10000 + i, "n": i})
            live.update_one({"_id": i % 3000}, {"$inc": {"n": 1}})
            if i % 10 == 0:
                live.delete_one({"_id": (i * 7) % 3000})
            i += 1

    copier = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(2)
    stop_writing.set()
    thread.join()
    wait_until_equal(live, b.app.live)
    copier.send_signal(signal.SIGTERM)
    stderr = copier.communicate(timeout=RUN_TIMEOUT_S)[1]
    assert copier.returncode == 0, stderr
    assert "following the source's changes" in stderr
    count = live.count_documents({})
    assert f"app.live: {count} on the source, {count} on the target" in stderr
    assert token_file.exists()

    # Changes while no copier runs are applied by the next one, without copying again.
    live.insert_one({"_id": "while-stopped"})
    live.update_one({"_id": 5}, {"$set": {"late": True}})
    live.delete_one({"_id": 6})
    copier = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_until_equal(live, b.app.live)
    copier.send_signal(signal.SIGINT)
    stderr = copier.communicate(timeout=RUN_TIMEOUT_S)[1]
    assert copier.returncode == 0, stderr
    assert "resuming from" in stderr
    assert "copied 0 documents" in stderr
    assert b.app.live.find_one({"_id": "while-stopped"}) is not None


def test_bad_arguments_and_unreachable_servers(quarry_tool, server):
    result = subprocess.run([quarry_tool, "copy", "--from", server.uri()], capture_output=True,
                            text=True, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 2
    result = subprocess.run([quarry_tool, "copy", "--from", server.uri(), "--to", server.uri(),
                             "--resume-token-file", "/tmp/x"], capture_output=True, text=True,
                            timeout=RUN_TIMEOUT_S)
    assert result.returncode == 2 and "--resume-token-file is for --follow" in result.stderr
    dead = f"mongodb://127.0.0.1:{free_port()}/?serverSelectionTimeoutMS=500"
    result = subprocess.run([quarry_tool, "copy", "--from", dead, "--to", server.uri()],
                            capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 1 and result.stderr.startswith("quarry copy: --from: ")
