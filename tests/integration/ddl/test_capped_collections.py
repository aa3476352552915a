"""Capped collections (create with capped, size and max): they keep insertion order, drop their
oldest documents on insert once `max` documents or `size` bytes of BSON are exceeded, and refuse
what mongod 7.0/8.0 refuses (transactions, TTL indexes, $out, tailable cursors elsewhere) with
mongod's codes and messages."""

import threading
import time

import bson
import pymongo
import pymongo.errors
import pytest
from pymongo.cursor import CursorType

from quarry_server import CLIENT_OPTIONS

# A range check from the command parser: 51024 on mongod 7.0, 2 (BadValue) on 8.x, same text.
RANGE_ERROR_CODES = (2, 51024)
NO_DOCUMENT_LIMIT = 2147483647  # what mongod stores for max <= 0


def command_error(call):
    with pytest.raises(pymongo.errors.OperationFailure) as raised:
        call()
    return raised.value


def errmsg(error):
    return (error.details or {}).get("errmsg", str(error))


def code_and_message(error):
    """(code, errmsg) of an error, or of the first write error of a bulk write."""
    if isinstance(error, pymongo.errors.BulkWriteError):
        first = error.details["writeErrors"][0]
        return first["code"], first["errmsg"]
    return error.code, errmsg(error)


def create_capped(db, name, size=4096, **extra):
    db.command("create", name, capped=True, size=size, **extra)
    return db[name]


def ids(docs):
    return [d["_id"] for d in docs]


def options(db, name):
    return next(db.list_collections(filter={"name": name}))["options"]


def padded(i, pad):
    return {"_id": i, "pad": "x" * pad}


# --- create -------------------------------------------------------------------------------


def test_list_collections_shows_capped_options_as_mongod_stores_them(db):
    create_capped(db, "a", size=4096, max=3)
    listed = options(db, "a")
    assert listed == {"capped": True, "size": 4096, "max": 3}
    assert list(listed) == ["capped", "size", "max"]
    assert type(listed["size"]) is int and type(listed["max"]) is int
    # Since 6.2 the size is kept as given, not rounded up to a multiple of 256.
    create_capped(db, "b", size=1000)
    assert options(db, "b") == {"capped": True, "size": 1000}
    # A fractional size is truncated; pymongo's create_collection sends size as a double.
    create_capped(db, "c", size=1000.7)
    assert options(db, "c") == {"capped": True, "size": 1000}
    db.create_collection("d", capped=True, size=5000)
    assert options(db, "d") == {"capped": True, "size": 5000}
    assert type(options(db, "d")["size"]) is int
    # max <= 0 means no document limit, stored as 2^31 - 1.
    create_capped(db, "e", size=1000, max=0)
    create_capped(db, "f", size=1000, max=-5)
    assert options(db, "e") == options(db, "f") == {"capped": True, "size": 1000,
                                                   "max": NO_DOCUMENT_LIMIT}


def test_create_needs_size_with_capped_and_capped_with_size_or_max(db):
    cases = [
        ({"capped": True}, "the 'size' field is required when 'capped' is true"),
        ({"capped": True, "max": 5}, "the 'size' field is required when 'capped' is true"),
        ({"size": 4096}, "the 'capped' field needs to be true when either the 'size' or 'max' "
                         "fields are present"),
        ({"max": 5}, "the 'capped' field needs to be true when either the 'size' or 'max' "
                     "fields are present"),
        ({"capped": False, "size": 4096}, "the 'capped' field needs to be true when either "
                                          "the 'size' or 'max' fields are present"),
    ]
    for extra, message in cases:
        error = command_error(lambda: db.command("create", "bad", **extra))
        assert error.code == 72, (extra, error.details)
        assert errmsg(error) == message, extra
    assert "bad" not in db.list_collection_names()


def test_create_refuses_a_size_or_max_out_of_range(db):
    cases = [
        ({"size": 0}, "BSON field 'size' value must be >= 1, actual value '0'"),
        ({"size": -500}, "BSON field 'size' value must be >= 1, actual value '-500'"),
        ({"size": 0.5}, "BSON field 'size' value must be >= 1, actual value '0'"),
        ({"size": 2 ** 62}, "BSON field 'size' value must be <= 1125899906842624, "
                            "actual value '4611686018427387904'"),
        ({"size": 4096, "max": 2 ** 31},
         "BSON field 'max' value must be < 2147483648, actual value '2147483648'"),
    ]
    for extra, message in cases:
        error = command_error(lambda: db.command("create", "bad", capped=True, **extra))
        assert error.code in RANGE_ERROR_CODES, (extra, error.details)
        assert errmsg(error) == message, extra
    # The largest size allowed is 1 PB, and max just under 2^31.
    create_capped(db, "huge", size=2 ** 50, max=2 ** 31 - 1)
    assert options(db, "huge") == {"capped": True, "size": 2 ** 50, "max": 2 ** 31 - 1}
    assert "bad" not in db.list_collection_names()


