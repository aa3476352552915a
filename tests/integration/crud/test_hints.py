"""hint with pymongo on find, count, aggregate, findAndModify, update and delete: a hint must
name a ready, visible index of the collection (else 2 BadValue); _id_, secondary indexes and
{$natural: 1 | -1} work. A hint to a sparse index reads through it, as mongod does, and so
returns only the documents the index holds."""

import pymongo
import pymongo.errors
import pytest
from bson.son import SON

BAD_VALUE = 2
NO_SUCH_INDEX = "hint provided does not correspond to an existing index"

MISSING = {"missing-name": "nope_1", "missing-pattern": [("nope", 1)]}
WORKING = {"id-name": "_id_", "id-pattern": [("_id", 1)], "secondary-name": "a_1",
           "secondary-pattern": [("a", 1)], "natural": [("$natural", 1)],
           "reverse-natural": [("$natural", -1)]}
SPARSE = {"sparse-name": "b_1", "sparse-pattern": [("b", 1)]}


@pytest.fixture
def hinted(db):
    db.h.insert_many([{"_id": i, "a": i % 3} for i in range(6)])
    db.h.create_index([("a", 1)])
    db.h.create_index([("b", 1)], sparse=True)
    return db.h


def ids(documents):
    return [d["_id"] for d in documents]


def as_document(hint):
    """The hint as a command carries it; pymongo 3.11's aggregate and command() send a list of
    pairs as an array, where its other helpers convert it."""
    return hint if isinstance(hint, str) else SON(hint)


# find

@pytest.mark.parametrize("hint", MISSING.values(), ids=MISSING.keys())
def test_find_with_a_hint_to_no_index_fails_with_bad_value(hinted, hint):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(hinted.find({"a": 1}, hint=hint))
    assert info.value.code == BAD_VALUE
    assert NO_SUCH_INDEX in info.value.details["errmsg"]


@pytest.mark.parametrize("hint", WORKING.values(), ids=WORKING.keys())
def test_find_with_a_hint_to_an_index_returns_the_matches(hinted, hint):
    assert sorted(ids(hinted.find({"a": 1}, hint=hint))) == [1, 4]


def test_find_with_a_reverse_natural_hint_returns_documents_in_reverse_id_order(hinted):
    assert ids(hinted.find({}, hint=[("$natural", -1)])) == [5, 4, 3, 2, 1, 0]
    assert ids(hinted.find({"a": 1}, hint=[("$natural", -1)])) == [4, 1]
    assert ids(hinted.find({}, hint=[("$natural", 1)])) == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("hint", SPARSE.values(), ids=SPARSE.keys())
def test_find_with_a_hint_to_a_sparse_index_returns_only_the_documents_it_holds(hinted, hint):
    assert list(hinted.find({"a": 1}, hint=hint)) == []  # no document has b
    hinted.update_one({"_id": 4}, {"$set": {"b": "x"}})
    assert ids(hinted.find({"a": 1}, hint=hint)) == [4]
    assert ids(hinted.find({"a": 1})) == [1, 4]  # unhinted, the sparse index is not used


def test_a_hint_to_a_dropped_index_fails_with_bad_value(hinted):
    hinted.drop_index("a_1")
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(hinted.find({}, hint="a_1"))
    assert info.value.code == BAD_VALUE


def test_a_hint_to_a_hidden_index_fails_with_bad_value(hinted):
    hinted.database.command("createIndexes", "h",
                            indexes=[{"key": {"c": 1}, "name": "c_1", "hidden": True}])
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(hinted.find({}, hint="c_1"))
    assert info.value.code == BAD_VALUE


# The other commands that take a hint: (what runs it, what it returns when it works).

def run_count(c, hint):
    return c.database.command("count", c.name, query={"a": 1}, hint=as_document(hint))["n"]


def run_find_and_modify(c, hint):
    found = c.find_one_and_update({"a": 1}, {"$set": {"x": 1}}, sort=[("_id", 1)], hint=hint)
    return found["_id"], ids(c.find({"x": 1}))


