"""$vectorSearch over arrays of sub-documents (nestedRoot, nestedOptions, parentFilter) and over
packed-bit (int1) vectors, against a real quarryd, checked against brute force computed here."""
import random
import struct

import pymongo
import pytest
from bson.binary import Binary
from pymongo.errors import OperationFailure

from test_vector_search import create_index, log_count, score, wait_ready

DIMS = 4
GENRES = ("poetry", "prose", "drama")


def nested_definition(similarity="euclidean"):
    return {"nestedRoot": "sections", "fields": [
        {"type": "vector", "path": "sections.emb", "numDimensions": DIMS,
         "similarity": similarity},
        {"type": "filter", "path": "sections.page"},
        {"type": "filter", "path": "genre"}]}


def make_book(rng, book_id):
    sections = [{"emb": [rng.uniform(-1, 1) for _ in range(DIMS)], "page": rng.randrange(10)}
                for _ in range(rng.randrange(0, 5))]
    if book_id % 7 == 0:
        sections.append({"page": 1})  # no vector: the element is not indexed
    if book_id % 11 == 0:
        sections.append("not a document")
    return {"_id": book_id, "genre": GENRES[book_id % 3], "sections": sections}


def expected(books, q, limit, mode="max", page_min=None, genre=None, similarity="euclidean"):
    """Each book once, scored by its best (or average) section that the filters admit."""
    ranked = []
    for book in books.values():
        if genre is not None and book["genre"] != genre:
            continue
        scores = [score(similarity, q, s["emb"]) for s in book["sections"]
                  if isinstance(s, dict) and "emb" in s
                  and (page_min is None or s["page"] >= page_min)]
        if scores:
            ranked.append((max(scores) if mode == "max" else sum(scores) / len(scores),
                           book["_id"]))
    ranked.sort(key=lambda pair: -pair[0])
    return ranked[:limit]


def nested_search(db, q, limit, mode=None, exact=False, num_candidates=None, filter_=None,
                  parent_filter=None, coll="books"):
    stage = {"index": "vector_index", "path": "sections.emb", "queryVector": q, "limit": limit}
    if exact:
        stage["exact"] = True
    else:
        stage["numCandidates"] = num_candidates or 1000
    if mode is not None:
        stage["nestedOptions"] = {"scoreMode": mode}
    if filter_ is not None:
        stage["filter"] = filter_
    if parent_filter is not None:
        stage["parentFilter"] = parent_filter
    return list(db[coll].aggregate([
        {"$vectorSearch": stage}, {"$set": {"score": {"$meta": "vectorSearchScore"}}}]))


def check_all_queries(db, books, q):
    for mode in ("max", "avg"):
        for exact in (True, False):
            for page_min, genre in ((None, None), (4, None), (None, "prose"), (3, "drama")):
                want = expected(books, q, 10, mode, page_min, genre)
                got = nested_search(
                    db, q, 10, mode=mode, exact=exact,
                    filter_=None if page_min is None else {"sections.page": {"$gte": page_min}},
                    parent_filter=None if genre is None else {"genre": genre})
                assert [d["_id"] for d in got] == [i for _, i in want], (mode, exact, page_min)
                assert [d["score"] for d in got] == pytest.approx([s for s, _ in want], abs=1e-5)
                # The whole parent document comes back, once.
                for doc in got:
                    assert doc["sections"] == books[doc["_id"]]["sections"]


@pytest.fixture
def books(db):
    rng = random.Random(5)
    docs = {i: make_book(rng, i) for i in range(120)}
    db.books.insert_many(list(docs.values()))
    create_index(db, "books", nested_definition())
    wait_ready(db, "books")
    return docs


def test_each_parent_is_returned_once_scored_by_max_or_avg_of_its_sections(db, books):
    rng = random.Random(9)
    for _ in range(3):
        check_all_queries(db, books, [rng.uniform(-1, 1) for _ in range(DIMS)])


def test_max_is_the_default_score_mode_and_limit_counts_parents(db, books):
    q = [0.2, -0.1, 0.5, 0.3]
    got = nested_search(db, q, 25)
    assert [d["_id"] for d in got] == [i for _, i in expected(books, q, 25)]
    assert len({d["_id"] for d in got}) == 25