def test_create_refuses_wrongly_typed_capped_size_and_max(db):
    cases = [
        ({"capped": "yes", "size": 4096}, "BSON field 'create.capped' is the wrong type 'string'"),
        ({"capped": True, "size": "big"}, "BSON field 'create.size' is the wrong type 'string'"),
        ({"capped": True, "size": 4096, "max": "3"},
         "BSON field 'create.max' is the wrong type 'string'"),
    ]
    for extra, prefix in cases:
        error = command_error(lambda: db.command("create", "bad", **extra))
        assert error.code == 14, (extra, error.details)
        assert errmsg(error).startswith(prefix), (extra, errmsg(error))
    assert "bad" not in db.list_collection_names()


def test_creating_it_again_with_the_same_options_is_accepted_and_other_options_are_not(db):
    create_capped(db, "log", size=1000, max=0)
    create_capped(db, "log", size=1000.9, max=-7)  # the same once normalised
    assert command_error(lambda: create_capped(db, "log", size=2000)).code == 48
    assert options(db, "log") == {"capped": True, "size": 1000, "max": NO_DOCUMENT_LIMIT}


def test_coll_stats_and_coll_stats_stage_report_capped_max_and_max_size(db):
    create_capped(db, "limited", size=4096, max=3)
    create_capped(db, "nomax", size=4096)
    db.plain.insert_one({"_id": 1})
    for name, max_docs in (("limited", 3), ("nomax", 0)):
        stats = db.command("collStats", name)
        assert (stats["capped"], stats["max"], stats["maxSize"]) == (True, max_docs, 4096), name
        stage = next(db[name].aggregate([{"$collStats": {"storageStats": {}}}]))
        storage = stage["storageStats"]
        assert (storage["capped"], storage["max"], storage["maxSize"]) == (True, max_docs, 4096)
    assert db.command("collStats", "limited", scale=1024)["maxSize"] == 4
    plain = db.command("collStats", "plain")
    assert plain["capped"] is False
    assert "max" not in plain and "maxSize" not in plain


def test_a_capped_collection_has_the_usual_id_index(db):
    log = create_capped(db, "log")
    assert [i["name"] for i in log.list_indexes()] == ["_id_"]
    log.create_index("k")
    assert [i["name"] for i in log.list_indexes()] == ["_id_", "k_1"]


# --- natural order ------------------------------------------------------------------------


def test_natural_order_is_insertion_order_not_id_order(db):
    one_by_one = create_capped(db, "one_by_one", size=100000)
    for i in (5, 1, 3, 2, 4):
        one_by_one.insert_one({"_id": i, "k": i})
    together = create_capped(db, "together", size=100000)
    together.insert_many([{"_id": i, "k": i} for i in (5, 1, 3, 2, 4)])
    for coll in (one_by_one, together):
        assert ids(coll.find()) == [5, 1, 3, 2, 4]
        assert ids(coll.find().sort("$natural", 1)) == [5, 1, 3, 2, 4]
        assert ids(coll.find().sort("$natural", -1)) == [4, 2, 3, 1, 5]
        assert ids(coll.find({"k": {"$gte": 2}})) == [5, 3, 2, 4]
        assert ids(coll.aggregate([])) == [5, 1, 3, 2, 4]
        assert ids(coll.aggregate([{"$match": {"k": {"$lte": 3}}}])) == [1, 3, 2]
        assert ids(coll.find().sort("_id", 1)) == [1, 2, 3, 4, 5]


# --- eviction -----------------------------------------------------------------------------


def test_max_keeps_the_newest_documents_inserted_one_at_a_time(db):
    log = create_capped(db, "log", size=4096, max=3)
    for i in (50, 10, 40, 20, 30):
        log.insert_one({"_id": i})
    assert ids(log.find()) == [40, 20, 30]
    assert log.count_documents({}) == 3
    assert log.estimated_document_count() == 3


