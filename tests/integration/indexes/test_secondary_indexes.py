"""Secondary indexes with pymongo: unique constraints and their DuplicateKey errors, builds over
existing data, multikey, sparse, partial and hidden indexes, dropIndexes, restarts, and the
plans explain reports. What a query returns through an index is compared with what a
collection scan ({$natural: 1} hint) returns for the same query."""

import threading

import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS

DUPLICATE_KEY = 11000
PARALLEL_ARRAYS = 171
BAD_VALUE = 2
NATURAL = [("$natural", 1)]


def plan_stages(explained):
    """Stage names of the winning plan, from the top down."""
    stages = []
    stage = explained["queryPlanner"]["winningPlan"]
    while stage is not None:
        stages.append(stage["stage"])
        stage = stage.get("inputStage")
    return stages


def index_scan(explained):
    stage = explained["queryPlanner"]["winningPlan"]
    while stage["stage"] != "IXSCAN":
        stage = stage["inputStage"]
    return stage


def stats(explained):
    s = explained["executionStats"]
    return s["nReturned"], s["totalKeysExamined"], s["totalDocsExamined"]


# Unique indexes

def test_a_duplicate_of_a_unique_key_fails_with_mongods_error_and_changes_nothing(db):
    db.users.create_index("email", unique=True)
    db.users.insert_one({"_id": 1, "email": "a@x"})
    with pytest.raises(pymongo.errors.DuplicateKeyError) as info:
        db.users.insert_one({"_id": 2, "email": "a@x"})
    details = info.value.details
    assert details["code"] == DUPLICATE_KEY
    assert details["keyPattern"] == {"email": 1}
    assert details["keyValue"] == {"email": "a@x"}
    assert details["errmsg"] == (f"E11000 duplicate key error collection: {db.name}.users "
                                 'index: email_1 dup key: { email: "a@x" }')
    assert list(db.users.find()) == [{"_id": 1, "email": "a@x"}]


def test_updates_and_upserts_into_a_taken_unique_key_fail(db):
    db.users.create_index("email", unique=True)
    db.users.insert_many([{"_id": 1, "email": "a"}, {"_id": 2, "email": "b"}])
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        db.users.update_one({"_id": 2}, {"$set": {"email": "a"}})
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        db.users.update_one({"_id": 3}, {"$set": {"email": "b"}}, upsert=True)
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        db.users.replace_one({"_id": 1}, {"email": "b"})
    assert sorted((d["_id"], d["email"]) for d in db.users.find()) == [(1, "a"), (2, "b")]
    # Freed keys can be taken: swap through a third value.
    db.users.update_one({"_id": 1}, {"$set": {"email": "c"}})
    db.users.update_one({"_id": 2}, {"$set": {"email": "a"}})
    assert db.users.find_one({"email": "a"})["_id"] == 2


def test_unordered_bulk_reports_each_duplicate_and_inserts_the_rest(db):
    db.users.create_index("email", unique=True)
    with pytest.raises(pymongo.errors.BulkWriteError) as info:
        db.users.insert_many([{"_id": i, "email": f"e{i % 3}"} for i in range(6)], ordered=False)
    assert info.value.details["nInserted"] == 3
    assert [e["index"] for e in info.value.details["writeErrors"]] == [3, 4, 5]
    assert all(e["code"] == DUPLICATE_KEY for e in info.value.details["writeErrors"])


def test_compound_unique_index_allows_each_field_to_repeat_alone(db):
    db.c.create_index([("a", 1), ("b", -1)], unique=True)
    db.c.insert_many([{"a": 1, "b": 1}, {"a": 1, "b": 2}, {"a": 2, "b": 1}])
    with pytest.raises(pymongo.errors.DuplicateKeyError) as info:
        db.c.insert_one({"a": 1, "b": 2})
    assert info.value.details["keyPattern"] == {"a": 1, "b": -1}
    assert info.value.details["keyValue"] == {"a": 1, "b": 2}


