"""Cost-based plan choice as mongod makes it: candidate plans tried side by side, the most
productive kept (its trial results returned once each), the choice cached per query shape and
listed by $planCacheStats, planCacheClear, and explain's rejectedPlans and allPlansExecution."""

import pymongo
import pytest
from pymongo.errors import OperationFailure


def winning_index(planner):
    """The index name of the winning plan's IXSCAN, or None."""
    stage = planner["winningPlan"]
    while stage is not None:
        if stage["stage"] == "IXSCAN":
            return stage["indexName"]
        stage = stage.get("inputStage")
    return None


def explain_find(db, coll, filter, verbosity="allPlansExecution", **options):
    return db.command({"explain": {"find": coll, "filter": filter, **options},
                       "verbosity": verbosity})


def cache_entries(coll):
    return list(coll.aggregate([{"$planCacheStats": {}}]))


@pytest.fixture
def skewed(db):
    """a is the same everywhere, b is rare: {a: 1} is the rule's pick, {b: 1} the better one."""
    coll = db.skewed
    coll.insert_many([{"_id": i, "a": 1, "b": i % 500, "c": i} for i in range(2000)])
    coll.create_index("a")
    coll.create_index("b")
    return coll


def test_the_trial_picks_the_index_that_examines_fewer_keys(db, skewed):
    explained = explain_find(db, "skewed", {"a": 1, "b": 7}, "executionStats")
    assert winning_index(explained["queryPlanner"]) == "b_1"
    stats = explained["executionStats"]
    assert stats["nReturned"] == 4
    assert stats["totalKeysExamined"] <= 5
    rejected = explained["queryPlanner"]["rejectedPlans"]
    assert len(rejected) == 1
    assert rejected[0]["stage"] == "FETCH"
    assert rejected[0]["inputStage"]["indexName"] == "a_1"
    assert "nReturned" not in rejected[0]


def test_all_plans_execution_shows_each_candidates_trial(db, skewed):
    explained = explain_find(db, "skewed", {"a": 1, "b": 7})
    trials = explained["executionStats"]["allPlansExecution"]
    assert len(trials) == 2
    for trial in trials:
        assert set(trial) >= {"nReturned", "executionTimeMillisEstimate", "totalKeysExamined",
                              "totalDocsExamined", "executionStages"}
    winner, loser = trials
    assert winner["executionStages"]["inputStage"]["indexName"] == "b_1"
    assert loser["executionStages"]["inputStage"]["indexName"] == "a_1"
    assert winner["nReturned"] == 4
    # The loser ran as long as the winner took to finish, and found less.
    assert loser["nReturned"] < 4
    assert loser["totalKeysExamined"] >= winner["totalKeysExamined"]
    planner = explained["queryPlanner"]
    assert len(planner["queryHash"]) == 8 and len(planner["planCacheKey"]) == 8


def test_index_stats_count_the_chosen_plans_index_only(db, skewed):
    list(skewed.find({"a": 1, "b": 7}))
    ops = {s["name"]: s["accesses"]["ops"] for s in skewed.aggregate([{"$indexStats": {}}])}
    assert ops["b_1"] == 1
    assert ops["a_1"] == 0


def test_explain_neither_reads_nor_fills_the_cache(db, skewed):
    explain_find(db, "skewed", {"a": 1, "b": 7})
    db.command({"explain": {"count": "skewed", "query": {"a": 1, "b": 7}}})
    assert cache_entries(skewed) == []
    for _ in range(2):
        list(skewed.find({"a": 1, "b": 7}))
    assert cache_entries(skewed)[0]["isActive"] is True
    # An active entry does not hide the trial from explain.
    assert len(explain_find(db, "skewed", {"a": 1, "b": 7})["queryPlanner"]["rejectedPlans"]) == 1