def test_max_keeps_the_newest_documents_of_one_insert_many(db):
    log = create_capped(db, "log", size=4096, max=3)
    result = log.insert_many([{"_id": i} for i in (50, 10, 40, 20, 30)])
    assert result.inserted_ids == [50, 10, 40, 20, 30]
    assert ids(log.find()) == [40, 20, 30]
    assert log.count_documents({}) == 3


@pytest.mark.parametrize("how", ["one_at_a_time", "insert_many"])
def test_size_keeps_the_newest_documents_that_fit(db, how):
    log = create_capped(db, "log", size=4096)
    docs = [padded(i, 180) for i in range(100)]
    doc_size = len(bson.BSON.encode(docs[0]))
    assert all(len(bson.BSON.encode(d)) == doc_size for d in docs) and 190 < doc_size < 210
    if how == "one_at_a_time":
        for doc in docs:
            log.insert_one(doc)
    else:
        log.insert_many(docs)
    kept = list(log.find())
    # Oldest documents go while the BSON bytes exceed size: as many of the newest as fit remain.
    fit = 4096 // doc_size
    assert ids(kept) == list(range(100 - fit, 100))
    assert sum(len(bson.BSON.encode(d)) for d in kept) <= 4096
    assert log.count_documents({}) == fit


def test_a_bulk_insert_far_past_the_limit_keeps_the_newest(db):
    log = create_capped(db, "log", size=10_000_000, max=100)
    log.create_index("n")
    log.insert_many([{"n": n} for n in range(25_000)])
    assert [d["n"] for d in log.find()] == list(range(24_900, 25_000))
    assert log.count_documents({"n": {"$lt": 24_900}}) == 0
    assert db.command("validate", "log")["valid"] is True


def test_a_secondary_index_forgets_evicted_documents(db):
    log = create_capped(db, "log", size=100000, max=5)
    log.create_index("k")
    for i in range(20):
        log.insert_one({"_id": i, "k": 100 - i})
    assert ids(log.find()) == [15, 16, 17, 18, 19]
    assert ids(log.find({"k": {"$gte": 0}}).hint("k_1")) == [19, 18, 17, 16, 15]
    assert ids(log.find({"k": {"$lte": 90}}).hint([("k", 1)])) == [19, 18, 17, 16, 15]
    assert list(log.find({"k": 97}).hint("k_1")) == []
    assert log.find_one({"_id": 3}) is None
    assert log.find_one({"_id": 17}) == {"_id": 17, "k": 83}
    assert sorted(log.distinct("k")) == [81, 82, 83, 84, 85]


def test_concurrent_writers_keep_the_limit_and_each_writer_s_order(db):
    log = create_capped(db, "log", size=1_000_000, max=50)
    log.create_index("writer")
    per_writer = 150

    def write(writer):
        for n in range(per_writer):
            log.insert_one({"writer": writer, "n": n})

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kept = list(log.find())
    assert len(kept) == 50 and log.count_documents({}) == 50
    # Each writer's documents are kept in the order it inserted them, and they are its newest.
    for writer in range(4):
        mine = [d["n"] for d in kept if d["writer"] == writer]
        assert mine == list(range(per_writer - len(mine), per_writer)), writer
    assert sum(1 for _ in log.find({"writer": {"$gte": 0}}).hint("writer_1")) == 50
    assert db.command("validate", "log")["valid"] is True


def test_a_change_stream_shows_evictions_as_deletes(db):
    # mongod 5.0+ logs capped deletes as ordinary delete entries, which change streams read.
    log = create_capped(db, "log", size=4096, max=2)
    with log.watch(max_await_time_ms=2000) as stream:
        for i in (1, 2, 3):
            log.insert_one({"_id": i})
        events = [(e["operationType"], e["documentKey"]["_id"])
                  for e in (stream.next() for _ in range(4))]
    assert events == [("insert", 1), ("insert", 2), ("insert", 3), ("delete", 1)]


def test_explain_shows_a_collection_scan_in_natural_order(db):
    log = create_capped(db, "log")
    log.insert_many([{"_id": 2}, {"_id": 1}])
    plan = log.find({"x": {"$exists": False}}).explain()["queryPlanner"]["winningPlan"]
    assert (plan["stage"], plan["direction"]) == ("COLLSCAN", "forward")
    backward = log.find().sort("$natural", -1).explain()["queryPlanner"]["winningPlan"]
    assert (backward["stage"], backward["direction"]) == ("COLLSCAN", "backward")


