"""update / replace / findAndModify with pymongo."""

import pymongo
import pymongo.errors
import pytest
from bson.int64 import Int64
from pymongo import ReturnDocument


@pytest.fixture
def items(db):
    db.items.insert_many([{"_id": i, "n": i, "group": "odd" if i % 2 else "even", "meta": {"v": 1}}
                          for i in range(1, 7)])
    return db.items


def test_update_one_set_reports_matched_and_modified(items):
    result = items.update_one({"_id": 1}, {"$set": {"color": "red", "meta.v": 2}})
    assert (result.matched_count, result.modified_count) == (1, 1)
    assert items.find_one({"_id": 1}) == {"_id": 1, "n": 1, "group": "odd", "meta": {"v": 2},
                                         "color": "red"}


def test_update_that_changes_nothing_is_matched_but_not_modified(items):
    result = items.update_one({"_id": 2}, {"$set": {"n": 2}})
    assert (result.matched_count, result.modified_count) == (1, 0)


def test_update_one_changes_only_one_of_several_matches(items):
    result = items.update_one({"group": "odd"}, {"$set": {"hit": True}})
    assert (result.matched_count, result.modified_count) == (1, 1)
    assert items.count_documents({"hit": True}) == 1


def test_update_many_changes_every_match(items):
    result = items.update_many({"group": "even"}, {"$inc": {"n": 100}})
    assert (result.matched_count, result.modified_count) == (3, 3)
    assert sorted(d["n"] for d in items.find({"group": "even"})) == [102, 104, 106]


def test_unset_removes_fields_and_ignores_missing_ones(items):
    items.update_one({"_id": 3}, {"$unset": {"meta": "", "nothere": ""}})
    assert items.find_one({"_id": 3}) == {"_id": 3, "n": 3, "group": "odd"}


def test_inc_creates_missing_fields_and_keeps_number_types(items):
    items.update_one({"_id": 4}, {"$inc": {"n": 1, "counter": 5, "big": Int64(1), "f": 0.5}})
    doc = items.find_one({"_id": 4})
    assert doc["n"] == 5 and doc["counter"] == 5 and doc["f"] == 0.5
    assert type(doc["big"]) is Int64
    items.update_one({"_id": 4}, {"$inc": {"n": 1.5}})
    assert items.find_one({"_id": 4})["n"] == 6.5


def test_inc_on_a_string_fails_with_type_mismatch(items):
    with pytest.raises(pymongo.errors.WriteError) as info:
        items.update_one({"_id": 1}, {"$inc": {"group": 1}})
    assert info.value.code == 14
    assert items.find_one({"_id": 1})["group"] == "odd"


def test_unknown_update_operator_fails_with_failed_to_parse(items):
    with pytest.raises(pymongo.errors.WriteError) as info:
        items.update_one({"_id": 1}, {"$frobnicate": {"n": 1}})
    assert info.value.code == 9


def test_changing_id_fails_with_immutable_field(items):
    with pytest.raises(pymongo.errors.WriteError) as info:
        items.update_one({"_id": 1}, {"$set": {"_id": 99}})
    assert info.value.code == 66


def test_replace_one_keeps_id_and_replaces_everything_else(items):
    result = items.replace_one({"_id": 5}, {"only": "this"})
    assert (result.matched_count, result.modified_count) == (1, 1)
    assert items.find_one({"_id": 5}) == {"_id": 5, "only": "this"}


def test_replace_one_with_operators_is_refused_by_the_client(items):
    with pytest.raises(ValueError):
        items.replace_one({"_id": 5}, {"$set": {"x": 1}})


def test_upsert_inserts_with_fields_from_the_filter(items):
    result = items.update_one({"name": "new", "n": 50}, {"$set": {"extra": True}}, upsert=True)
    assert result.matched_count == 0 and result.upserted_id is not None
    doc = items.find_one({"_id": result.upserted_id})
    assert doc["name"] == "new" and doc["n"] == 50 and doc["extra"] is True


def test_upsert_with_an_id_in_the_filter_uses_it(items):
    result = items.update_one({"_id": 77}, {"$set": {"n": 77}}, upsert=True)
    assert result.upserted_id == 77
    assert items.find_one({"_id": 77}) == {"_id": 77, "n": 77}