def test_one_candidate_has_no_trial_and_no_rejected_plans(db, skewed):
    explained = explain_find(db, "skewed", {"b": 7})
    assert explained["queryPlanner"]["rejectedPlans"] == []
    assert explained["executionStats"]["allPlansExecution"] == []
    planner = skewed.find({"b": 7}).explain()["queryPlanner"]
    assert planner["winningPlan"]["stage"] == "FETCH"
    # The shape's hashes are shown all the same, and are the same for another value.
    assert planner["queryHash"] == explain_find(db, "skewed", {"b": 8})["queryPlanner"]["queryHash"]
    assert planner["queryHash"] != explain_find(db, "skewed", {"c": 8})["queryPlanner"]["queryHash"]
    skewed.find_one({"b": 7})
    assert cache_entries(skewed) == []  # single-plan queries are not cached


def test_results_are_each_returned_once_across_batches(db):
    coll = db.batches
    coll.insert_many([{"_id": i, "a": i % 3, "b": i % 2} for i in range(1500)])
    coll.create_index("a")
    coll.create_index("b")
    expected = sorted(i for i in range(1500) if i % 3 == 0 and i % 2 == 0)
    # 250 results: the winner goes on past the 101 its trial returned, across getMores.
    for batch_size in (7, 101, 1000):
        got = [d["_id"] for d in coll.find({"a": 0, "b": 0}).batch_size(batch_size)]
        assert sorted(got) == expected
        assert len(got) == len(set(got))
    # The trial buffered up to 101 results: skip and limit apply after them.
    got = [d["_id"] for d in coll.find({"a": 0, "b": 0}).sort("_id", 1).skip(5).limit(150)
           .batch_size(20)]
    assert got == expected[5:155]
    got = [d["_id"] for d in coll.find({"a": 0, "b": 0}, sort=[("a", 1)]).limit(3)]
    assert len(got) == 3 and set(got) <= set(expected)


def test_sorted_candidates_carry_their_sort(db):
    coll = db.sorted
    coll.insert_many([{"_id": i, "a": i % 4, "b": 1000 - i} for i in range(400)])
    coll.create_index("a")
    coll.create_index("b")
    got = [d["b"] for d in coll.find({"a": 1, "b": {"$gt": 700}}).sort("b", -1)]
    assert got == sorted((1000 - i for i in range(400) if i % 4 == 1 and 1000 - i > 700),
                         reverse=True)
    explained = coll.find({"a": 1, "b": {"$gt": 700}}).sort("b", -1).explain()
    plans = [explained["queryPlanner"]["winningPlan"]] + \
        explained["queryPlanner"]["rejectedPlans"]
    # The {a: 1} candidate needs a SORT, the {b: 1} one reads in order.
    assert sorted(p["stage"] for p in plans) == ["FETCH", "SORT"]


def test_a_cached_plan_is_listed_and_activated_by_a_second_run(db, skewed):
    assert skewed.count_documents({}) == 2000
    list(skewed.find({"a": 1, "b": 3}))
    entries = cache_entries(skewed)
    assert len(entries) == 1
    entry = entries[0]
    assert entry["isActive"] is False
    assert entry["createdFromQuery"] == {"query": {"a": 1, "b": 3}, "sort": {},
                                         "projection": {}}
    assert entry["cachedPlan"]["inputStage"]["indexName"] == "b_1"
    assert entry["works"] > 0
    assert len(entry["creationExecStats"]) == 2
    assert entry["candidatePlanScores"][0] >= entry["candidatePlanScores"][1]
    assert {"queryHash", "planCacheKey", "timeOfCreation", "host", "indexFilterSet"} <= set(entry)
    # Another value, the same shape: the same entry, now active.
    list(skewed.find({"a": 1, "b": 9}))
    entries = cache_entries(skewed)
    assert len(entries) == 1
    assert entries[0]["isActive"] is True
    assert entries[0]["queryHash"] == entry["queryHash"]
    # Answered from the cache, with the same results as a trial gives.
    assert sorted(d["_id"] for d in skewed.find({"a": 1, "b": 11})) == \
        [i for i in range(2000) if i % 500 == 11]
    explained = explain_find(db, "skewed", {"a": 1, "b": 11}, "queryPlanner")
    assert explained["queryPlanner"]["queryHash"] == entry["queryHash"]


