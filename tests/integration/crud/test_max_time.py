"""maxTimeMS with pymongo: a command that runs past its limit fails with MaxTimeMSExpired (50)
in every reader and writer that scans; a limit it keeps changes nothing; bad limits are
refused with BadValue (2), as mongod does."""

import time

import pymongo
import pymongo.errors
import pytest

MAX_TIME_EXPIRED = 50
BAD_VALUE = 2
DOCUMENTS = 60_000


@pytest.fixture(scope="module")
def big(client):
    db = client.t_max_time
    db.drop_collection("c")
    filler = "x" * 200
    for start in range(0, DOCUMENTS, 10_000):
        db.c.insert_many([{"_id": i, "n": i, "s": filler + str(i)}
                          for i in range(start, start + 10_000)])
    yield db.c
    client.drop_database("t_max_time")


# Forty additions per document: about a second for the collection, matching nothing.
SLOW_FILTER = {"$expr": {"$lt": [
    {"$reduce": {"input": {"$range": [0, 40]}, "initialValue": 0,
                 "in": {"$add": ["$$value", "$$this"]}}}, 0]}}


def expect_expired(run):
    started = time.monotonic()
    with pytest.raises(pymongo.errors.ExecutionTimeout) as failed:
        run()
    assert failed.value.code == MAX_TIME_EXPIRED
    assert "exceeded time limit" in str(failed.value)
    return time.monotonic() - started


def test_a_slow_find_stops_at_its_limit(big):
    # The scan without a limit takes far longer than 20 ms; with it, the reply comes soon after.
    elapsed = expect_expired(lambda: list(big.find(SLOW_FILTER).max_time_ms(20)))
    assert elapsed < 5


@pytest.mark.parametrize("command", [
    lambda c: c.count_documents(SLOW_FILTER, maxTimeMS=20),
    lambda c: c.distinct("n", SLOW_FILTER, maxTimeMS=20),
    lambda c: list(c.aggregate([{"$match": SLOW_FILTER}, {"$group": {"_id": "$n"}}],
                               maxTimeMS=20)),
    lambda c: list(c.aggregate([{"$group": {"_id": "$s", "n": {"$sum": 1}}},
                                {"$sort": {"n": -1}}], maxTimeMS=1)),
    lambda c: c.database.command("update", c.name, updates=[
        {"q": SLOW_FILTER, "u": {"$set": {"touched": True}}, "multi": True}], maxTimeMS=20),
    lambda c: c.database.command("delete", c.name, deletes=[{"q": SLOW_FILTER, "limit": 0}],
                                 maxTimeMS=20),
    lambda c: c.find_one_and_update(SLOW_FILTER, {"$set": {"touched": True}}, maxTimeMS=20),
], ids=["count", "distinct", "aggregate-match", "aggregate-group", "update", "delete",
        "findAndModify"])
def test_every_scanning_command_honours_the_limit(big, command):
    expect_expired(lambda: command(big))
    assert big.count_documents({"touched": True}) == 0
    assert big.estimated_document_count() == DOCUMENTS


def test_a_limit_that_is_kept_changes_nothing(big):
    assert big.count_documents({"n": {"$lt": 10}}, maxTimeMS=60_000) == 10
    assert len(list(big.find({"_id": 5}).max_time_ms(1))) == 1  # a point read is instant


def test_time_a_cursor_idles_between_getmores_does_not_count(big):
    cursor = big.find({}, {"n": 1}).batch_size(10).max_time_ms(2_000)
    first = [next(cursor) for _ in range(10)]
    time.sleep(2.5)  # past the find's limit, idle: only the time reading counts, as in mongod
    rest = list(cursor)
    assert len(first) + len(rest) == DOCUMENTS


def test_getmores_work_against_what_the_find_left_of_its_limit(big):
    # Forty additions per document, matching all; then only the first three and last two.
    slow_true = {"$expr": {"$gte": [
        {"$reduce": {"input": {"$range": [0, 40]}, "initialValue": 0,
                     "in": {"$add": ["$$value", "$$this"]}}}, 0]}}
    ends = {"$or": [{"n": {"$lt": 3}}, {"n": {"$gte": DOCUMENTS - 2}}]}
    cursor = big.find({"$and": [slow_true, ends]}).batch_size(2).max_time_ms(300)
    assert [next(cursor)["n"] for _ in range(2)] == [0, 1]  # found at once
    # The next batch scans the whole collection (about a second) to reach the last two.
    expect_expired(lambda: [next(cursor) for _ in range(2)])


@pytest.mark.parametrize("value", [-1, 2**31, 1.5, "10"])
def test_bad_limits_are_refused(big, value):
    with pytest.raises(pymongo.errors.OperationFailure) as failed:
        big.database.command("find", big.name, filter={}, maxTimeMS=value)
    assert failed.value.code == BAD_VALUE
    assert "maxTimeMS" in str(failed.value)
