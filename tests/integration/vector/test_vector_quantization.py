"""Quantized vector indexes (`quantization: "scalar" | "binary"`) against a real quarryd: the
graph is searched on compact codes, the results are rescored with the full-precision vectors,
and exact search, scores, restarts and the definition all behave as for an unquantized index."""
import math
import os
import random

import pymongo
import pytest
from pymongo.errors import OperationFailure

from test_vector_search import create_index, list_indexes, score, search, wait_ready

COUNT = 3000
DIMS = 48
QUERIES = 20


def quantized_fields(quantization, similarity="cosine", dims=DIMS):
    return {"fields": [{"type": "vector", "path": "embedding", "numDimensions": dims,
                        "similarity": similarity, "quantization": quantization}]}


def random_vectors(seed, count, dims=DIMS):
    rng = random.Random(seed)
    return [[rng.uniform(-1, 1) for _ in range(dims)] for _ in range(count)]


def brute_force(similarity, vectors, q, k):
    ranked = sorted(range(len(vectors)), key=lambda i: -score(similarity, q, vectors[i]))
    return ranked[:k]


def load(db, quantization, similarity):
    vectors = random_vectors(1, COUNT)
    db.items.insert_many([{"_id": i, "embedding": v} for i, v in enumerate(vectors)])
    create_index(db, "items", quantized_fields(quantization, similarity))
    wait_ready(db, "items", timeout=60)
    return vectors


@pytest.mark.parametrize("quantization,similarity,min_recall", [
    ("scalar", "cosine", 0.9),
    ("scalar", "euclidean", 0.9),
    ("binary", "cosine", 0.8),  # one bit per dimension: 0.845 measured on these vectors
])
def test_a_quantized_index_finds_the_nearest_with_full_precision_scores(
        db, quantization, similarity, min_recall):
    vectors = load(db, quantization, similarity)
    queries = random_vectors(2, QUERIES)
    found = 0
    for q in queries:
        hits = search(db, "items", q, 10, num_candidates=200)
        assert len(hits) == 10
        for hit in hits:  # rescored: the score of the stored vector, not of its code
            assert hit["score"] == pytest.approx(score(similarity, q, vectors[hit["_id"]]),
                                                 abs=1e-6)
        assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
        found += len({h["_id"] for h in hits} & set(brute_force(similarity, vectors, q, 10)))
        exact = search(db, "items", q, 10, exact=True)
        assert [h["_id"] for h in exact] == brute_force(similarity, vectors, q, 10)
        for hit in exact:
            assert hit["score"] == pytest.approx(score(similarity, q, vectors[hit["_id"]]),
                                                 abs=1e-6)
    assert found / (10 * QUERIES) >= min_recall


def test_the_definition_is_listed_as_given(db):
    db.create_collection("items")
    create_index(db, "items", quantized_fields("binary"))
    listed = wait_ready(db, "items")
    assert listed["latestDefinition"]["fields"][0]["quantization"] == "binary"


@pytest.mark.parametrize("value", ["int8", "", 1, None])
def test_an_unknown_quantization_is_bad_value_naming_the_field(db, value):
    db.create_collection("items")
    definition = quantized_fields("scalar")
    definition["fields"][0]["quantization"] = value
    with pytest.raises(OperationFailure) as err:
        create_index(db, "items", definition)
    assert err.value.code == 2
    assert "fields[0].quantization" in str(err.value)
    assert list_indexes(db, "items") == []


def file_mappings(pid, directory):
    """The mappings of `pid` whose file lies in `directory` (an unnamed file shows its
    directory, then "(deleted)" or a #inode name)."""
    with open(f"/proc/{pid}/maps", encoding="utf-8") as maps:
        return [line for line in maps if directory in line]


def test_quantized_answers_survive_a_clean_restart_and_a_crash(own_server):
    server = own_server
    vectors = random_vectors(3, COUNT)
    queries = random_vectors(4, 5)
    with pymongo.MongoClient(server.uri()) as client:
        db = client.v
        db.items.insert_many([{"_id": i, "embedding": v} for i, v in enumerate(vectors)])
        create_index(db, "items", quantized_fields("scalar"))
        wait_ready(db, "items", timeout=60)
        before = [search(db, "items", q, 10, num_candidates=150) for q in queries]
        exact_before = [search(db, "items", q, 10, exact=True) for q in queries]
    # The full-precision vectors are a file mapping under the snapshot directory.
    assert file_mappings(server.pid, os.path.join(server.dbpath, "search_indexes"))
    for crash in (False, True, False):
        server.restart(crash=crash)
        with pymongo.MongoClient(server.uri()) as client:
            db = client.v
            wait_ready(db, "items", timeout=60)
            assert [search(db, "items", q, 10, num_candidates=150) for q in queries] == before
            assert [search(db, "items", q, 10, exact=True) for q in queries] == exact_before
    snapshots = [name for name in os.listdir(os.path.join(server.dbpath, "search_indexes"))]
    assert len(snapshots) == 1 and snapshots[0].endswith(".snapshot")


def test_a_snapshot_of_the_previous_format_is_rebuilt_not_read(own_server):
    import struct
    import zlib
    from test_vector_search import log_count
    server = own_server
    vectors = random_vectors(5, 500)
    q = random_vectors(6, 1)[0]
    with pymongo.MongoClient(server.uri()) as client:
        db = client.v
        db.items.insert_many([{"_id": i, "embedding": v} for i, v in enumerate(vectors)])
        create_index(db, "items", quantized_fields("binary"))
        wait_ready(db, "items")
        before = search(db, "items", q, 10, num_candidates=100)
    server.stop()  # a clean shutdown writes the snapshot
    directory = os.path.join(server.dbpath, "search_indexes")
    [name] = os.listdir(directory)
    path = os.path.join(directory, name)
    with open(path, "rb") as f:
        data = f.read()
    # magic, payload length, payload (its format version first), CRC-32 of all before it
    head, payload = data[:16], bytearray(data[16:-4])
    [version] = struct.unpack("<I", payload[:4])
    assert version >= 2
    payload[:4] = struct.pack("<I", version - 1)
    body = head + bytes(payload)
    with open(path, "wb") as f:
        f.write(body + struct.pack("<I", zlib.crc32(body)))
    server.start()
    with pymongo.MongoClient(server.uri()) as client:
        wait_ready(client.v, "items")
        assert search(client.v, "items", q, 10, num_candidates=100) == before
    assert log_count(server, "another snapshot format") == 1
    assert log_count(server, "Loaded a search index from its snapshot") == 0
