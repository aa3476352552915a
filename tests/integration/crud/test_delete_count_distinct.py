"""delete, count_documents (aggregate), estimated_document_count (count), distinct."""

import pymongo.errors
import pytest


@pytest.fixture
def nums(db):
    db.nums.insert_many([{"_id": i, "mod3": i % 3, "even": i % 2 == 0,
                          "tags": ["t%d" % (i % 4), "all"]} for i in range(30)])
    return db.nums


def test_delete_one_removes_exactly_one_match(nums):
    assert nums.delete_one({"mod3": 0}).deleted_count == 1
    assert nums.count_documents({"mod3": 0}) == 9


def test_delete_many_removes_every_match(nums):
    assert nums.delete_many({"even": True}).deleted_count == 15
    assert nums.count_documents({}) == 15
    assert nums.count_documents({"even": True}) == 0


def test_delete_with_no_match_deletes_nothing(nums):
    assert nums.delete_many({"mod3": 7}).deleted_count == 0
    assert nums.delete_one({"_id": "nope"}).deleted_count == 0
    assert nums.count_documents({}) == 30


def test_delete_many_with_empty_filter_empties_the_collection(nums):
    assert nums.delete_many({}).deleted_count == 30
    assert nums.estimated_document_count() == 0


def test_deleted_id_can_be_inserted_again(nums):
    nums.delete_one({"_id": 5})
    nums.insert_one({"_id": 5, "again": True})
    assert nums.find_one({"_id": 5}) == {"_id": 5, "again": True}


def test_count_documents_with_filter_skip_and_limit(nums):
    assert nums.count_documents({}) == 30
    assert nums.count_documents({"mod3": 1}) == 10
    assert nums.count_documents({"mod3": 1}, skip=4) == 6
    assert nums.count_documents({"mod3": 1}, limit=3) == 3
    assert nums.count_documents({"mod3": 1}, skip=8, limit=5) == 2
    assert nums.count_documents({"nothing": 1}) == 0


def test_count_documents_on_a_missing_collection_is_zero(db):
    assert db.missing.count_documents({}) == 0


def test_estimated_document_count(nums, db):
    assert nums.estimated_document_count() == 30
    assert db.missing.estimated_document_count() == 0


def test_count_command_with_query(nums, db):
    assert db.command("count", "nums", query={"even": False})["n"] == 15


def test_distinct_values(nums):
    assert sorted(nums.distinct("mod3")) == [0, 1, 2]
    assert sorted(nums.distinct("mod3", {"even": True})) == [0, 1, 2]
    assert sorted(nums.distinct("_id", {"_id": {"$lt": 3}})) == [0, 1, 2]
    assert nums.distinct("nothere") == []


def test_distinct_unwinds_arrays(nums):
    assert sorted(nums.distinct("tags")) == ["all", "t0", "t1", "t2", "t3"]


def test_distinct_ignores_empty_arrays_and_missing_fields(db):
    # mongod expands a trailing array element by element, so [] contributes no value.
    db.c.insert_many([{"_id": 1, "t": []}, {"_id": 2, "t": ["x"]}, {"_id": 3}, {"_id": 4, "t": None}])
    assert sorted(db.c.distinct("t"), key=str) == [None, "x"]


def test_distinct_on_a_missing_collection_is_empty(db):
    assert db.missing.distinct("x") == []


def test_aggregate_match_group_sort(nums):
    got = list(nums.aggregate([
        {"$match": {"_id": {"$lt": 12}}},
        {"$group": {"_id": "$mod3", "n": {"$sum": 1}, "total": {"$sum": "$_id"}}},
        {"$sort": {"_id": 1}},
    ]))
    assert got == [{"_id": 0, "n": 4, "total": 18}, {"_id": 1, "n": 4, "total": 22},
                   {"_id": 2, "n": 4, "total": 26}]


def test_aggregate_project_skip_limit(nums):
    got = list(nums.aggregate([{"$sort": {"_id": -1}}, {"$skip": 2}, {"$limit": 3},
                               {"$project": {"_id": 1}}]))
    assert got == [{"_id": 27}, {"_id": 26}, {"_id": 25}]


def test_aggregate_unknown_stage_fails_with_40324(nums):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(nums.aggregate([{"$nonsense": {}}]))
    assert info.value.code == 40324


@pytest.mark.parametrize("bad_statement, code", [
    ({"q": {"_id": 3}, "limit": 1, "sort": {"_id": 1}}, 40415),
    ({"q": {"_id": 3}}, 40414),  # no limit
])
def test_a_malformed_statement_fails_the_whole_delete_before_any_statement_runs(
        nums, db, bad_statement, code):
    with pytest.raises(pymongo.errors.OperationFailure) as raised:
        db.command("delete", "nums", deletes=[{"q": {"_id": 1}, "limit": 1}, bad_statement])
    assert raised.value.code == code
    assert nums.count_documents({}) == 30


def test_delete_many_under_concurrent_updates_deletes_every_match_and_nothing_else(server, db):
    # The other client keeps changing documents the delete has read but not yet deleted: each
    # such document is re-read, still matches, and must be deleted once; the others stay.
    import threading

    import pymongo

    from quarry_server import CLIENT_OPTIONS

    coll = db.contended
    coll.insert_many([{"_id": i, "doomed": i % 2 == 0, "n": 0} for i in range(20000)])
    stop = threading.Event()

    def churn():
        with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as other:
            c = other[db.name].contended
            while not stop.is_set():
                c.update_many({"_id": {"$mod": [7, 0]}}, {"$inc": {"n": 1}})

    writer = threading.Thread(target=churn)
    writer.start()
    try:
        result = coll.delete_many({"doomed": True})
    finally:
        stop.set()
        writer.join()
    assert result.deleted_count == 10000
    assert coll.count_documents({"doomed": True}) == 0
    assert coll.count_documents({"doomed": False}) == 10000


def test_delete_one_statements_by_id_share_commits_without_changing_results(db):
    db.byid.insert_many([{"_id": i, "keep": i % 10 == 0} for i in range(1000)])
    deletes = [{"q": {"_id": i, "keep": False}, "limit": 1} for i in range(1000)]
    deletes.append({"q": {"_id": 3}, "limit": 1})  # already deleted by statement 3
    reply = db.command("delete", "byid", deletes=deletes)
    assert reply["n"] == 900
    assert sorted(d["_id"] for d in db.byid.find()) == list(range(0, 1000, 10))

    failing = [{"q": {"_id": 0}, "limit": 1}, {"q": 5, "limit": 1}, {"q": {"_id": 10}, "limit": 1}]
    reply = db.command("delete", "byid", deletes=failing)
    assert reply["n"] == 1 and [e["index"] for e in reply["writeErrors"]] == [1]
    assert db.byid.find_one({"_id": 10}) is not None
    reply = db.command("delete", "byid", deletes=failing, ordered=False)
    assert reply["n"] == 1 and [e["index"] for e in reply["writeErrors"]] == [1]
    assert db.byid.find_one({"_id": 10}) is None


def test_two_clients_deleting_the_same_ids_delete_each_document_once(server, db):
    import threading

    import pymongo
    from pymongo import DeleteOne

    from quarry_server import CLIENT_OPTIONS

    db.race.insert_many([{"_id": i} for i in range(20000)])
    counts = []

    def delete_all():
        with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
            ops = [DeleteOne({"_id": i}) for i in range(20000)]
            counts.append(c[db.name].race.bulk_write(ops, ordered=False).deleted_count)

    threads = [threading.Thread(target=delete_all) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(counts) == 20000
    assert db.race.count_documents({}) == 0
