"""Nesting limits as mongod sets them: a command nested past 200 levels below its top document
gets an Overflow (15) error reply on the same connection, and a stored document may nest at
most 180 levels (inserts and updates past that fail with Overflow)."""

import pymongo
import pymongo.errors
import pytest

OVERFLOW = 15


def nested(levels, leaf=1):
    """A value whose outermost document counts as level 1: nested(1) == {"a": leaf}."""
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def nested_and(depth):
    clause = {"x": 1}
    for _ in range(depth):
        clause = {"$and": [clause]}
    return clause


def connections_created(client):
    return client.admin.command("serverStatus")["connections"]["totalCreated"]


def test_a_command_nested_too_deeply_gets_an_error_reply_on_the_same_connection(db):
    db.c.insert_one({"_id": 1, "x": 1})
    created = connections_created(db.client)
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        list(db.c.find(nested_and(100)))
    assert failure.value.code == OVERFLOW
    assert "nested object depth" in str(failure.value)
    # The same connection answers the next command: the driver did not have to reconnect.
    assert db.c.find_one({"_id": 1}) == {"_id": 1, "x": 1}
    assert connections_created(db.client) == created


def test_a_deep_but_allowed_query_runs(db):
    db.c.insert_one({"_id": 1, "x": 1})
    assert [d["_id"] for d in db.c.find(nested_and(60))] == [1]


def test_a_query_tree_deeper_than_the_matcher_allows_is_an_error_reply(db):
    db.c.insert_one({"_id": 1, "x": 1})
    # $not nests one BSON level per query level, so 101 of them stay well within the BSON
    # limit and it is the query parser's own tree limit (100) that refuses them.
    clause = {"$gt": 0}
    for _ in range(101):
        clause = {"$not": clause}
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        list(db.c.find({"x": clause}))
    assert failure.value.code in (2, OVERFLOW)
    assert db.c.count_documents({}) == 1


@pytest.mark.parametrize("levels", [1, 100, 180])
def test_documents_up_to_180_levels_are_stored(db, levels):
    doc = {"_id": levels, "d": nested(levels - 1)}  # the top document + `levels - 1`
    db.c.insert_one(doc)
    assert db.c.find_one({"_id": levels}) == doc


@pytest.mark.parametrize("levels", [181, 190, 198])
def test_inserting_a_document_deeper_than_180_levels_fails_with_overflow(db, levels):
    with pytest.raises(pymongo.errors.WriteError) as failure:
        db.c.insert_one({"_id": levels, "d": nested(levels - 1)})
    assert failure.value.code == OVERFLOW
    assert "180 levels of nesting" in str(failure.value)
    assert db.c.count_documents({}) == 0


def test_an_update_that_makes_a_document_too_deep_fails_with_overflow(db):
    db.c.insert_one({"_id": 1, "d": nested(170)})
    with pytest.raises(pymongo.errors.WriteError) as failure:
        db.c.update_one({"_id": 1}, {"$set": {"e": nested(185)}})
    assert failure.value.code == OVERFLOW
    assert "maximum nesting depth of 180" in str(failure.value)
    with pytest.raises(pymongo.errors.WriteError) as failure:
        db.c.replace_one({"_id": 1}, {"e": nested(190)})
    assert failure.value.code == OVERFLOW
    assert db.c.find_one({"_id": 1})["d"] == nested(170)