def test_another_shape_gets_its_own_entry(db, skewed):
    skewed.find_one({"a": 1, "b": 3})
    skewed.find_one({"a": 1, "b": {"$gt": 3}})
    skewed.find_one({"a": 1, "b": 3}, sort=[("c", 1)])
    assert len({e["queryHash"] for e in cache_entries(skewed)}) == 3


def test_plan_cache_clear_drops_one_shape_or_all(db, skewed):
    skewed.find_one({"a": 1, "b": 3})
    skewed.find_one({"a": 1, "b": {"$gt": 3}})
    assert len(cache_entries(skewed)) == 2
    db.command({"planCacheClear": "skewed", "query": {"zzz": 1}})  # no such shape: no-op
    assert len(cache_entries(skewed)) == 2
    # Under another collation the shape was never cached: nothing goes.
    db.command({"planCacheClear": "skewed", "query": {"a": 5, "b": 6},
                "collation": {"locale": "fr"}})
    assert len(cache_entries(skewed)) == 2
    db.command({"planCacheClear": "skewed", "query": {"a": 5, "b": 6},
                "collation": {"locale": "simple"}})
    remaining = cache_entries(skewed)
    assert [e["createdFromQuery"]["query"] for e in remaining] == [{"a": 1, "b": {"$gt": 3}}]
    db.command({"planCacheClear": "skewed"})
    assert cache_entries(skewed) == []


def test_plan_cache_clear_errors_as_mongod(db, skewed):
    assert db.command({"planCacheClear": "no_such_collection"})["ok"] == 1
    assert db.command({"planCacheClear": "no_such_collection", "query": {"$bogus": 1}})["ok"] == 1
    with pytest.raises(OperationFailure) as failure:
        db.command({"planCacheClear": "skewed", "sort": {"a": 1}})
    assert failure.value.code == 2
    assert "provided without query" in str(failure.value)
    with pytest.raises(OperationFailure) as failure:
        db.command({"planCacheClear": "skewed", "query": {"a": {"$bogus": 1}}})
    assert failure.value.code == 2


def test_index_changes_empty_the_cache(db, skewed):
    skewed.find_one({"a": 1, "b": 3})
    assert len(cache_entries(skewed)) == 1
    skewed.create_index("c")
    assert cache_entries(skewed) == []
    skewed.find_one({"a": 1, "b": 3})
    assert len(cache_entries(skewed)) == 1
    db.command({"collMod": "skewed", "index": {"name": "c_1", "hidden": True}})
    assert cache_entries(skewed) == []
    skewed.find_one({"a": 1, "b": 3})
    skewed.drop_index("c_1")
    assert cache_entries(skewed) == []


def test_renaming_or_dropping_the_collection_empties_its_cache(db, skewed):
    list(skewed.find({"a": 1, "b": 3}))
    assert len(cache_entries(skewed)) == 1
    skewed.rename("renamed")
    assert cache_entries(db.renamed) == []
    list(db.renamed.find({"a": 1, "b": 3}))
    assert len(cache_entries(db.renamed)) == 1
    db.renamed.drop()
    db.renamed.insert_many([{"a": 1, "b": i} for i in range(10)])
    db.renamed.create_index("a")
    db.renamed.create_index("b")
    assert cache_entries(db.renamed) == []


def test_plan_cache_stats_must_come_first_and_take_a_document(db, skewed):
    with pytest.raises(OperationFailure) as failure:
        list(skewed.aggregate([{"$match": {}}, {"$planCacheStats": {}}]))
    assert failure.value.code == 40602
    with pytest.raises(OperationFailure) as failure:
        list(skewed.aggregate([{"$planCacheStats": 1}]))
    assert failure.value.code == 9
    assert list(db.missing.aggregate([{"$planCacheStats": {}}])) == []
    skewed.find_one({"a": 1, "b": 3})
    projected = list(skewed.aggregate([{"$planCacheStats": {}},
                                       {"$project": {"_id": 0, "isActive": 1}}]))
    assert projected == [{"isActive": False}]