# --- deletes and updates ------------------------------------------------------------------


def test_user_deletes_work_and_later_inserts_evict_the_oldest_survivors(db):
    log = create_capped(db, "log", size=100000, max=5)
    for i in (10, 50, 20, 40, 30):
        log.insert_one({"_id": i})
    assert log.delete_one({"_id": 50}).deleted_count == 1
    assert log.delete_many({"_id": {"$in": [40, 41]}}).deleted_count == 1
    assert ids(log.find()) == [10, 20, 30]
    for i in (60, 70, 80):
        log.insert_one({"_id": i})
    assert ids(log.find()) == [20, 30, 60, 70, 80]
    log.insert_one({"_id": 90})
    assert ids(log.find()) == [30, 60, 70, 80, 90]
    assert log.count_documents({}) == 5
    assert log.find_one_and_delete({"_id": 70}) == {"_id": 70}
    assert ids(log.find().sort("$natural", -1)) == [90, 80, 60, 30]
    assert log.delete_many({}).deleted_count == 4
    log.insert_many([{"_id": 1}, {"_id": 0}])
    assert ids(log.find()) == [1, 0]


def test_an_update_that_keeps_the_size_keeps_the_document_in_place(db):
    log = create_capped(db, "log", size=100000)
    log.insert_many([{"_id": i, "v": "aaaa"} for i in (3, 1, 2)])
    result = log.update_one({"_id": 1}, {"$set": {"v": "bbbb"}})
    assert (result.matched_count, result.modified_count) == (1, 1)
    assert list(log.find()) == [{"_id": 3, "v": "aaaa"}, {"_id": 1, "v": "bbbb"},
                                {"_id": 2, "v": "aaaa"}]


def test_an_update_that_changes_the_size_is_allowed(db):
    # mongod refused size changes (10003) until FCV 5.3; 6.0, 7.0 and 8.0 allow them.
    log = create_capped(db, "log", size=100000)
    log.insert_many([{"_id": i, "v": "aaaa"} for i in (3, 1, 2)])
    longer = "a much longer value than before"
    assert log.update_one({"_id": 1}, {"$set": {"v": longer, "extra": [1, 2, 3]}}).modified_count
    assert log.update_one({"_id": 2}, {"$unset": {"v": ""}}).modified_count == 1
    assert log.replace_one({"_id": 3}, {"w": 1}).modified_count == 1
    assert list(log.find()) == [{"_id": 3, "w": 1},
                                {"_id": 1, "v": longer, "extra": [1, 2, 3]},
                                {"_id": 2}]
    log.insert_one({"_id": 4})
    assert ids(log.find()) == [3, 1, 2, 4]


def test_only_an_insert_evicts(db):
    log = create_capped(db, "log", size=1000)
    log.insert_many([{"_id": i, "pad": ""} for i in range(3)])
    # Updates take the collection past its size; as in mongod, the next insert evicts.
    log.update_many({}, {"$set": {"pad": "x" * 400}})
    assert ids(log.find()) == [0, 1, 2]
    log.insert_one({"_id": 3})
    assert ids(log.find()) == [1, 2, 3]


def test_a_duplicate_id_into_a_full_capped_collection_fails_and_evicts_nothing(db):
    log = create_capped(db, "log", size=4096, max=3)
    log.insert_many([{"_id": 1}, {"_id": 2}, {"_id": 3}])
    with pytest.raises(pymongo.errors.DuplicateKeyError) as raised:
        log.insert_one({"_id": 2, "again": True})
    assert raised.value.code == 11000
    assert list(log.find()) == [{"_id": 1}, {"_id": 2}, {"_id": 3}]
    # An ordered insert stops at the duplicate: the document before it went in (evicting 1).
    with pytest.raises(pymongo.errors.BulkWriteError) as bulk:
        log.insert_many([{"_id": 4}, {"_id": 3}])
    details = bulk.value.details
    assert details["nInserted"] == 1
    assert [(e["index"], e["code"]) for e in details["writeErrors"]] == [(1, 11000)]
    assert ids(log.find()) == [2, 3, 4]


# --- what capped collections refuse -------------------------------------------------------