def test_few_candidates_still_give_limit_distinct_parents_with_their_own_scores(db, books):
    q = [-0.4, 0.1, 0.2, -0.3]
    for mode in ("max", "avg"):
        got = nested_search(db, q, 5, mode=mode, num_candidates=5)
        assert len({d["_id"] for d in got}) == 5
        for doc in got:
            want = expected({doc["_id"]: books[doc["_id"]]}, q, 1, mode)[0][0]
            assert doc["score"] == pytest.approx(want, abs=1e-5)
        assert [d["score"] for d in got] == sorted((d["score"] for d in got), reverse=True)


def test_writes_are_seen_by_the_next_query(db, books):
    rng = random.Random(13)
    q = [rng.uniform(-1, 1) for _ in range(DIMS)]
    # A new book, a book whose sections change (one more, one fewer), a book emptied, a delete.
    books[500] = {"_id": 500, "genre": "prose", "sections": [{"emb": q, "page": 5}]}
    db.books.insert_one(books[500])
    books[3]["sections"].append({"emb": [x + 0.01 for x in q], "page": 9})
    db.books.update_one({"_id": 3}, {"$push": {"sections": books[3]["sections"][-1]}})
    books[4]["sections"] = books[4]["sections"][1:]
    db.books.update_one({"_id": 4}, {"$set": {"sections": books[4]["sections"]}})
    books[5]["sections"] = []
    db.books.replace_one({"_id": 5}, books[5])
    books[6]["genre"] = "drama"
    db.books.update_one({"_id": 6}, {"$set": {"genre": "drama"}})
    del books[1]
    db.books.delete_one({"_id": 1})
    top = nested_search(db, q, 1)
    assert top[0]["_id"] == 500 and top[0]["score"] == pytest.approx(1.0)
    check_all_queries(db, books, q)


@pytest.mark.parametrize("definition,words", [
    ({"nestedRoot": "sections", "fields": [
        {"type": "vector", "path": "emb", "numDimensions": DIMS, "similarity": "cosine"}]},
     "under the nestedRoot"),
    ({"nestedRoot": "sections", "fields": [
        {"type": "vector", "path": "sections.emb", "numDimensions": DIMS, "similarity": "cosine"},
        {"type": "filter", "path": "sections"}]}, "filter path"),
    ({"nestedRoot": 3, "fields": [
        {"type": "vector", "path": "sections.emb", "numDimensions": DIMS, "similarity": "cosine"}]},
     "nestedRoot"),
])
def test_invalid_nested_definitions_answer_bad_value(db, definition, words):
    db.books.insert_one({"_id": 1})
    with pytest.raises(OperationFailure) as err:
        create_index(db, "books", definition)
    assert err.value.code == 2 and words in str(err.value)


@pytest.mark.parametrize("extra,code", [
    ({"filter": {"genre": "prose"}}, 2),                   # a parent field in filter
    ({"parentFilter": {"sections.page": 3}}, 2),           # an element field in parentFilter
    ({"parentFilter": {"title": "x"}}, 2),                 # not a filter field
    ({"parentFilter": 3}, 14),
    ({"nestedOptions": {"scoreMode": "sum"}}, 2),
    ({"nestedOptions": {"scoreMode": "max", "other": 1}}, 40415),
    ({"nestedOptions": "max"}, 14),
])
def test_malformed_nested_stages_answer_errors(db, books, extra, code):
    stage = {"index": "vector_index", "path": "sections.emb", "queryVector": [0.1] * DIMS,
             "limit": 3, "numCandidates": 10}
    stage.update(extra)
    with pytest.raises(OperationFailure) as err:
        list(db.books.aggregate([{"$vectorSearch": stage}]))
    assert err.value.code == code, err.value.details