def test_index_filters_are_listed_as_none_and_setting_one_is_refused(db, skewed):
    assert db.command({"planCacheListFilters": "skewed"})["filters"] == []
    with pytest.raises(OperationFailure) as failure:
        db.command({"planCacheSetFilter": "skewed", "query": {"a": 1}, "indexes": [{"a": 1}]})
    assert failure.value.code == 238


@pytest.mark.parametrize("run", [
    lambda c: c.count_documents({"a": 1, "b": 7}),
    lambda c: len(c.distinct("c", {"a": 1, "b": 7})),
    lambda c: len(list(c.aggregate([{"$match": {"a": 1, "b": 7}}]))),
])
def test_other_readers_choose_by_trial_too(db, skewed, run):
    assert run(skewed) == 4
    entries = cache_entries(skewed)
    assert len(entries) == 1
    assert entries[0]["cachedPlan"]["inputStage"]["indexName"] == "b_1"


def test_writes_target_through_the_chosen_plan(db, skewed):
    result = skewed.update_many({"a": 1, "b": 7}, {"$set": {"hit": True}})
    assert result.modified_count == 4
    assert skewed.count_documents({"hit": True}) == 4
    assert skewed.delete_many({"a": 1, "b": 8}).deleted_count == 4
    found = skewed.find_one_and_update({"a": 1, "b": 9}, {"$set": {"x": 1}},
                                       sort=[("_id", 1)])
    assert found["_id"] == 9


def test_count_explain_lists_rejected_plans_under_the_count_stage(db, skewed):
    explained = db.command({"explain": {"count": "skewed", "query": {"a": 1, "b": 7}},
                            "verbosity": "queryPlanner"})
    rejected = explained["queryPlanner"]["rejectedPlans"]
    assert len(rejected) == 1
    assert rejected[0]["stage"] == "COUNT"
    assert rejected[0]["inputStage"]["inputStage"]["indexName"] == "a_1"


def test_a_cached_plan_that_stops_fitting_is_replanned(db):
    coll = db.drift
    coll.insert_many([{"_id": i, "a": i % 2, "b": i % 50} for i in range(1000)])
    coll.create_index("a")
    coll.create_index("b")
    for _ in range(3):
        list(coll.find({"a": 0, "b": 4}))
    entry = cache_entries(coll)[0]
    assert entry["isActive"] is True
    assert entry["cachedPlan"]["inputStage"]["indexName"] == "b_1"
    # Now b = 4 is everywhere and a = 1 rare: the cached {b: 1} plan needs far more work.
    coll.update_many({}, {"$set": {"b": 4, "a": 0}})
    coll.update_one({"_id": 3}, {"$set": {"a": 1}})
    assert [d["_id"] for d in coll.find({"a": 1, "b": 4})] == [3]
    entries = cache_entries(coll)
    assert len(entries) == 1
    assert entries[0]["cachedPlan"]["inputStage"]["indexName"] == "a_1"
    assert entries[0]["isActive"] is False


def test_mongosh_plan_cache_helpers_work(server, db, skewed):
    import os
    import subprocess
    import tempfile
    skewed.find_one({"a": 1, "b": 3})
    mongosh = os.path.join(os.path.dirname(__file__), "..", "..", "..", "node_modules", ".bin",
                           "mongosh")
    if not os.path.exists(mongosh):
        pytest.skip("mongosh is not installed")
    script = ("print(db.skewed.getPlanCache().list().length);"
              "db.skewed.getPlanCache().clear();"
              "print(db.skewed.getPlanCache().list().length);")
    port = db.client.address[1]
    out = subprocess.run([mongosh, "--quiet", f"mongodb://127.0.0.1:{port}/{db.name}", "--eval",
                          script], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "HOME": tempfile.mkdtemp()})
    assert out.stdout.split() == ["1", "0"], out.stderr