def refused_in_a_transaction(client, write):
    with client.start_session() as session:
        session.start_transaction()
        try:
            with pytest.raises(pymongo.errors.OperationFailure) as raised:
                write(session)
        finally:
            session.abort_transaction()
    return raised.value


def test_writes_to_a_capped_collection_in_a_transaction_are_refused(client, db):
    log = create_capped(db, "log", size=100000)
    log.insert_one({"_id": 1, "a": 1})
    db.create_collection("plain")
    refused = (f"Collection '{db.name}.log' is a capped collection. Writes in transactions "
               "are not allowed on capped collections.")
    for write in (lambda s: log.insert_one({"_id": 2}, session=s),
                  lambda s: log.insert_many([{"_id": 3}, {"_id": 4}], ordered=False, session=s),
                  lambda s: log.update_one({"_id": 1}, {"$set": {"a": 2}}, session=s),
                  lambda s: log.update_one({"_id": 9}, {"$set": {"a": 2}}, upsert=True,
                                           session=s),
                  lambda s: log.find_one_and_update({"_id": 1}, {"$set": {"a": 3}}, session=s)):
        error = refused_in_a_transaction(client, write)
        assert code_and_message(error) == (263, refused), error.details
    error = refused_in_a_transaction(client, lambda s: log.delete_one({"_id": 1}, session=s))
    assert code_and_message(error) == (
        20, f"Cannot remove from a capped collection in a multi-document transaction: "
            f"{db.name}.log"), error.details
    # Reading it in a transaction is fine, and so is writing another collection there.
    with client.start_session() as session:
        with session.start_transaction():
            assert log.find_one({"_id": 1}, session=session) == {"_id": 1, "a": 1}
            db.plain.insert_one({"_id": 1}, session=session)
    assert list(log.find()) == [{"_id": 1, "a": 1}]
    assert db.plain.count_documents({}) == 1


def test_a_ttl_index_on_a_capped_collection_is_refused(db):
    log = create_capped(db, "log")
    error = command_error(lambda: log.create_index("at", expireAfterSeconds=60))
    assert error.code == 67
    assert errmsg(error) == "Cannot create TTL index on a capped collection"
    assert [i["name"] for i in log.list_indexes()] == ["_id_"]


def test_out_into_an_existing_capped_collection_is_refused(db):
    db.src.insert_many([{"_id": i} for i in range(3)])
    target = create_capped(db, "target")
    target.insert_one({"_id": "kept"})
    error = command_error(lambda: list(db.src.aggregate([{"$out": "target"}])))
    assert error.code == 17152
    assert errmsg(error) == f"namespace '{db.name}.target' is capped so it can't be used for $out"
    assert list(target.find()) == [{"_id": "kept"}]
    assert options(db, "target") == {"capped": True, "size": 4096}


# --- tailable cursors ---------------------------------------------------------------------


def test_a_tailable_cursor_returns_existing_documents_then_waits_for_new_ones(db):
    log = create_capped(db, "log", size=100000)
    log.insert_many([{"_id": i} for i in (3, 1, 2)])
    cursor = log.find(cursor_type=CursorType.TAILABLE)
    assert [cursor.next()["_id"] for _ in range(3)] == [3, 1, 2]
    with pytest.raises(StopIteration):
        cursor.next()
    assert cursor.alive
    log.insert_one({"_id": 0})
    assert cursor.next() == {"_id": 0}
    log.insert_many([{"_id": 7}, {"_id": 8}])
    assert [cursor.next()["_id"] for _ in range(2)] == [7, 8]
    with pytest.raises(StopIteration):
        cursor.next()
    assert cursor.alive
    cursor.close()


def test_get_more_at_the_end_of_a_tailable_cursor_returns_an_empty_batch_and_the_same_id(db):
    log = create_capped(db, "log", size=100000)
    log.insert_many([{"_id": 1}, {"_id": 2}])
    reply = db.command("find", "log", tailable=True)
    cursor_id = reply["cursor"]["id"]
    assert ids(reply["cursor"]["firstBatch"]) == [1, 2]
    assert cursor_id != 0
    more = db.command("getMore", cursor_id, collection="log")
    assert more["cursor"]["nextBatch"] == [] and more["cursor"]["id"] == cursor_id
    log.insert_one({"_id": 3})
    more = db.command("getMore", cursor_id, collection="log")
    assert more["cursor"]["nextBatch"] == [{"_id": 3}] and more["cursor"]["id"] == cursor_id
    db.command("killCursors", "log", cursors=[cursor_id])