def test_upsert_that_matches_updates_instead(items):
    result = items.update_one({"_id": 1}, {"$set": {"n": -1}}, upsert=True)
    assert result.upserted_id is None and result.modified_count == 1


def test_replace_one_upsert(items):
    result = items.replace_one({"_id": 88}, {"r": 1}, upsert=True)
    assert result.upserted_id == 88
    assert items.find_one({"_id": 88}) == {"_id": 88, "r": 1}


def test_set_on_insert_applies_only_when_inserting(items):
    items.update_one({"_id": 90}, {"$set": {"a": 1}, "$setOnInsert": {"created": True}},
                     upsert=True)
    items.update_one({"_id": 90}, {"$set": {"a": 2}, "$setOnInsert": {"created": False}},
                     upsert=True)
    assert items.find_one({"_id": 90}) == {"_id": 90, "a": 2, "created": True}


def test_update_on_missing_collection_matches_nothing(db):
    result = db.nothing.update_many({}, {"$set": {"x": 1}})
    assert (result.matched_count, result.modified_count) == (0, 0)


def test_push_and_pull(items):
    items.update_one({"_id": 1}, {"$push": {"list": {"$each": [3, 1, 2]}}})
    items.update_one({"_id": 1}, {"$pull": {"list": 1}})
    items.update_one({"_id": 1}, {"$addToSet": {"list": 3}})
    assert items.find_one({"_id": 1})["list"] == [3, 2]


def test_find_one_and_update_returns_before_or_after(items):
    before = items.find_one_and_update({"_id": 2}, {"$inc": {"n": 10}})
    assert before["n"] == 2
    after = items.find_one_and_update({"_id": 2}, {"$inc": {"n": 10}},
                                      return_document=ReturnDocument.AFTER)
    assert after["n"] == 22


def test_find_one_and_update_with_sort_and_projection(items):
    got = items.find_one_and_update({"group": "odd"}, {"$set": {"picked": True}},
                                    sort=[("n", -1)], projection={"n": 1, "_id": 0},
                                    return_document=ReturnDocument.AFTER)
    assert got == {"n": 5}
    assert items.find_one({"picked": True})["_id"] == 5


def test_find_one_and_update_upsert_and_missing(items):
    assert items.find_one_and_update({"_id": 500}, {"$set": {"x": 1}}) is None
    got = items.find_one_and_update({"_id": 500}, {"$set": {"x": 1}}, upsert=True,
                                    return_document=ReturnDocument.AFTER)
    assert got == {"_id": 500, "x": 1}


def test_find_one_and_replace(items):
    old = items.find_one_and_replace({"_id": 3}, {"replaced": True})
    assert old["n"] == 3
    assert items.find_one({"_id": 3}) == {"_id": 3, "replaced": True}


def test_find_one_and_delete(items):
    gone = items.find_one_and_delete({"group": "even"}, sort=[("n", 1)])
    assert gone["_id"] == 2
    assert items.find_one({"_id": 2}) is None
    assert items.find_one_and_delete({"_id": 12345}) is None


@pytest.mark.parametrize("bad_statement, code", [
    ({"q": {"_id": 3}, "u": {"$set": {"n": 0}}, "sort": {"_id": 1}}, 40415),  # 8.0's field
    ({"q": {"_id": 3}}, 40414),  # no u
])
def test_a_malformed_statement_fails_the_whole_update_before_any_statement_runs(
        items, db, bad_statement, code):
    # mongod parses every statement before running the first: the command fails, not just
    # that statement, and nothing is applied (a driver sees a failed command, not writeErrors).
    with pytest.raises(pymongo.errors.OperationFailure) as raised:
        db.command("update", "items", updates=[
            {"q": {"_id": 1}, "u": {"$set": {"n": 100}}},
            bad_statement,
        ])
    assert raised.value.code == code
    assert items.find_one({"_id": 1})["n"] == 1