def run_update_one(c, hint):
    updated = c.update_one({"_id": 1}, {"$set": {"x": 1}}, hint=hint)
    return updated.modified_count, ids(c.find({"x": 1}))


def run_delete_one(c, hint):
    return c.delete_one({"_id": 1}, hint=hint).deleted_count, ids(c.find())


COMMANDS = {
    "count": (run_count, 2),
    "countDocuments": (lambda c, hint: c.count_documents({"a": 1}, hint=hint), 2),
    "aggregate": (lambda c, hint: sorted(ids(c.aggregate([{"$match": {"a": 1}}],
                                                          hint=as_document(hint)))), [1, 4]),
    "findAndModify": (run_find_and_modify, (1, [1])),
    "update": (run_update_one, (1, [1])),
    "delete": (run_delete_one, (1, [0, 2, 3, 4, 5])),
}


@pytest.mark.parametrize("hint", WORKING.values(), ids=WORKING.keys())
@pytest.mark.parametrize("command", COMMANDS)
def test_commands_with_a_hint_to_an_index_work(hinted, command, hint):
    run, expected = COMMANDS[command]
    assert run(hinted, hint) == expected


@pytest.mark.parametrize("hint", MISSING.values(), ids=MISSING.keys())
@pytest.mark.parametrize("command", COMMANDS)
def test_commands_with_a_bad_hint_fail_and_change_nothing(hinted, command, hint):
    run, _ = COMMANDS[command]
    with pytest.raises(pymongo.errors.OperationFailure) as info:  # WriteError for the writes
        run(hinted, hint)
    assert info.value.code == BAD_VALUE, info.value.details
    assert list(hinted.find({}, {"a": 0})) == [{"_id": i} for i in range(6)]


def test_an_update_statement_with_a_bad_hint_fails_alone(hinted):
    reply = hinted.database.command("update", "h", ordered=False, updates=[
        {"q": {"_id": 0}, "u": {"$set": {"x": 1}}, "hint": "nope_1"},
        {"q": {"_id": 1}, "u": {"$set": {"x": 1}}, "hint": "a_1"},
        {"q": {"_id": 2}, "u": {"$set": {"x": 1}}, "hint": "c_1"},
    ])
    assert [(e["index"], e["code"]) for e in reply["writeErrors"]] == [
        (0, BAD_VALUE), (2, BAD_VALUE)]
    assert reply["nModified"] == 1 and ids(hinted.find({"x": 1})) == [1]


def test_a_delete_statement_with_a_bad_hint_fails_alone(hinted):
    reply = hinted.database.command("delete", "h", ordered=False, deletes=[
        {"q": {"_id": 0}, "limit": 1, "hint": {"nope": 1}},
        {"q": {"_id": 1}, "limit": 1, "hint": {"_id": 1}},
        {"q": {"_id": 2}, "limit": 0, "hint": {"c": 1}},
    ])
    assert [(e["index"], e["code"]) for e in reply["writeErrors"]] == [
        (0, BAD_VALUE), (2, BAD_VALUE)]
    assert reply["n"] == 1 and ids(hinted.find()) == [0, 2, 3, 4, 5]


def test_aggregate_with_a_reverse_natural_hint_returns_documents_in_reverse_order(hinted):
    assert ids(hinted.aggregate([{"$match": {"a": 1}}], hint={"$natural": -1})) == [4, 1]


def change_first_match(c, write):
    # {a: 1} matches _id 1 and 4: the scan's first match is the one changed.
    hint = [("$natural", -1)]
    if write == "update_one":
        c.update_one({"a": 1}, {"$set": {"x": 1}}, hint=hint)
        return ids(c.find({"x": 1}))
    if write == "find_one_and_update":
        return [c.find_one_and_update({"a": 1}, {"$set": {"x": 1}}, hint=hint)["_id"]]
    c.delete_one({"a": 1}, hint=hint)
    return sorted(set(range(6)) - set(ids(c.find())))


@pytest.mark.parametrize("write", ["update_one", "find_one_and_update", "delete_one"])
def test_a_single_document_write_with_a_reverse_natural_hint_changes_the_last_match(hinted,
                                                                                     write):
    assert change_first_match(hinted, write) == [4]