def test_a_tailable_await_cursor_returns_a_document_inserted_while_it_waits(client, db):
    log = create_capped(db, "log", size=100000)
    log.insert_one({"_id": 1})
    cursor = log.find(cursor_type=CursorType.TAILABLE_AWAIT).max_await_time_ms(10000)
    assert cursor.next() == {"_id": 1}

    def insert_later():
        time.sleep(0.5)
        client[db.name].log.insert_one({"_id": 2})

    writer = threading.Thread(target=insert_later)
    started = time.monotonic()
    writer.start()
    try:
        got = cursor.next()
    finally:
        writer.join()
    waited = time.monotonic() - started
    assert got == {"_id": 2}
    assert 0.3 < waited < 8, waited
    assert cursor.alive
    cursor.close()


def test_an_await_data_get_more_with_nothing_new_waits_then_returns_empty(db):
    log = create_capped(db, "log", size=100000)
    log.insert_one({"_id": 1})
    cursor = log.find(cursor_type=CursorType.TAILABLE_AWAIT).max_await_time_ms(400)
    assert cursor.next() == {"_id": 1}
    started = time.monotonic()
    with pytest.raises(StopIteration):
        cursor.next()
    assert time.monotonic() - started >= 0.3
    assert cursor.alive
    cursor.close()


def test_a_tailable_find_on_a_collection_that_is_not_capped_is_refused(db):
    db.plain.insert_one({"_id": 1})
    # pymongo's tailable cursor hides a failed find as an empty one, so the command is sent as is.
    error = command_error(lambda: db.command("find", "plain", tailable=True))
    assert error.code == 2
    assert "tailable cursor requested on non capped collection" in errmsg(error)


def test_tailable_find_options_are_checked_as_mongod_checks_them(db):
    log = create_capped(db, "log")
    log.insert_one({"_id": 1})
    error = command_error(lambda: db.command("find", "log", tailable=True, sort={"_id": 1}))
    assert error.code == 2
    assert errmsg(error) == "cannot use tailable option with a sort other than {$natural: 1}"
    error = command_error(lambda: db.command("find", "log", tailable=True,
                                             sort={"$natural": -1}))
    assert error.code == 2
    error = command_error(lambda: db.command("find", "log", tailable=True, singleBatch=True))
    assert error.code == 2
    assert errmsg(error) == "cannot use tailable option with the 'singleBatch' option"
    error = command_error(lambda: db.command("find", "log", awaitData=True))
    assert error.code == 9
    assert errmsg(error) == "Cannot set 'awaitData' without also setting 'tailable'"
    reply = db.command("find", "log", tailable=True, sort={"$natural": 1})
    assert reply["cursor"]["firstBatch"] == [{"_id": 1}] and reply["cursor"]["id"] != 0
    db.command("killCursors", "log", cursors=[reply["cursor"]["id"]])


def test_query_exec_stats_count_a_tailable_scan_apart(db):
    log = create_capped(db, "log")
    log.insert_one({"_id": 1})

    def scans():
        return next(log.aggregate([{"$collStats": {"queryExecStats": {}}}]))["queryExecStats"]

    before = scans()["collectionScans"]
    reply = db.command("find", "log", tailable=True)
    db.command("killCursors", "log", cursors=[reply["cursor"]["id"]])
    list(log.find())
    after = scans()["collectionScans"]
    assert after["total"] - before["total"] == 2
    assert after["nonTailable"] - before["nonTailable"] == 1


def test_only_an_await_data_get_more_takes_max_time_ms(db):
    log = create_capped(db, "log")
    log.insert_many([{"_id": 1}, {"_id": 2}])
    plain = db.command("find", "log", tailable=True, batchSize=1)["cursor"]["id"]
    error = command_error(lambda: db.command("getMore", plain, collection="log", maxTimeMS=100))
    assert (error.code, errmsg(error)) == (
        2, "cannot set maxTimeMS on getMore command for a non-awaitData cursor")
    # The cursor is still there.
    more = db.command("getMore", plain, collection="log")
    assert more["cursor"]["nextBatch"] == [{"_id": 2}]
    waiting = db.command("find", "log", tailable=True, awaitData=True)["cursor"]["id"]
    started = time.monotonic()
    more = db.command("getMore", waiting, collection="log", maxTimeMS=200)
    assert more["cursor"]["nextBatch"] == [] and time.monotonic() - started >= 0.15
    db.command("killCursors", "log", cursors=[plain, waiting])


