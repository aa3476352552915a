"""Atlas Vector Search's API against a real quarryd: search-index commands, $listSearchIndexes
and $vectorSearch, checked against brute force computed here."""
import math
import random
import re
import time

import pytest
from pymongo.errors import OperationFailure

DIMS = 8


def rand_vector(rng, dims=DIMS):
    return [rng.uniform(-1, 1) for _ in range(dims)]


def normalized(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def score(similarity, q, v):
    if similarity == "euclidean":
        return 1 / (1 + sum((a - b) ** 2 for a, b in zip(q, v)))
    dot = sum(a * b for a, b in zip(q, v))
    if similarity == "cosine":
        dot /= math.sqrt(sum(a * a for a in q)) * math.sqrt(sum(b * b for b in v))
    return (1 + dot) / 2


def create_index(db, coll, definition, name="vector_index", type_="vectorSearch"):
    reply = db.command({"createSearchIndexes": coll,
                        "indexes": [{"name": name, "type": type_, "definition": definition}]})
    return reply["indexesCreated"][0]


def list_indexes(db, coll, **selector):
    return list(db[coll].aggregate([{"$listSearchIndexes": selector}]))


def wait_ready(db, coll, name="vector_index", timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = list_indexes(db, coll, name=name)
        if found and found[0]["status"] == "READY":
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"search index {name} not READY: {list_indexes(db, coll)}")


def vector_fields(path="embedding", similarity="cosine", dims=DIMS, filters=()):
    fields = [{"type": "vector", "path": path, "numDimensions": dims, "similarity": similarity}]
    fields += [{"type": "filter", "path": p} for p in filters]
    return {"fields": fields}


def search(db, coll, query, limit, num_candidates=None, exact=False, filter_=None,
           index="vector_index", path="embedding", extra=()):
    stage = {"index": index, "path": path, "queryVector": query, "limit": limit}
    if exact:
        stage["exact"] = True
    if num_candidates is not None:
        stage["numCandidates"] = num_candidates
    if filter_ is not None:
        stage["filter"] = filter_
    pipeline = [{"$vectorSearch": stage},
                {"$project": {"_id": 1, "score": {"$meta": "vectorSearchScore"}}}]
    pipeline += list(extra)
    return list(db[coll].aggregate(pipeline))


@pytest.fixture
def loaded(db):
    rng = random.Random(7)
    docs = [{"_id": i, "embedding": rand_vector(rng), "color": ["red", "green", "blue"][i % 3],
             "n": i} for i in range(300)]
    db.items.insert_many(docs)
    return docs


@pytest.mark.parametrize("similarity", ["cosine", "euclidean", "dotProduct"])
def test_exact_search_equals_brute_force_with_atlas_scores(db, loaded, similarity):
    docs = loaded
    if similarity == "dotProduct":
        for d in docs:
            d["embedding"] = normalized(d["embedding"])
            db.items.update_one({"_id": d["_id"]}, {"$set": {"embedding": d["embedding"]}})
    create_index(db, "items", vector_fields(similarity=similarity))
    wait_ready(db, "items")
    rng = random.Random(11)
    for _ in range(5):
        q = rand_vector(rng)
        if similarity == "dotProduct":
            q = normalized(q)
        expected = sorted(docs, key=lambda d: -score(similarity, q, d["embedding"]))[:10]
        got = search(db, "items", q, 10, exact=True)
        assert [g["_id"] for g in got] == [d["_id"] for d in expected]
        for g, d in zip(got, expected):
            assert g["score"] == pytest.approx(score(similarity, q, d["embedding"]), abs=1e-5)


def test_approximate_search_on_a_small_index_is_exact(db, loaded):
    create_index(db, "items", vector_fields())
    wait_ready(db, "items")
    q = rand_vector(random.Random(3))
    approx = search(db, "items", q, 10, num_candidates=300)
    exact = search(db, "items", q, 10, exact=True)
    assert [d["_id"] for d in approx] == [d["_id"] for d in exact]
    scores = [d["score"] for d in approx]
    assert scores == sorted(scores, reverse=True)


def test_a_pre_filter_returns_the_nearest_matching_documents(db, loaded):
    create_index(db, "items", vector_fields(filters=("color", "n")))
    wait_ready(db, "items")
    q = rand_vector(random.Random(5))
    got = search(db, "items", q, 5, num_candidates=100, filter_={"color": "red", "n": {"$lt": 100}})
    expected = sorted((d for d in loaded if d["color"] == "red" and d["n"] < 100),
                      key=lambda d: -score("cosine", q, d["embedding"]))[:5]
    assert [g["_id"] for g in got] == [d["_id"] for d in expected]
    # k = 3 with only 2 matching documents gives those 2.
    got = search(db, "items", q, 3, num_candidates=50, filter_={"n": {"$in": [4, 7]}})
    assert sorted(g["_id"] for g in got) == [4, 7]
    got = search(db, "items", q, 4, num_candidates=50,
                 filter_={"$or": [{"n": 1}, {"n": {"$gte": 298}}], "color": {"$ne": "blue"}})
    assert sorted(g["_id"] for g in got) == [1, 298]


def test_writes_are_visible_to_the_very_next_query(db):
    db.create_collection("live")
    create_index(db, "live", vector_fields(similarity="euclidean"))
    wait_ready(db, "live")
    target = [0.5] * DIMS
    db.live.insert_one({"_id": "a", "embedding": target})
    assert [d["_id"] for d in search(db, "live", target, 1, num_candidates=10)] == ["a"]
    db.live.insert_one({"_id": "b", "embedding": [0.0] * DIMS})
    db.live.update_one({"_id": "a"}, {"$set": {"embedding": [-0.5] * DIMS}})
    assert search(db, "live", target, 1, num_candidates=10)[0]["_id"] == "b"
    db.live.delete_one({"_id": "b"})
    assert [d["_id"] for d in search(db, "live", target, 5, num_candidates=10)] == ["a"]
    # A document without a usable vector is simply not indexed.
    db.live.insert_many([{"_id": "none"}, {"_id": "short", "embedding": [1.0]},
                         {"_id": "text", "embedding": "not a vector"}])
    assert [d["_id"] for d in search(db, "live", target, 5, num_candidates=10)] == ["a"]


def test_list_shows_the_index_as_drivers_and_langchain_expect(db, loaded):
    definition = vector_fields(filters=("color",))
    created = create_index(db, "items", definition)
    assert re.fullmatch(r"[0-9a-f]{24}", created["id"]) and created["name"] == "vector_index"
    listed = wait_ready(db, "items")
    assert listed["id"] == created["id"]
    assert listed["type"] == "vectorSearch" and listed["queryable"] is True
    assert listed["latestDefinition"] == definition
    assert listed["latestDefinitionVersion"]["version"] == 0
    assert list_indexes(db, "items", id=created["id"])[0]["name"] == "vector_index"
    assert list_indexes(db, "items", name="nope") == []
    assert list_indexes(db, "no_such_collection") == []


def test_update_replaces_the_definition_and_drop_removes_the_index(db, loaded):
    create_index(db, "items", vector_fields(similarity="cosine"))
    wait_ready(db, "items")
    db.command({"updateSearchIndex": "items", "name": "vector_index",
                "definition": vector_fields(similarity="euclidean")})
    listed = wait_ready(db, "items")
    assert listed["latestDefinitionVersion"]["version"] == 1
    assert listed["latestDefinition"]["fields"][0]["similarity"] == "euclidean"
    q = rand_vector(random.Random(9))
    got = search(db, "items", q, 3, exact=True)
    expected = sorted(loaded, key=lambda d: -score("euclidean", q, d["embedding"]))[:3]
    assert [g["_id"] for g in got] == [d["_id"] for d in expected]
    db.command({"dropSearchIndex": "items", "name": "vector_index"})
    assert list_indexes(db, "items") == []
    assert search(db, "items", q, 3, exact=True) == []


def test_the_older_knn_vector_definition_is_served_too(db, loaded):
    definition = {"mappings": {"dynamic": True, "fields": {
        "embedding": {"type": "knnVector", "dimensions": DIMS, "similarity": "euclidean"},
        "color": {"type": "token"}}}}
    create_index(db, "items", definition, name="default", type_="search")
    wait_ready(db, "items", name="default")
    q = rand_vector(random.Random(2))
    got = search(db, "items", q, 4, num_candidates=50, index="default",
                 filter_={"color": "green"})
    expected = sorted((d for d in loaded if d["color"] == "green"),
                      key=lambda d: -score("euclidean", q, d["embedding"]))[:4]
    assert [g["_id"] for g in got] == [d["_id"] for d in expected]


def test_the_score_is_metadata_and_later_stages_see_the_document(db, loaded):
    create_index(db, "items", vector_fields())
    wait_ready(db, "items")
    q = loaded[42]["embedding"]
    docs = list(db.items.aggregate([
        {"$vectorSearch": {"index": "vector_index", "path": "embedding", "queryVector": q,
                           "numCandidates": 50, "limit": 2}},
        {"$set": {"s": {"$meta": "vectorSearchScore"}}},
        {"$project": {"embedding": 0}}]))
    assert docs[0]["_id"] == 42 and docs[0]["s"] == pytest.approx(1.0)
    assert "embedding" not in docs[0] and docs[0]["color"] == loaded[42]["color"]


def test_an_unknown_index_or_collection_returns_nothing(db, loaded):
    assert search(db, "items", [0.1] * DIMS, 3, num_candidates=10, index="missing") == []
    assert search(db, "nothing_here", [0.1] * DIMS, 3, num_candidates=10) == []


@pytest.mark.parametrize("stage,code", [
    ({"limit": 3}, 2),                                          # numCandidates missing
    ({"limit": 0, "numCandidates": 10}, 7912700),
    ({"limit": 3, "numCandidates": 10001}, 2),
    ({"limit": 30, "numCandidates": 10}, 2),
    ({"limit": 3, "numCandidates": 10, "exact": True}, 2),
    ({"limit": 3, "numCandidates": 10, "queryVector": [1.0, 2.0]}, 2),
    ({"limit": 3, "numCandidates": 10, "queryVector": ["a"] * DIMS}, 14),
    ({"limit": 3, "numCandidates": 10, "filter": {"n": 1}}, 2),          # not a filter field
    ({"limit": 3, "numCandidates": 10, "filter": {"color": {"$regex": "r"}}}, 2),
    ({"limit": 3, "numCandidates": 10, "path": "other"}, 2),
    ({"limit": 3, "numCandidates": 10, "bogus": 1}, 40415),
    ({"limit": 3, "numCandidates": 10, "nestedOptions": {"scoreMode": "max"}}, 2),  # no root
    ({"limit": 3, "numCandidates": 10, "parentFilter": {"color": "red"}}, 2),
])
def test_malformed_stages_answer_errors(db, loaded, stage, code):
    create_index(db, "items", vector_fields(filters=("color",)))
    wait_ready(db, "items")
    full = {"index": "vector_index", "path": "embedding", "queryVector": [0.1] * DIMS}
    full.update(stage)
    with pytest.raises(OperationFailure) as err:
        list(db.items.aggregate([{"$vectorSearch": full}]))
    assert err.value.code == code, err.value.details


def test_vector_search_must_be_the_first_stage(db, loaded):
    with pytest.raises(OperationFailure) as err:
        list(db.items.aggregate([{"$match": {}}, {"$vectorSearch": {
            "index": "vector_index", "path": "embedding", "queryVector": [0.1] * DIMS,
            "numCandidates": 10, "limit": 1}}]))
    assert err.value.code == 40602


@pytest.mark.parametrize("definition,code,words", [
    ({"fields": []}, 2, "fields"),
    ({"fields": [{"type": "vector", "path": "e", "numDimensions": 0, "similarity": "cosine"}]},
     2, "fields[0].numDimensions"),
    ({"fields": [{"type": "vector", "path": "e", "numDimensions": 4, "similarity": "manhattan"}]},
     2, "fields[0].similarity"),
    ({"fields": [{"type": "vector", "path": "e", "numDimensions": 4, "similarity": "cosine",
                  "extra": 1}]}, 2, "fields[0].extra"),
    ({"fields": [{"type": "vector", "path": "e", "numDimensions": 4, "similarity": "cosine",
                  "hnswOptions": {"maxEdges": 8}}]}, 2, "maxEdges"),
    ({"fields": [{"type": "vector", "path": "e", "numDimensions": 4, "similarity": "cosine",
                  "quantization": "int8"}]}, 2, "fields[0].quantization"),
    ({"fields": [{"type": "filter", "path": "e"}]}, 2, "vector"),
])
def test_invalid_definitions_answer_errors_naming_the_field(db, loaded, definition, code, words):
    with pytest.raises(OperationFailure) as err:
        create_index(db, "items", definition)
    assert err.value.code == code
    assert words in str(err.value)
    assert list_indexes(db, "items") == []


def test_management_errors(db, loaded):
    with pytest.raises(OperationFailure) as err:
        create_index(db, "missing_collection", vector_fields())
    assert err.value.code == 26
    create_index(db, "items", vector_fields())
    with pytest.raises(OperationFailure) as err:
        create_index(db, "items", vector_fields())
    assert err.value.code == 68
    with pytest.raises(OperationFailure) as err:
        db.command({"dropSearchIndex": "items", "name": "vector_index", "id": "x" * 24})
    assert err.value.code == 72
    with pytest.raises(OperationFailure) as err:
        db.command({"createSearchIndexes": "items",
                    "indexes": [{"definition": {"fields": [{"type": "filter", "path": "x"}]}}]})
    assert "Attribute mappings missing" in str(err.value)  # the default type is "search"
    db.command({"dropSearchIndex": "items", "name": "not_there"})  # idempotent


def test_indexes_survive_a_restart_and_a_crash(make_server):
    import pymongo
    server = make_server("vector_restart")
    rng = random.Random(13)
    docs = [{"_id": i, "embedding": rand_vector(rng)} for i in range(200)]
    q = rand_vector(rng)
    with pymongo.MongoClient(server.uri()) as client:
        db = client.v
        db.items.insert_many(docs)
        create_index(db, "items", vector_fields())
        wait_ready(db, "items")
        before = search(db, "items", q, 10, exact=True)
    for crash in (False, True):
        server.restart(crash=crash)
        with pymongo.MongoClient(server.uri()) as client:
            db = client.v
            wait_ready(db, "items")
            assert search(db, "items", q, 10, exact=True) == before
            assert search(db, "items", q, 10, num_candidates=200) == before
    with pymongo.MongoClient(server.uri()) as client:
        client.v.drop_collection("items")
        assert list_indexes(client.v, "items") == []


def test_answers_stay_right_through_many_updates_and_deletes(db):
    """Past a quarter of moved or deleted vectors the graph is rebuilt in the background."""
    rng = random.Random(17)
    docs = {i: rand_vector(rng) for i in range(2000)}
    db.churn.insert_many([{"_id": i, "embedding": v} for i, v in docs.items()])
    create_index(db, "churn", vector_fields(similarity="euclidean"))
    wait_ready(db, "churn")
    for i in range(0, 2000, 2):
        docs[i] = rand_vector(rng)
        db.churn.update_one({"_id": i}, {"$set": {"embedding": docs[i]}})
    db.churn.delete_many({"_id": {"$mod": [3, 0]}})
    for i in [i for i in docs if i % 3 == 0]:
        del docs[i]
    time.sleep(0.5)
    q = rand_vector(rng)
    expected = sorted(docs, key=lambda i: -score("euclidean", q, docs[i]))[:10]
    assert [d["_id"] for d in search(db, "churn", q, 10, exact=True)] == expected
    approx = [d["_id"] for d in search(db, "churn", q, 10, num_candidates=400)]
    assert len(set(approx) & set(expected)) >= 9


@pytest.mark.parametrize("wrap,code", [
    (lambda stage: [{"$facet": {"hits": [stage]}}], 40600),
    (lambda stage: [{"$lookup": {"from": "items", "pipeline": [stage], "as": "near"}}], 51047),
])
def test_vector_search_is_refused_inside_facet_and_lookup(db, loaded, wrap, code):
    stage = {"$vectorSearch": {"index": "vector_index", "path": "embedding",
                               "queryVector": [0.1] * DIMS, "numCandidates": 10, "limit": 1}}
    with pytest.raises(OperationFailure) as err:
        list(db.items.aggregate(wrap(stage)))
    assert err.value.code == code


def float32_vector(values):
    import struct
    from bson.binary import Binary
    return Binary(b"\x27\x00" + struct.pack("<%df" % len(values), *values), 9)


def int8_vector(values):
    import struct
    from bson.binary import Binary
    return Binary(b"\x03\x00" + struct.pack("<%db" % len(values), *values), 9)


def test_binary_vectors_are_indexed_and_queried(db):
    from bson.binary import Binary
    db.bin.insert_many([
        {"_id": "f", "embedding": float32_vector([1.0] + [0.0] * (DIMS - 1))},
        {"_id": "i", "embedding": int8_vector([0, 100] + [0] * (DIMS - 2))},
        {"_id": "a", "embedding": [0.0, 0.0, 1.0] + [0.0] * (DIMS - 3)},
    ])
    create_index(db, "bin", vector_fields(similarity="cosine"))
    wait_ready(db, "bin")
    query = float32_vector([0.1, 1.0] + [0.0] * (DIMS - 2))
    got = search(db, "bin", query, 3, num_candidates=10)
    assert [d["_id"] for d in got] == ["i", "f", "a"]
    assert got[0]["score"] == pytest.approx(score("cosine", [0.1, 1.0] + [0.0] * (DIMS - 2),
                                                  [0, 100] + [0] * (DIMS - 2)), abs=1e-5)
    with pytest.raises(OperationFailure) as err:
        search(db, "bin", Binary(b"\x10\x00\xff", 9), 1, num_candidates=10)  # int1, cosine
    assert err.value.code == 2 and "euclidean" in str(err.value)


def log_count(server, words):
    with open(server.log_path, encoding="utf-8", errors="replace") as log:
        return sum(words in line for line in log)


def test_a_restart_starts_from_the_snapshot_and_redoes_the_oplog_after_it(make_server):
    import glob
    import os
    import pymongo
    server = make_server("vector_snapshot")
    rng = random.Random(21)
    docs = {i: rand_vector(rng) for i in range(300)}
    q = rand_vector(rng)

    def expected():
        return sorted(docs, key=lambda i: -score("cosine", q, docs[i]))[:10]

    def check(db):
        wait_ready(db, "items")
        assert [d["_id"] for d in search(db, "items", q, 10, exact=True)] == expected()
        assert [d["_id"] for d in search(db, "items", q, 10, num_candidates=300)] == expected()

    with pymongo.MongoClient(server.uri()) as client:
        db = client.v
        db.items.insert_many([{"_id": i, "embedding": v} for i, v in docs.items()])
        create_index(db, "items", vector_fields())
        check(db)
    server.restart()  # a clean shutdown writes the snapshot
    snapshots = glob.glob(os.path.join(server.dbpath, "search_indexes", "*.snapshot"))
    assert len(snapshots) == 1
    with pymongo.MongoClient(server.uri()) as client:
        check(client.v)  # READY: the build thread has logged how it started
    assert log_count(server, "Loaded a search index from its snapshot") == 1
    with pymongo.MongoClient(server.uri()) as client:
        # Writes after the snapshot, then a crash: the restart redoes them from the oplog.
        for i in range(300, 320):
            docs[i] = rand_vector(rng)
            client.v.items.insert_one({"_id": i, "embedding": docs[i]})
        docs[0] = q
        client.v.items.update_one({"_id": 0}, {"$set": {"embedding": q}})
        del docs[1]
        client.v.items.delete_one({"_id": 1})
        check(client.v)
    server.restart(crash=True)
    with pymongo.MongoClient(server.uri()) as client:
        check(client.v)
    assert log_count(server, "Loaded a search index from its snapshot") == 2
    # A torn snapshot is noticed, and the index is built from the collection instead.
    server.stop()
    with open(snapshots[0], "r+b") as f:
        f.truncate(os.path.getsize(snapshots[0]) // 2)
    server.start()
    with pymongo.MongoClient(server.uri()) as client:
        check(client.v)
    assert log_count(server, "its snapshot cannot be used") == 1
    # A snapshot of an older definition is not used for the new one.
    server.restart()
    with pymongo.MongoClient(server.uri()) as client:
        check(client.v)
    assert log_count(server, "Loaded a search index from its snapshot") == 3
    with pymongo.MongoClient(server.uri()) as client:
        client.v.command({"updateSearchIndex": "items", "name": "vector_index",
                          "definition": vector_fields(similarity="cosine", filters=("x",))})
        check(client.v)
    assert log_count(server, "a snapshot of definition version 0") == 1
    server.restart(crash=True)
    with pymongo.MongoClient(server.uri()) as client:
        check(client.v)
    assert log_count(server, "a snapshot of definition version 0") == 2


def mixed_id_documents(rng, count=60):
    """Documents whose _ids are of many BSON types, each with a vector and a field `n`."""
    import datetime
    from bson import Decimal128, Int64, ObjectId
    kinds = [lambda i: i, lambda i: i + 0.5, lambda i: Int64(i), lambda i: f"id-{i}",
             lambda i: ObjectId(), lambda i: {"a": i, "b": [i, "x"]},
             lambda i: Decimal128(f"{i}.25"),
             lambda i: datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=i)]
    return [{"_id": kinds[i % len(kinds)](i), "embedding": rand_vector(rng), "n": i}
            for i in range(count)]


def search_with(db, coll, q, projection, limit=10):
    return list(db[coll].aggregate([
        {"$vectorSearch": {"index": "vector_index", "path": "embedding", "queryVector": q,
                           "numCandidates": 100, "limit": limit}},
        {"$project": projection}]))


def as_bson(docs):
    import bson
    return [bson.encode(d) for d in docs]


def without(field, docs):
    return [{k: v for k, v in d.items() if k != field} for d in docs]


def test_a_search_that_needs_only_ids_agrees_with_the_one_that_reads_documents(db):
    """A $project of only _id and the score is answered from the index, without reading the
    documents; its _ids keep their BSON types, and deleted documents are gone from it."""
    from bson import Int64
    rng = random.Random(23)
    docs = mixed_id_documents(rng)
    db.items.insert_many(docs)
    create_index(db, "items", vector_fields())
    wait_ready(db, "items")
    score_field = {"$meta": "vectorSearchScore"}
    for q in [rand_vector(rng) for _ in range(5)] + [docs[5]["embedding"]]:
        covered = search_with(db, "items", q, {"_id": 1, "score": score_field})
        read = without("n", search_with(db, "items", q, {"_id": 1, "n": 1, "score": score_field}))
        assert len(covered) == 10 and as_bson(covered) == as_bson(read)
        assert as_bson(search_with(db, "items", q, {"_id": 0, "score": score_field})) == \
            as_bson(without("_id", read))
        assert as_bson(search_with(db, "items", q, {"_id.a": 1})) == \
            as_bson(without("n", search_with(db, "items", q, {"_id.a": 1, "n": 1})))
    # Deleted: gone at once. Inserted again under an equal _id of another type: the new type.
    q = docs[16]["embedding"]
    assert search_with(db, "items", q, {"_id": 1}, limit=1) == [{"_id": 16}]
    db.items.delete_one({"_id": 16})
    assert 16 not in [d["_id"] for d in search_with(db, "items", q, {"_id": 1})]
    db.items.insert_one({"_id": Int64(16), "embedding": q, "n": -1})
    found = search_with(db, "items", q, {"_id": 1}, limit=1)
    assert as_bson(found) == as_bson([{"_id": Int64(16)}])


def test_ids_answered_from_the_index_survive_a_restart_and_a_crash(make_server):
    import pymongo
    server = make_server("vector_ids")
    rng = random.Random(29)
    docs = mixed_id_documents(rng)
    queries = [rand_vector(rng) for _ in range(4)]
    projection = {"_id": 1, "score": {"$meta": "vectorSearchScore"}}
    with pymongo.MongoClient(server.uri()) as client:
        db = client.v
        db.items.insert_many(docs)
        create_index(db, "items", vector_fields())
        wait_ready(db, "items")
        before = [as_bson(search_with(db, "items", q, projection)) for q in queries]
    for crash in (False, True):  # from the snapshot, then from the oplog after it
        server.restart(crash=crash)
        with pymongo.MongoClient(server.uri()) as client:
            wait_ready(client.v, "items")
            assert [as_bson(search_with(client.v, "items", q, projection))
                    for q in queries] == before


def test_selective_filters_follow_every_change_of_the_filtered_fields(make_server):
    """A selective filter's candidates come from postings of the filter fields' values: they
    must follow inserts, updates of the fields, deletes, arrays, numbers of every type, and a
    restart (from the snapshot, then from the oplog after a crash)."""
    import pymongo
    from bson.int64 import Int64
    server = make_server("vector_selective")
    rng = random.Random(31)
    docs = {i: {"_id": i, "embedding": rand_vector(rng), "tenant": i % 100,
                "tags": [f"t{i % 50}", f"u{i % 7}"], "price": (i % 90) + (0.5 if i % 2 else 0)}
            for i in range(3000)}
    filters = [
        ({"tenant": 7}, lambda d: d["tenant"] == 7),
        ({"tenant": {"$in": [3, 4]}}, lambda d: d["tenant"] in (3, 4)),
        ({"tags": "t5"}, lambda d: "t5" in d["tags"]),
        ({"price": {"$lt": 1}}, lambda d: d["price"] < 1),
        ({"price": {"$gte": 89}}, lambda d: d["price"] >= 89),
        ({"tenant": 7, "price": {"$gt": 40}}, lambda d: d["tenant"] == 7 and d["price"] > 40),
        ({"$and": [{"tags": "u3"}, {"tenant": {"$lte": 2}}]},
         lambda d: "u3" in d["tags"] and d["tenant"] <= 2),
        ({"$or": [{"tenant": 9}, {"tags": "t31"}]}, lambda d: d["tenant"] == 9 or "t31" in d["tags"]),
    ]
    queries = [rand_vector(rng) for _ in range(3)]

    def check(db):
        for filter_, admits in filters:
            for q in queries:
                expected = sorted((d for d in docs.values() if admits(d)),
                                  key=lambda d: (-score("cosine", q, d["embedding"]), d["_id"]))
                expected = [d["_id"] for d in expected[:10]]
                for exact in (False, True):
                    got = search(db, "items", q, 10, num_candidates=None if exact else 100,
                                 exact=exact, filter_=filter_)
                    assert [g["_id"] for g in got] == expected, (filter_, exact)

    with pymongo.MongoClient(server.uri()) as client:
        db = client.v
        db.items.insert_many(list(docs.values()))
        create_index(db, "items", vector_fields(filters=("tenant", "tags", "price")))
        wait_ready(db, "items")
        check(db)
        for i in range(0, 3000, 13):  # tenants, tags and vectors move; some documents go
            docs[i]["tenant"] = (docs[i]["tenant"] + 1) % 100
            docs[i]["tags"] = [f"t{(i + 1) % 50}"]
            docs[i]["embedding"] = rand_vector(rng)
            db.items.replace_one({"_id": i}, docs[i])
        for i in range(5, 3000, 29):
            db.items.delete_one({"_id": i})
            del docs[i]
        for i in range(3000, 3040):  # the same numbers as other types
            docs[i] = {"_id": i, "embedding": rand_vector(rng),
                       "tenant": Int64(7) if i % 2 else 7.0, "tags": "t5", "price": 0}
            db.items.insert_one(dict(docs[i]))
        check(db)
    for crash in (False, True):
        server.restart(crash=crash)
        with pymongo.MongoClient(server.uri()) as client:
            wait_ready(client.v, "items")
            check(client.v)
