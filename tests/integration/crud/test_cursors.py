"""Cursors over many documents: first batch, getMore, killCursors, errors."""

import pymongo.errors
import pytest
from bson.int64 import Int64

N = 10_000


@pytest.fixture(scope="module")
def many(client):
    db = client.t_cursors_many
    db.drop_collection("many")
    batch = [{"_id": i, "n": i, "pad": "p" * 100} for i in range(N)]
    db.many.insert_many(batch)
    yield db.many
    client.drop_database("t_cursors_many")


def test_iterating_10000_documents_returns_each_once_in_id_order(many):
    seen = [d["_id"] for d in many.find({}, {"pad": 0})]
    assert seen == list(range(N))


@pytest.mark.parametrize("batch_size", [1, 7, 101, 1000, 5000])
def test_batch_sizes_do_not_change_the_result(many, batch_size):
    cursor = many.find({"n": {"$gte": N - 2500}}, {"_id": 1}, batch_size=batch_size)
    assert [d["_id"] for d in cursor] == list(range(N - 2500, N))


def test_sorted_cursor_over_10000_documents(many):
    got = [d["n"] for d in many.find({}, {"n": 1}, sort=[("n", -1)], batch_size=500)]
    assert got == list(range(N - 1, -1, -1))


def test_first_batch_is_101_documents_by_default(many):
    reply = many.database.command("find", "many", filter={})
    cursor = reply["cursor"]
    assert len(cursor["firstBatch"]) == 101
    assert isinstance(cursor["id"], Int64) and cursor["id"] != 0
    assert cursor["ns"] == f"{many.database.name}.many"
    more = many.database.command("getMore", cursor["id"], collection="many", batchSize=50)
    assert [d["_id"] for d in more["cursor"]["nextBatch"]] == list(range(101, 151))
    killed = many.database.command("killCursors", "many", cursors=[cursor["id"]])
    assert killed["cursorsKilled"] == [cursor["id"]]


def test_batch_size_zero_returns_an_empty_first_batch_and_a_live_cursor(many):
    reply = many.database.command("find", "many", filter={}, batchSize=0)
    assert reply["cursor"]["firstBatch"] == [] and reply["cursor"]["id"] != 0
    more = many.database.command("getMore", reply["cursor"]["id"], collection="many",
                                 batchSize=3)
    assert [d["_id"] for d in more["cursor"]["nextBatch"]] == [0, 1, 2]
    many.database.command("killCursors", "many", cursors=[reply["cursor"]["id"]])


def test_exhausted_cursor_has_id_zero(many):
    reply = many.database.command("find", "many", filter={"_id": {"$lt": 5}})
    assert reply["cursor"]["id"] == 0 and len(reply["cursor"]["firstBatch"]) == 5


def test_get_more_of_an_unknown_cursor_fails_with_43(many):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        many.database.command("getMore", Int64(123456789), collection="many")
    assert info.value.code == 43


def test_killed_cursor_cannot_be_continued(many):
    reply = many.database.command("find", "many", filter={}, batchSize=2)
    cursor_id = reply["cursor"]["id"]
    many.database.command("killCursors", "many", cursors=[cursor_id])
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        many.database.command("getMore", cursor_id, collection="many")
    assert info.value.code == 43


def test_kill_cursors_of_unknown_ids_is_not_an_error(many):
    reply = many.database.command("killCursors", "many", cursors=[Int64(42)])
    assert reply["ok"] == 1.0 and reply["cursorsNotFound"] == [42]


def test_get_more_on_another_collection_is_refused(many):
    reply = many.database.command("find", "many", filter={}, batchSize=1)
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        many.database.command("getMore", reply["cursor"]["id"], collection="other")
    assert info.value.code == 13
    many.database.command("killCursors", "many", cursors=[reply["cursor"]["id"]])


def test_limit_over_batches(many):
    got = [d["_id"] for d in many.find({}, {"_id": 1}, limit=250, batch_size=100)]
    assert got == list(range(250))


def test_closing_a_partly_read_cursor_frees_it(many):
    cursor = many.find({}, batch_size=10)
    next(cursor)
    cursor_id = cursor.cursor_id
    cursor.close()
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        many.database.command("getMore", cursor_id, collection="many")
    assert info.value.code == 43


def test_writes_during_iteration_do_not_break_the_cursor(many, db):
    db.live.insert_many([{"_id": i} for i in range(500)])
    cursor = db.live.find({}, batch_size=50)
    first = [next(cursor)["_id"] for _ in range(60)]
    db.live.insert_many([{"_id": i} for i in range(500, 600)])
    db.live.delete_many({"_id": {"$gte": 400, "$lt": 500}})
    rest = [d["_id"] for d in cursor]
    seen = first + rest
    assert len(seen) == len(set(seen)), "a document was returned twice"
    assert first == list(range(60))
    assert set(range(60, 400)) <= set(seen)