def test_a_tailable_find_on_an_empty_capped_collection_keeps_no_cursor(db):
    # mongod keeps a tailable cursor only if the collection has documents (SERVER-13955).
    create_capped(db, "log")
    reply = db.command("find", "log", tailable=True, awaitData=True)
    assert reply["cursor"]["firstBatch"] == [] and reply["cursor"]["id"] == 0


def test_a_tailable_cursor_whose_document_was_evicted_fails_with_capped_position_lost(db):
    log = create_capped(db, "log", size=4096, max=3)
    log.insert_many([{"_id": 1}, {"_id": 2}, {"_id": 3}])
    reply = db.command("find", "log", tailable=True, batchSize=1)
    assert reply["cursor"]["firstBatch"] == [{"_id": 1}]
    log.insert_many([{"_id": 4}, {"_id": 5}, {"_id": 6}])  # evicts 1, 2 and 3
    error = command_error(lambda: db.command("getMore", reply["cursor"]["id"], collection="log"))
    assert error.code == 136
    assert error.details.get("codeName") == "CappedPositionLost"


# --- life cycle ---------------------------------------------------------------------------


def test_options_order_and_eviction_survive_a_restart(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        db = c.t_capped_restart
        log = create_capped(db, "log", size=100000, max=5)
        for i in (40, 10, 30, 20):
            log.insert_one({"_id": i})
    own_server.restart()
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        db = c.t_capped_restart
        assert options(db, "log") == {"capped": True, "size": 100000, "max": 5}
        assert ids(db.log.find()) == [40, 10, 30, 20]
        # New documents come after the old ones, and the oldest is the first to go.
        db.log.insert_one({"_id": 5})
        db.log.insert_one({"_id": 1})
        assert ids(db.log.find()) == [10, 30, 20, 5, 1]
        assert ids(db.log.find().sort("$natural", -1)) == [1, 5, 20, 30, 10]
        assert db.command("collStats", "log")["capped"] is True


def test_a_crash_while_writers_insert_and_evict_leaves_a_consistent_collection(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        log = create_capped(c.t_capped_crash, "log", size=1_000_000, max=200)
        log.create_index("n")
    stop = threading.Event()

    def write(writer):
        with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
            n = 0
            while not stop.is_set():
                try:
                    c.t_capped_crash.log.insert_many([{"w": writer, "n": n + k} for k in range(20)])
                except pymongo.errors.PyMongoError:
                    return  # the server is gone
                n += 20

    threads = [threading.Thread(target=write, args=(w,)) for w in range(3)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    own_server.kill9()
    stop.set()
    for thread in threads:
        thread.join()
    own_server.start()
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        db = c.t_capped_crash
        assert db.command("validate", "log")["valid"] is True
        # The next insert evicts whatever the crash left beyond the limit.
        db.log.insert_one({"w": -1, "n": 0})
        assert db.log.count_documents({}) == 200
        kept = list(db.log.find())
        assert kept[-1]["w"] == -1
        for writer in range(3):
            mine = [d["n"] for d in kept if d["w"] == writer]
            assert mine == sorted(mine), writer
        assert db.command("validate", "log")["valid"] is True


def test_drop_and_create_again_with_the_same_name(db):
    log = create_capped(db, "log", size=4096, max=2)
    log.insert_many([{"_id": i} for i in range(3)])
    assert ids(log.find()) == [1, 2]
    log.drop()
    db.create_collection("log")
    db.log.insert_many([{"_id": i} for i in range(3)])
    assert db.log.count_documents({}) == 3
    assert db.command("collStats", "log")["capped"] is False
    db.log.drop()
    log = create_capped(db, "log", size=8192, max=1)
    assert options(db, "log") == {"capped": True, "size": 8192, "max": 1}
    log.insert_many([{"_id": "a"}, {"_id": "b"}])
    assert ids(log.find()) == ["b"]


def test_rename_keeps_a_collection_capped(db):
    log = create_capped(db, "log", size=4096, max=2)
    log.insert_many([{"_id": 2}, {"_id": 1}])
    log.rename("archive")
    assert "log" not in db.list_collection_names()
    assert options(db, "archive") == {"capped": True, "size": 4096, "max": 2}
    assert ids(db.archive.find()) == [2, 1]
    db.archive.insert_one({"_id": 0})
    assert ids(db.archive.find()) == [1, 0]
    assert db.command("collStats", "archive")["capped"] is True


def test_convert_to_capped_turns_a_collection_into_a_capped_one(db):
    db.plain.insert_many([{"_id": i, "n": i} for i in range(1, 11)])
    reply = db.command("convertToCapped", "plain", size=100000)
    assert reply["ok"] == 1
    assert options(db, "plain") == {"capped": True, "size": 100000}
    assert ids(db.plain.find()) == list(range(1, 11))
    db.plain.insert_one({"_id": 0})
    assert ids(db.plain.find())[-1] == 0
    assert [i["name"] for i in db.plain.list_indexes()] == ["_id_"]
    # A smaller size keeps only the newest documents that fit.
    docs = [padded(i, 1000) for i in range(10)]
    doc_size = len(bson.BSON.encode(docs[0]))
    db.big.insert_many(docs)
    db.command("convertToCapped", "big", size=4096)
    assert ids(db.big.find()) == list(range(10 - 4096 // doc_size, 10))


def test_convert_to_capped_errors(db):
    db.plain.insert_one({"_id": 1})
    error = command_error(lambda: db.command("convertToCapped", "plain", size=0))
    assert (error.code, errmsg(error)) == (72, "invalid command spec")
    error = command_error(lambda: db.command("convertToCapped", "missing", size=4096))
    assert error.code == 26
    assert options(db, "plain") == {}


def test_clone_collection_as_capped_makes_a_capped_copy(db):
    db.src.insert_many([{"_id": i} for i in (3, 1, 2)])
    reply = db.command("cloneCollectionAsCapped", "src", toCollection="dst", size=100000)
    assert reply["ok"] == 1
    assert options(db, "dst") == {"capped": True, "size": 100000}
    assert options(db, "src") == {}
    assert ids(db.dst.find()) == ids(db.src.find())
    assert db.dst.count_documents({}) == 3
    error = command_error(lambda: db.command("cloneCollectionAsCapped", "src",
                                             toCollection="dst", size=100000))
    assert error.code == 48
    error = command_error(lambda: db.command("cloneCollectionAsCapped", "missing",
                                             toCollection="other", size=100000))
    assert error.code == 26
    # temp is kept in the copy's options, as create keeps it.
    db.command("cloneCollectionAsCapped", "src", toCollection="scratch", size=100000, temp=True)
    assert options(db, "scratch") == {"capped": True, "size": 100000, "temp": True}
    error = command_error(lambda: db.command("cloneCollectionAsCapped", "src",
                                             toCollection="zero", size=0))
    assert (error.code, errmsg(error)) == (72, "invalid command spec")


def test_coll_mod_changes_capped_size_and_max(db):
    log = create_capped(db, "log", size=4096, max=5)
    log.insert_many([{"_id": i} for i in range(1, 6)])
    assert db.command("collMod", "log", cappedSize=8192, cappedMax=2)["ok"] == 1
    assert options(db, "log") == {"capped": True, "size": 8192, "max": 2}
    stats = db.command("collStats", "log")
    assert (stats["max"], stats["maxSize"]) == (2, 8192)
    # The excess goes at the next insert.
    assert log.count_documents({}) == 5
    log.insert_one({"_id": 6})
    assert ids(log.find()) == [5, 6]
    db.command("collMod", "log", cappedMax=0)
    assert options(db, "log")["max"] == NO_DOCUMENT_LIMIT


def test_coll_mod_capped_errors(db):
    create_capped(db, "log", size=4096, max=5)
    db.create_collection("plain")
    for extra in ({"cappedSize": 5000}, {"cappedMax": 5}):
        error = command_error(lambda: db.command("collMod", "plain", **extra))
        assert (error.code, errmsg(error)) == (72, "Collection must be capped."), extra
    error = command_error(lambda: db.command("collMod", "log", cappedSize=0))
    assert error.code in RANGE_ERROR_CODES
    assert errmsg(error) == "BSON field 'cappedSize' value must be >= 1, actual value '0'"
    error = command_error(lambda: db.command("collMod", "log", cappedMax=2 ** 31))
    assert error.code in RANGE_ERROR_CODES
    assert errmsg(error) == ("BSON field 'cappedMax' value must be < 2147483648, "
                             "actual value '2147483648'")
    assert options(db, "log") == {"capped": True, "size": 4096, "max": 5}
    assert options(db, "plain") == {}
