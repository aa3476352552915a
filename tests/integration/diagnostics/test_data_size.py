"""dataSize: a collection's documents and their BSON bytes, named by its full namespace, as
mongod answers it (the sizes are the documents' own, summed), with maxSize and maxObjects
stopping the count once passed."""

import bson
import pymongo
import pytest

DOCS = [{"_id": i, "s": "x" * i} for i in range(100)]
SIZES = [len(bson.encode(d)) for d in DOCS]


@pytest.fixture
def db(client):
    db = client.t_data_size
    db.c.drop()
    db.c.insert_many(DOCS)
    yield db
    db.c.drop()


def data_size(db, **fields):
    reply = db.command({"dataSize": f"{db.name}.c", **fields})
    assert reply["ok"] == 1.0
    return reply


def test_the_whole_collection_is_counted_exactly(db):
    reply = data_size(db)
    assert (reply["size"], reply["numObjects"], reply["estimate"]) == (sum(SIZES), 100, False)
    assert "maxReached" not in reply
    # Deletes and updates change the figures.
    db.c.delete_many({"_id": {"$gte": 50}})
    db.c.update_one({"_id": 0}, {"$set": {"s": "y" * 10}})
    reply = data_size(db)
    assert reply["numObjects"] == 50
    assert reply["size"] == sum(SIZES[1:50]) + len(bson.encode({"_id": 0, "s": "y" * 10}))


def test_limits_stop_the_count_once_passed(db):
    reply = data_size(db, maxObjects=10)
    assert (reply["numObjects"], reply["size"], reply["maxReached"]) == (11, sum(SIZES[:11]), True)
    reply = data_size(db, maxSize=100)
    # The documents in _id order until their sum passes 100 bytes, that one included.
    passed = next(n for n in range(1, 101) if sum(SIZES[:n]) > 100)
    assert (reply["numObjects"], reply["size"], reply["maxReached"]) == (
        passed, sum(SIZES[:passed]), True)
    # With estimate, each document counts as the average size.
    reply = data_size(db, maxSize=100, estimate=True)
    average = sum(SIZES) // 100
    assert reply["estimate"] is True
    assert reply["size"] == reply["numObjects"] * average
    assert reply["size"] > 100 >= reply["size"] - average


def test_a_missing_collection_is_empty(db):
    reply = db.command({"dataSize": f"{db.name}.missing"})
    assert (reply["size"], reply["numObjects"]) == (0, 0)
    assert "estimate" not in reply


def test_bad_requests_answer_mongods_codes(db):
    for command, code in [
        ({"dataSize": "c"}, 73),  # not a full namespace
        ({"dataSize": 5}, 73),
        ({"dataSize": f"{db.name}.c", "min": {"_id": 1}}, 2),
        ({"dataSize": f"{db.name}.c", "max": {"_id": 1}}, 2),
        ({"dataSize": f"{db.name}.c", "min": {"_id": 1}, "max": {"_id": 5}}, 238),
    ]:
        with pytest.raises(pymongo.errors.OperationFailure) as failure:
            db.command(command)
        assert failure.value.code == code, (command, failure.value.details)