def test_updates_by_id_in_one_command_see_each_other_in_order(db):
    # updateOne statements by _id share commits; a second statement for the same document must
    # still see the first one's change, and an ordered failure must stop what follows.
    db.seq.insert_many([{"_id": i, "n": 0} for i in range(10)] + [{"_id": "s", "n": "text"}])
    updates = []
    for i in range(10):
        updates.append({"q": {"_id": i}, "u": {"$inc": {"n": 1}}})
        updates.append({"q": {"_id": i}, "u": {"$mul": {"n": 10}}})
    reply = db.command("update", "seq", updates=updates)
    assert reply["n"] == 20 and reply["nModified"] == 20
    assert [d["n"] for d in db.seq.find({"_id": {"$lt": 10}}, sort=[("_id", 1)])] == [10] * 10

    failing = [{"q": {"_id": 0}, "u": {"$inc": {"n": 1}}},
               {"q": {"_id": "s"}, "u": {"$inc": {"n": 1}}},  # $inc on a string: error 14
               {"q": {"_id": 1}, "u": {"$inc": {"n": 1}}}]
    reply = db.command("update", "seq", updates=failing)
    assert reply["n"] == 1 and [e["index"] for e in reply["writeErrors"]] == [1]
    assert db.seq.find_one({"_id": 0})["n"] == 11 and db.seq.find_one({"_id": 1})["n"] == 10
    reply = db.command("update", "seq", updates=failing, ordered=False)
    assert reply["n"] == 2 and [e["index"] for e in reply["writeErrors"]] == [1]
    assert db.seq.find_one({"_id": 0})["n"] == 12 and db.seq.find_one({"_id": 1})["n"] == 11


def test_concurrent_bulk_increments_by_id_are_never_lost(server, db):
    # Two clients increment the same documents with 10,000-statement bulks at once: queued
    # changes whose document the other client changed first must run again, not vanish.
    import threading

    from pymongo import UpdateOne

    from quarry_server import CLIENT_OPTIONS

    db.counters.insert_many([{"_id": i, "n": 0} for i in range(1000)])
    rounds = 5
    modified = []

    def bump():
        with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
            coll = c[db.name].counters
            for _ in range(rounds):
                ops = [UpdateOne({"_id": i % 1000}, {"$inc": {"n": 1}}) for i in range(10000)]
                modified.append(coll.bulk_write(ops, ordered=False).modified_count)

    threads = [threading.Thread(target=bump) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert modified == [10000] * (2 * rounds)
    assert sorted({d["n"] for d in db.counters.find()}) == [2 * rounds * 10]


def test_upserts_by_id_in_one_command_report_each_index_and_create_each_document(db):
    # The collection does not exist yet: the first upsert creates it, the rest share commits.
    updates = [{"q": {"_id": i}, "u": {"$set": {"v": i}}, "upsert": True} for i in range(2000)]
    updates.append({"q": {"_id": 5}, "u": {"$inc": {"v": 100}}, "upsert": True})  # now exists
    reply = db.command("update", "fresh", updates=updates)
    assert reply["n"] == 2001 and reply["nModified"] == 1
    assert reply["upserted"] == [{"index": i, "_id": i} for i in range(2000)]
    assert db.fresh.count_documents({}) == 2000
    assert db.fresh.find_one({"_id": 5}) == {"_id": 5, "v": 105}
    assert db.fresh.find_one({"_id": 1999}) == {"_id": 1999, "v": 1999}


def test_an_upsert_whose_id_exists_but_fails_the_rest_of_the_filter_is_a_duplicate_key(db):
    db.clash.insert_one({"_id": 1, "x": 1})
    reply = db.command("update", "clash", ordered=False, updates=[
        {"q": {"_id": 2}, "u": {"$set": {"x": 2}}, "upsert": True},
        {"q": {"_id": 1, "x": 99}, "u": {"$set": {"x": 3}}, "upsert": True},
        {"q": {"_id": 3}, "u": {"$set": {"x": 3}}, "upsert": True},
    ])
    assert [e["index"] for e in reply["writeErrors"]] == [1]
    assert reply["writeErrors"][0]["code"] == 11000
    assert [u["index"] for u in reply["upserted"]] == [0, 2]
    assert db.clash.find_one({"_id": 1}) == {"_id": 1, "x": 1}