def test_an_or_plan_competes_with_a_bounded_index(db):
    coll = db.ors
    coll.insert_many([{"_id": i, "a": i % 50, "b": i % 70, "c": i % 3} for i in range(3000)])
    for field in ("a", "b", "c"):
        coll.create_index(field)
    query = {"$or": [{"a": 1}, {"b": 2}], "c": 0}
    expected = sorted(d["_id"] for d in coll.find(query).hint([("$natural", 1)]))
    assert sorted(d["_id"] for d in coll.find(query)) == expected
    planner = coll.find(query).explain()["queryPlanner"]
    plans = [planner["winningPlan"]] + planner["rejectedPlans"]
    inputs = sorted(p["inputStage"]["stage"] for p in plans)
    assert inputs == ["IXSCAN", "OR"]
    # The OR reads about 100 keys for its ~34 matches; c = 0 reads 1000.
    assert planner["winningPlan"]["inputStage"]["stage"] == "OR"


def test_a_leading_match_and_sort_of_a_pipeline_is_chosen_by_trial(db, skewed):
    got = [d["_id"] for d in skewed.aggregate([{"$match": {"a": 1, "b": 7}},
                                               {"$sort": {"c": -1}}])]
    assert got == sorted((i for i in range(2000) if i % 500 == 7), reverse=True)
    explained = db.command({"explain": {"aggregate": "skewed", "cursor": {},
                                        "pipeline": [{"$match": {"a": 1, "b": 7}}]},
                            "verbosity": "queryPlanner"})
    assert winning_index(explained["queryPlanner"]) == "b_1"
    assert len(explained["queryPlanner"]["rejectedPlans"]) == 1


@pytest.fixture
def listings(db):
    """code is unique; {code: 1, price: 1} and {price: 1} could answer an equality on code too."""
    coll = db.listings
    coll.insert_many([{"_id": i, "code": 10_000 + i, "price": i % 7} for i in range(1000)])
    coll.create_index("code", unique=True)
    coll.create_index([("code", 1), ("price", 1)])
    coll.create_index("price")
    return coll


def test_an_equality_on_a_unique_index_reads_it_without_a_trial(db, listings):
    explained = explain_find(db, "listings", {"code": 10_042, "price": 0}, "executionStats")
    assert winning_index(explained["queryPlanner"]) == "code_1"
    assert explained["queryPlanner"]["rejectedPlans"] == []
    stats = explained["executionStats"]
    assert (stats["nReturned"], stats["totalKeysExamined"], stats["totalDocsExamined"]) == (1, 1, 1)
    assert listings.find_one({"code": 10_042}) == {"_id": 42, "code": 10_042, "price": 0}
    assert listings.find_one({"code": 10_042, "price": 1}) is None
    assert cache_entries(listings) == []


def test_an_equality_that_is_no_point_still_chooses_by_trial(db, listings):
    for filter in ({"code": {"$in": [10_001, 10_002]}, "price": 1}, {"code": None, "price": 1}):
        explained = explain_find(db, "listings", filter, "queryPlanner")
        assert explained["queryPlanner"]["rejectedPlans"], filter


def test_a_hidden_or_partial_unique_index_is_not_read_for_an_equality(db):
    coll = db.hidden_unique
    coll.insert_many([{"_id": i, "code": i, "kind": "a"} for i in range(100)])
    coll.create_index("code", unique=True, name="code_unique")
    coll.create_index([("code", 1), ("kind", 1)])
    db.command({"collMod": "hidden_unique", "index": {"name": "code_unique", "hidden": True}})
    explained = explain_find(db, "hidden_unique", {"code": 5}, "queryPlanner")
    assert winning_index(explained["queryPlanner"]) == "code_1_kind_1"
    partial = db.partial_unique
    partial.insert_many([{"_id": i, "code": i, "kind": "a" if i % 2 else "b"} for i in range(100)])
    partial.create_index("code", unique=True, name="code_of_a",
                         partialFilterExpression={"kind": "a"})
    explained = explain_find(db, "partial_unique", {"code": 4}, "executionStats")
    assert winning_index(explained["queryPlanner"]) is None
    assert explained["executionStats"]["nReturned"] == 1