def test_a_restart_keeps_the_nested_and_int1_answers(make_server):
    server = make_server("vector_nested_snapshot")
    rng = random.Random(17)
    books = {i: make_book(rng, i) for i in range(80)}
    q = [rng.uniform(-1, 1) for _ in range(DIMS)]
    bits = {i: [rng.randrange(2) for _ in range(16)] for i in range(60)}
    bits_q = [rng.randrange(2) for _ in range(16)]

    def check(db):
        wait_ready(db, "books")
        check_all_queries(db, books, q)
        wait_ready(db, "bits")
        want = sorted(hamming_score(bits_q, v) for v in bits.values())[::-1][:8]
        for exact in (True, False):
            stage = {"index": "vector_index", "path": "emb", "queryVector": int1_vector(bits_q),
                     "limit": 8, **({"exact": True} if exact else {"numCandidates": 100})}
            got = list(db.bits.aggregate([{"$vectorSearch": stage}, {"$project": {
                "score": {"$meta": "vectorSearchScore"}}}]))
            assert [d["score"] for d in got] == pytest.approx(want, abs=1e-6)

    with pymongo.MongoClient(server.uri()) as client:
        client.v.books.insert_many(list(books.values()))
        create_index(client.v, "books", nested_definition())
        client.v.bits.insert_many([{"_id": i, "emb": int1_vector(v)} for i, v in bits.items()])
        create_index(client.v, "bits", {"fields": [
            {"type": "vector", "path": "emb", "numDimensions": 16, "similarity": "euclidean"}]})
        check(client.v)
    server.restart()  # a clean shutdown writes the snapshots
    with pymongo.MongoClient(server.uri()) as client:
        check(client.v)
        books[2]["sections"] = [{"emb": q, "page": 2}]
        client.v.books.update_one({"_id": 2}, {"$set": {"sections": books[2]["sections"]}})
        del books[8]
        client.v.books.delete_one({"_id": 8})
        bits[3] = bits_q
        client.v.bits.update_one({"_id": 3}, {"$set": {"emb": int1_vector(bits_q)}})
    assert log_count(server, "Loaded a search index from its snapshot") == 2
    server.restart(crash=True)  # the writes after the snapshots are redone from the oplog
    with pymongo.MongoClient(server.uri()) as client:
        check(client.v)
    assert log_count(server, "Loaded a search index from its snapshot") == 4


# Packed-bit (int1) vectors: BinData subtype 9, dtype 0x10, a padding byte, then the bits.

BITS = 32