def test_missing_fields_count_as_null_in_a_unique_index_unless_sparse(db):
    db.c.create_index("u", unique=True)
    db.c.insert_one({"_id": 1})
    with pytest.raises(pymongo.errors.DuplicateKeyError) as info:
        db.c.insert_one({"_id": 2})
    assert info.value.details["keyValue"] == {"u": None}
    db.s.create_index("u", unique=True, sparse=True)
    db.s.insert_many([{"_id": 1}, {"_id": 2}, {"_id": 3, "u": 1}])
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        db.s.insert_one({"_id": 4, "u": 1})


def test_concurrent_clients_never_store_a_duplicate_unique_key(server, db):
    db.c.create_index("k", unique=True)
    inserted = []

    def insert(worker):
        with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
            coll = c[db.name].c
            for i in range(200):
                try:
                    coll.insert_one({"_id": f"{worker}-{i}", "k": i})
                    inserted.append(i)
                except pymongo.errors.DuplicateKeyError:
                    pass

    threads = [threading.Thread(target=insert, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(inserted) == list(range(200))
    assert db.c.count_documents({}) == 200
    assert sorted(d["k"] for d in db.c.find({}, {"k": 1})) == list(range(200))


# Builds

def test_a_build_over_duplicates_fails_and_leaves_no_index_behind(db):
    db.c.insert_many([{"_id": i, "k": i % 5} for i in range(20)])
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.c.create_index("k", unique=True)
    assert info.value.code == DUPLICATE_KEY
    assert info.value.details["keyPattern"] == {"k": 1}
    assert [i["name"] for i in db.c.list_indexes()] == ["_id_"]
    # No entry of the failed build is left to collide with: a new unique build succeeds.
    db.c.delete_many({"_id": {"$gte": 5}})
    assert db.c.create_index("k", unique=True) == "k_1"
    assert sorted(d["k"] for d in db.c.find({"k": {"$gte": 0}})) == [0, 1, 2, 3, 4]


def test_a_build_indexes_every_existing_document(db):
    db.c.insert_many([{"_id": i, "g": i % 7, "v": i} for i in range(3000)])
    db.c.create_index([("g", 1), ("v", -1)])
    explained = db.c.find({"g": 3}).explain()
    assert plan_stages(explained) == ["FETCH", "IXSCAN"]
    assert stats(explained) == (429, 429, 429)
    assert sorted(d["_id"] for d in db.c.find({"g": 3})) == [i for i in range(3000) if i % 7 == 3]


def test_create_indexes_reports_counts_and_repeats_are_no_ops(db):
    reply = db.command("createIndexes", "c", indexes=[{"key": {"a": 1}, "name": "a_1"},
                                                      {"key": {"b": 1}, "name": "b_1"}])
    assert (reply["numIndexesBefore"], reply["numIndexesAfter"]) == (1, 3)
    assert reply["createdCollectionAutomatically"] is True
    again = db.command("createIndexes", "c", indexes=[{"key": {"a": 1}, "name": "a_1"}])
    assert again["numIndexesBefore"] == again["numIndexesAfter"] == 3
    assert again["note"] == "all indexes already exist"


def test_unknown_index_options_are_refused(db):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("createIndexes", "c", indexes=[{"key": {"a": 1}, "name": "a_1", "bogus": 1}])
    assert info.value.code == 197
    db.command("createIndexes", "c", indexes=[{"key": {"a": 1}, "name": "a_1", "bogus": 1}],
               ignoreUnknownIndexOptions=True)
    assert "bogus" not in db.c.index_information()["a_1"]


# Multikey

def test_arrays_make_one_key_per_element(db):
    db.c.create_index("tags")
    db.c.insert_many([{"_id": 1, "tags": ["red", "blue"]}, {"_id": 2, "tags": "red"},
                      {"_id": 3, "tags": []}, {"_id": 4}])
    explained = db.c.find({"tags": "red"}).explain()
    assert index_scan(explained)["isMultiKey"] is True
    assert sorted(d["_id"] for d in db.c.find({"tags": "red"})) == [1, 2]
    # A document with two matching keys comes back once.
    assert [d["_id"] for d in db.c.find({"tags": {"$in": ["red", "blue"]}})] in ([1, 2], [2, 1])


def test_parallel_arrays_cannot_be_indexed(db):
    db.c.create_index([("a", 1), ("b", 1)])
    db.c.insert_one({"_id": 1, "a": [1, 2], "b": 1})
    with pytest.raises(pymongo.errors.WriteError) as info:
        db.c.insert_one({"_id": 2, "a": [1, 2], "b": [3, 4]})
    assert info.value.code == PARALLEL_ARRAYS
    assert "cannot index parallel arrays" in info.value.details["errmsg"]
    assert db.c.count_documents({}) == 1
    db.d.insert_one({"a": [1], "b": [2]})
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.d.create_index([("a", 1), ("b", 1)])
    assert info.value.code == PARALLEL_ARRAYS
    assert [i["name"] for i in db.d.list_indexes()] == ["_id_"]


# Sparse, partial, hidden

def test_a_partial_index_serves_only_queries_that_imply_its_filter(db):
    db.c.insert_many([{"_id": i, "rating": i, "name": f"n{i % 4}"} for i in range(40)])
    db.c.create_index("name", partialFilterExpression={"rating": {"$gt": 20}})
    implied = {"name": "n1", "rating": {"$gte": 30}}
    assert plan_stages(db.c.find(implied).explain()) == ["FETCH", "IXSCAN"]
    assert sorted(d["_id"] for d in db.c.find(implied)) == [33, 37]
    not_implied = {"name": "n1"}
    assert plan_stages(db.c.find(not_implied).explain()) == ["COLLSCAN"]
    assert len(list(db.c.find(not_implied))) == 10


def test_a_sparse_index_is_not_used_for_queries_that_match_missing_fields(db):
    db.c.create_index("s", sparse=True)
    db.c.insert_many([{"_id": 1, "s": 1}, {"_id": 2}])
    assert plan_stages(db.c.find({"s": 1}).explain()) == ["FETCH", "IXSCAN"]
    assert plan_stages(db.c.find({"s": None}).explain()) == ["COLLSCAN"]
    assert [d["_id"] for d in db.c.find({"s": None})] == [2]


def test_a_hidden_index_is_maintained_but_not_used(db):
    db.command("createIndexes", "c",
               indexes=[{"key": {"h": 1}, "name": "h_1", "hidden": True, "unique": True}])
    db.c.insert_one({"h": 1})
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        db.c.insert_one({"h": 1})
    assert plan_stages(db.c.find({"h": 1}).explain()) == ["COLLSCAN"]
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(db.c.find({"h": 1}).hint("h_1"))
    assert info.value.code == BAD_VALUE


def test_coll_mod_hides_and_unhides_an_index_by_name_or_key(db):
    db.c.create_index("h", name="by_h")
    db.c.insert_many([{"_id": i, "h": i} for i in range(20)])
    reply = db.command("collMod", "c", index={"name": "by_h", "hidden": True})
    assert (reply["hidden_old"], reply["hidden_new"]) == (False, True)
    assert db.c.index_information()["by_h"]["hidden"] is True
    assert plan_stages(db.c.find({"h": 3}).explain()) == ["COLLSCAN"]
    db.c.insert_one({"_id": 100, "h": 3})  # maintained while hidden
    reply = db.command("collMod", "c", index={"keyPattern": {"h": 1}, "hidden": False})
    assert (reply["hidden_old"], reply["hidden_new"]) == (True, False)
    assert "hidden" not in db.c.index_information()["by_h"]
    explained = db.c.find({"h": 3}).explain()
    assert plan_stages(explained) == ["FETCH", "IXSCAN"]
    assert stats(explained) == (2, 2, 2)


@pytest.mark.parametrize("option, code", [
    ({"name": "nope", "hidden": True}, 27),
    ({"name": "_id_", "hidden": True}, 72),
    ({"name": "by_h"}, 72),
    ({"hidden": True}, 72),
    ({"name": "by_h", "keyPattern": {"h": 1}, "hidden": True}, 72),
    ({"name": "by_h", "hidden": 1}, 14),
    ({"name": "by_h", "color": "red"}, 40415),
    ({"name": "by_h", "unique": True}, 238),
])
def test_coll_mod_index_errors(db, option, code):
    db.c.create_index("h", name="by_h")
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("collMod", "c", index=option)
    assert info.value.code == code
    assert "hidden" not in db.c.index_information()["by_h"]


# Dropping

def test_dropped_indexes_leave_no_entries_and_can_be_created_again(db):
    db.c.insert_many([{"_id": i, "k": i} for i in range(100)])
    db.c.create_index("k", unique=True)
    db.c.drop_index("k_1")
    db.c.insert_one({"_id": 100, "k": 5})  # no longer unique
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.c.create_index("k", unique=True)
    assert info.value.code == DUPLICATE_KEY
    db.c.delete_one({"_id": 100})
    db.c.create_index("k", unique=True)
    assert [d["_id"] for d in db.c.find({"k": 5})] == [5]
    db.c.drop_indexes()
    assert [i["name"] for i in db.c.list_indexes()] == ["_id_"]


def test_a_recreated_collection_does_not_see_the_old_indexes_entries(db):
    db.c.create_index("k", unique=True)
    db.c.insert_many([{"k": i} for i in range(10)])
    db.c.drop()
    db.c.create_index("k", unique=True)
    db.c.insert_many([{"k": i} for i in range(10)])
    assert db.c.count_documents({"k": {"$lt": 100}}) == 10


# Plans and explain

def test_explain_reports_keys_and_documents_examined(db):
    db.c.insert_many([{"_id": i, "g": i % 10, "n": i} for i in range(1000)])
    db.c.create_index("g")
    n, keys, docs = stats(db.c.find({"g": 4}).explain())
    assert (n, keys, docs) == (100, 100, 100)
    scan = index_scan(db.c.find({"g": 4}).explain())
    assert scan["indexName"] == "g_1" and scan["keyPattern"] == {"g": 1}
    assert scan["indexBounds"] == {"g": ["[4, 4]"]}
    assert plan_stages(db.c.find({"n": 4}).explain()) == ["COLLSCAN"]
    assert stats(db.c.find({"n": 4}).explain())[2] == 1000


def test_sort_and_limit_through_an_index_examine_only_what_they_return(db):
    db.c.insert_many([{"_id": i, "price": (i * 7919) % 10007} for i in range(5000)])
    db.c.create_index("price")
    for direction in (1, -1):
        cursor = db.c.find({"price": {"$gt": 100}}).sort("price", direction).limit(10)
        explained = cursor.explain()
        assert "SORT" not in plan_stages(explained)
        assert stats(explained) == (10, 10, 10)
        prices = [d["price"] for d in db.c.find({"price": {"$gt": 100}}).sort("price", direction)
                  .limit(10)]
        expected = sorted((d["price"] for d in db.c.find({"price": {"$gt": 100}}).hint(NATURAL)),
                          reverse=direction < 0)[:10]
        assert prices == expected


def test_explain_of_count_update_delete_and_find_and_modify_uses_the_index(db):
    db.c.insert_many([{"_id": i, "g": i % 10} for i in range(100)])
    db.c.create_index("g")
    change = {"$set": {"x": 1}}
    # A command that acts on one document stops its plan at the first match, as mongod's does.
    for command, stage, keys in [
            ({"count": "c", "query": {"g": 1}}, "COUNT", 10),
            ({"distinct": "c", "key": "x", "query": {"g": 1}}, "DISTINCT", 10),
            ({"delete": "c", "deletes": [{"q": {"g": 1}, "limit": 0}]}, "DELETE", 10),
            ({"delete": "c", "deletes": [{"q": {"g": 1}, "limit": 1}]}, "DELETE", 1),
            ({"update": "c", "updates": [{"q": {"g": 1}, "u": change, "multi": True}]},
             "UPDATE", 10),
            ({"update": "c", "updates": [{"q": {"g": 1}, "u": change}]}, "UPDATE", 1),
            ({"findAndModify": "c", "query": {"g": 1}, "remove": True}, "DELETE", 1),
            ({"findAndModify": "c", "query": {"g": 1}, "update": change}, "UPDATE", 1)]:
        explained = db.command("explain", command, verbosity="executionStats")
        assert plan_stages(explained) == [stage, "FETCH", "IXSCAN"], command
        assert explained["executionStats"]["totalKeysExamined"] == keys, command
        assert explained["executionStats"]["totalDocsExamined"] == keys, command
    assert db.c.count_documents({}) == 100  # explain never writes
    assert db.c.count_documents({"x": 1}) == 0


def test_update_many_through_an_index_changes_each_document_once(db):
    db.c.insert_many([{"_id": i, "v": i} for i in range(100)])
    db.c.create_index("v")
    # Each change moves the document ahead of the index scan, into the range again.
    result = db.c.update_many({"v": {"$gte": 0}}, {"$inc": {"v": 1000}})
    assert result.matched_count == result.modified_count == 100
    assert sorted(d["v"] for d in db.c.find()) == list(range(1000, 1100))
    result = db.c.update_many({"v": {"$in": [1000, 1001, 2001]}}, {"$inc": {"v": 1000}})
    assert result.modified_count == 2
    assert db.c.count_documents({"v": {"$gte": 2000}}) == 2


def test_indexes_and_their_multikey_state_survive_a_restart(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        c.t.c.create_index("k", unique=True)
        c.t.c.create_index("tags")
        c.t.c.insert_many([{"_id": i, "k": i, "tags": [i, i + 1]} for i in range(50)])
    own_server.restart()
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        assert sorted(c.t.c.index_information()) == ["_id_", "k_1", "tags_1"]
        with pytest.raises(pymongo.errors.DuplicateKeyError):
            c.t.c.insert_one({"k": 3})
        explained = c.t.c.find({"tags": 7}).explain()
        assert index_scan(explained)["isMultiKey"] is True
        assert sorted(d["_id"] for d in c.t.c.find({"tags": 7})) == [6, 7]


def test_coll_stats_and_db_stats_report_each_index_and_its_size(db):
    db.c.insert_many([{"_id": i, "k": f"key-{i:06d}", "g": i % 3} for i in range(5000)])
    db.c.create_index("k", unique=True)
    db.c.create_index("g")
    stats = db.command("collStats", "c")
    assert stats["nindexes"] == 3
    assert sorted(stats["indexSizes"]) == ["_id_", "g_1", "k_1"]
    assert stats["indexSizes"]["k_1"] > 0 and stats["indexSizes"]["g_1"] > 0
    assert stats["totalIndexSize"] == sum(stats["indexSizes"].values())
    db_stats = db.command("dbStats")
    assert db_stats["indexes"] == 3
    # Sizes are RocksDB's estimates, which a flush between the two commands may change.
    assert db_stats["indexSize"] > 0
    storage = next(db.c.aggregate([{"$collStats": {"storageStats": {}}}]))["storageStats"]
    assert storage["nindexes"] == 3 and storage["totalIndexSize"] > 0


# $indexStats

def index_stats(db):
    return {s["name"]: s for s in db.c.aggregate([{"$indexStats": {}}])}


def test_index_stats_counts_the_queries_that_read_each_index(db):
    db.c.insert_many([{"_id": i, "k": i, "g": i % 3} for i in range(50)])
    db.c.create_index("k")
    db.c.create_index("g")
    before = index_stats(db)
    assert sorted(before) == ["_id_", "g_1", "k_1"]
    assert before["k_1"]["accesses"]["ops"] == 0
    assert before["k_1"]["key"] == {"k": 1}
    assert before["k_1"]["spec"]["name"] == "k_1"
    assert before["k_1"]["host"].endswith(":" + str(db.client.address[1]))
    for i in range(3):
        list(db.c.find({"k": i}))
    db.c.count_documents({"g": 1})
    list(db.c.find({"_id": 7}))
    list(db.c.find({"k": {"$gte": 0}}).batch_size(5))  # one query, however many getMores
    after = index_stats(db)
    assert after["k_1"]["accesses"]["ops"] == 4
    assert after["g_1"]["accesses"]["ops"] == 1
    assert after["_id_"]["accesses"]["ops"] - before["_id_"]["accesses"]["ops"] == 1
    assert after["k_1"]["accesses"]["since"] == before["k_1"]["accesses"]["since"]
    # The rest of the pipeline reads the stage's documents.
    counted = list(db.c.aggregate([{"$indexStats": {}}, {"$match": {"name": "g_1"}},
                                   {"$project": {"_id": 0, "ops": "$accesses.ops"}}]))
    assert counted == [{"ops": 1}]
    assert list(db.c.aggregate([{"$indexStats": {}}, {"$count": "n"}])) == [{"n": 3}]


def test_point_reads_through_a_unique_index_are_counted_and_logged_as_its_scan(db):
    db.c.insert_many([{"_id": i, "email": f"u{i}@x", "n": i} for i in range(20)])
    db.c.create_index("email", unique=True)
    db.command("profile", 2)
    assert db.c.find_one({"email": "u7@x"}) == {"_id": 7, "email": "u7@x", "n": 7}
    assert db.c.find_one({"email": "u7@x", "n": 8}) is None  # the rest of the filter applies
    assert db.c.find_one({"email": "nobody"}) is None
    db.command("profile", 0)
    assert index_stats(db)["email_1"]["accesses"]["ops"] == 3
    reads = list(db.system.profile.find({"op": "query", "ns": db.c.full_name}))
    assert [(r["planSummary"], r["keysExamined"], r["docsExamined"]) for r in reads] == [
        ("IXSCAN { email: 1 }", 1, 1), ("IXSCAN { email: 1 }", 1, 1), ("IXSCAN { email: 1 }", 0, 0)]
    plan = db.c.find({"email": "u7@x"}).explain()["queryPlanner"]["winningPlan"]
    assert (plan["stage"], plan["inputStage"]["stage"]) == ("FETCH", "IXSCAN")


def test_a_recreated_index_counts_from_its_creation(db):
    db.c.insert_many([{"k": i} for i in range(10)])
    db.c.create_index("k")
    list(db.c.find({"k": 1}))
    db.c.drop_index("k_1")
    db.c.create_index("k")
    assert index_stats(db)["k_1"]["accesses"]["ops"] == 0


@pytest.mark.parametrize("pipeline, code", [
    ([{"$indexStats": {"x": 1}}], 28803),
    ([{"$match": {}}, {"$indexStats": {}}], 40602),
])
def test_index_stats_errors(db, pipeline, code):
    db.c.insert_one({})
    with pytest.raises(pymongo.errors.OperationFailure) as failed:
        list(db.c.aggregate(pipeline))
    assert failed.value.code == code


def test_index_stats_of_a_missing_collection_is_empty(db):
    assert list(db.nope.aggregate([{"$indexStats": {}}])) == []


def test_a_range_on_a_non_multikey_index_reads_only_its_keys(db):
    db.c.create_index("a")
    db.c.insert_many([{"_id": i, "a": i} for i in range(1000)])
    query = {"a": {"$gte": 100, "$lt": 110}}
    explained = db.c.find(query).explain()
    stats = explained["executionStats"]
    assert (stats["nReturned"], stats["totalKeysExamined"]) == (10, 10)
    assert explained["queryPlanner"]["winningPlan"]["inputStage"]["indexBounds"] == {
        "a": ["[100, 110)"]}
    # Once a document holds an array there, one element may meet each bound: the bounds widen.
    db.c.insert_one({"_id": "arr", "a": [50, 500]})
    assert sorted((d["_id"] for d in db.c.find(query)), key=str) == sorted(
        [*range(100, 110), "arr"], key=str)
    assert db.c.find(query).explain()["queryPlanner"]["winningPlan"]["inputStage"][
        "indexBounds"] == {"a": ["[100, inf.0]"]}