def int1_vector(bits, padding=0):
    packed = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            packed[i // 8] |= 0x80 >> (i % 8)
    return Binary(b"\x10" + bytes([padding]) + bytes(packed), 9)


def hamming_score(a, b):
    return 1 / (1 + sum(x != y for x, y in zip(a, b)))


@pytest.fixture
def bit_docs(db):
    rng = random.Random(3)
    docs = {i: [rng.randrange(2) for _ in range(BITS)] for i in range(150)}
    db.bits.insert_many([{"_id": i, "emb": int1_vector(v), "n": i % 4} for i, v in docs.items()])
    db.bits.insert_many([
        {"_id": "floats", "emb": [0.5] * BITS},                   # searched by float queries only
        {"_id": "short", "emb": int1_vector([1] * 24)},           # 24 bits: not indexed
        {"_id": "padded", "emb": int1_vector([1] * 30, padding=2)},  # 30 bits: not indexed
        {"_id": "bad_padding", "emb": Binary(b"\x10\x09\xff\xff\xff\xff", 9)},
    ])
    create_index(db, "bits", {"fields": [
        {"type": "vector", "path": "emb", "numDimensions": BITS, "similarity": "euclidean"},
        {"type": "filter", "path": "n"}]})
    wait_ready(db, "bits")
    return docs


def bit_search(db, q, limit, exact=False, filter_=None):
    stage = {"index": "vector_index", "path": "emb", "queryVector": q, "limit": limit}
    if exact:
        stage["exact"] = True
    else:
        stage["numCandidates"] = 200
    if filter_ is not None:
        stage["filter"] = filter_
    return list(db.bits.aggregate([{"$vectorSearch": stage},
                                   {"$project": {"score": {"$meta": "vectorSearchScore"}}}]))


def test_int1_vectors_are_searched_by_hamming_distance(db, bit_docs):
    rng = random.Random(8)
    for _ in range(3):
        q = [rng.randrange(2) for _ in range(BITS)]
        for exact in (True, False):
            for n in (None, 2):
                candidates = [i for i in bit_docs if n is None or i % 4 == n]
                want = sorted(candidates, key=lambda i: (-hamming_score(q, bit_docs[i]), i))[:10]
                got = bit_search(db, int1_vector(q), 10, exact=exact,
                                 filter_=None if n is None else {"n": n})
                assert [d["score"] for d in got] == pytest.approx(
                    [hamming_score(q, bit_docs[i]) for i in want], abs=1e-6)
                # Equal scores may come in either order; the set of scores above decides.
                best = hamming_score(q, bit_docs[want[-1]])
                assert all(hamming_score(q, bit_docs[d["_id"]]) >= best for d in got)


def test_int1_and_float_queries_each_search_their_own_vectors(db, bit_docs):
    got = bit_search(db, [0.5] * BITS, 5, exact=True)
    assert [d["_id"] for d in got] == ["floats"]
    db.bits.update_one({"_id": 0}, {"$set": {"emb": int1_vector([1] * BITS)}})
    got = bit_search(db, int1_vector([1] * BITS), 1, exact=True)
    assert got[0]["_id"] == 0 and got[0]["score"] == pytest.approx(1.0)
    db.bits.delete_one({"_id": 0})
    assert bit_search(db, int1_vector([1] * BITS), 1, exact=True)[0]["_id"] != 0


@pytest.mark.parametrize("query", [
    int1_vector([1] * 24),                  # 24 bits for a 32-dimension field
    int1_vector([1] * 30, padding=2),       # 30 bits
])
def test_an_int1_query_of_the_wrong_bit_count_is_bad_value(db, bit_docs, query):
    with pytest.raises(OperationFailure) as err:
        bit_search(db, query, 3)
    assert err.value.code == 2


def test_an_int1_query_needs_euclidean_similarity(db):
    db.cos.insert_one({"_id": 1, "emb": [1.0] * 8})
    create_index(db, "cos", {"fields": [
        {"type": "vector", "path": "emb", "numDimensions": 8, "similarity": "cosine"}]})
    wait_ready(db, "cos")
    with pytest.raises(OperationFailure) as err:
        list(db.cos.aggregate([{"$vectorSearch": {
            "index": "vector_index", "path": "emb", "queryVector": int1_vector([1] * 8),
            "limit": 1, "numCandidates": 10}}]))
    assert err.value.code == 2 and "euclidean" in str(err.value)


def test_nested_sections_may_hold_int1_vectors(db):
    rng = random.Random(4)
    books = {i: [[rng.randrange(2) for _ in range(16)] for _ in range(rng.randrange(1, 4))]
             for i in range(40)}
    db.nb.insert_many([{"_id": i, "sections": [{"emb": int1_vector(v)} for v in vs]}
                       for i, vs in books.items()])
    create_index(db, "nb", {"nestedRoot": "sections", "fields": [
        {"type": "vector", "path": "sections.emb", "numDimensions": 16,
         "similarity": "euclidean"}]})
    wait_ready(db, "nb")
    q = [rng.randrange(2) for _ in range(16)]
    for mode, combine in (("max", max), ("avg", lambda s: sum(s) / len(s))):
        want = sorted(((combine([hamming_score(q, v) for v in vs]), i) for i, vs in books.items()),
                      key=lambda pair: -pair[0])[:5]
        got = list(db.nb.aggregate([{"$vectorSearch": {
            "index": "vector_index", "path": "sections.emb", "queryVector": int1_vector(q),
            "limit": 5, "exact": True, "nestedOptions": {"scoreMode": mode}}},
            {"$project": {"score": {"$meta": "vectorSearchScore"}}}]))
        assert [d["score"] for d in got] == pytest.approx([s for s, _ in want], abs=1e-6)


def float32_bytes(values):
    return Binary(b"\x27\x00" + struct.pack("<%df" % len(values), *values), 9)


def test_nested_sections_may_hold_float32_vectors(db):
    db.fb.insert_one({"_id": 1, "sections": [{"emb": float32_bytes([1, 0, 0, 0])},
                                              {"emb": float32_bytes([0, 1, 0, 0])}]})
    create_index(db, "fb", nested_definition())
    wait_ready(db, "fb")
    got = nested_search(db, [1, 0, 0, 0], 1, mode="avg", coll="fb")
    assert got[0]["score"] == pytest.approx((1 + 1 / 3) / 2)
