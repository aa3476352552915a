"""explain in mongod's shapes for what the planner does beyond a single index scan: aggregations
(whole, or as a $cursor stage followed by the rest of the pipeline), $or answered by an OR of
index scans, and covered projections answered from index keys alone."""

import bson
import pymongo
import pytest

NATURAL = [("$natural", 1)]


def winning_stages(query_planner):
    """Stage names of a winning plan from the top down, following inputStage."""
    stages = []
    stage = query_planner["winningPlan"]
    while stage is not None:
        stages.append(stage["stage"])
        stage = stage.get("inputStage")
    return stages


def explain_aggregate(db, coll, pipeline, verbosity="queryPlanner", **options):
    return db.command({"explain": {"aggregate": coll, "pipeline": pipeline, "cursor": {},
                                   **options},
                       "verbosity": verbosity})


# Aggregations

def test_a_pipeline_the_plan_answers_whole_reports_the_plan_at_the_top(db):
    db.items.create_index("a")
    db.items.insert_many([{"_id": i, "a": i % 10} for i in range(100)])
    explained = explain_aggregate(db, "items", [{"$match": {"a": 3}}], "executionStats")
    assert "stages" not in explained
    planner = explained["queryPlanner"]
    assert planner["namespace"] == f"{db.name}.items"
    assert planner["parsedQuery"] == {"a": 3}
    assert planner["optimizedPipeline"] is True
    assert winning_stages(planner) == ["FETCH", "IXSCAN"]
    stats = explained["executionStats"]
    assert (stats["nReturned"], stats["totalKeysExamined"], stats["totalDocsExamined"]) == (
        10, 10, 10)
    assert explained["command"]["aggregate"] == "items"


def test_an_empty_pipeline_is_a_collection_scan_at_the_top(db):
    db.items.insert_many([{"_id": i} for i in range(5)])
    explained = explain_aggregate(db, "items", [])
    assert winning_stages(explained["queryPlanner"]) == ["COLLSCAN"]


def test_later_stages_follow_a_cursor_stage_with_the_plan(db):
    db.items.create_index("a")
    db.items.insert_many([{"_id": i, "a": i % 10, "g": i % 3} for i in range(100)])
    pipeline = [{"$match": {"a": {"$lt": 2}}}, {"$group": {"_id": "$g", "n": {"$sum": 1}}},
                {"$sort": {"_id": 1}}]
    explained = explain_aggregate(db, "items", pipeline)
    assert "queryPlanner" not in explained
    stages = explained["stages"]
    assert [next(iter(stage)) for stage in stages] == ["$cursor", "$group", "$sort"]
    cursor = stages[0]["$cursor"]
    assert winning_stages(cursor["queryPlanner"]) == ["FETCH", "IXSCAN"]
    assert cursor["queryPlanner"]["parsedQuery"] == {"a": {"$lt": 2}}
    assert "executionStats" not in cursor
    assert "nReturned" not in stages[0]
    assert stages[1]["$group"] == {"_id": "$g", "n": {"$sum": 1}}


def test_execution_stats_count_what_each_stage_returned(db):
    db.items.create_index("a")
    db.items.insert_many([{"_id": i, "a": i % 10, "g": i % 3} for i in range(100)])
    pipeline = [{"$match": {"a": {"$lt": 2}}}, {"$group": {"_id": "$g"}}, {"$limit": 2}]
    explained = explain_aggregate(db, "items", pipeline, "executionStats")
    cursor, group, limit = explained["stages"]
    assert cursor["nReturned"] == 20
    assert cursor["$cursor"]["executionStats"]["totalKeysExamined"] == 20
    assert cursor["$cursor"]["executionStats"]["totalDocsExamined"] == 20
    # Stages pull from the one before: $group hands out only the two groups $limit asks for.
    assert group["nReturned"] == 2
    assert limit["nReturned"] == 2
    for stage in (cursor, group, limit):
        assert stage["executionTimeMillisEstimate"] >= 0
    # Explain ran the pipeline without changing what a real run returns.
    assert len(list(db.items.aggregate(pipeline))) == 2


def test_a_collection_that_does_not_exist_explains_as_eof(db):
    explained = explain_aggregate(db, "missing", [{"$match": {"a": 1}}])
    assert winning_stages(explained["queryPlanner"]) == ["EOF"]
    explained = explain_aggregate(db, "missing", [{"$match": {"a": 1}}, {"$count": "n"}])
    assert winning_stages(explained["stages"][0]["$cursor"]["queryPlanner"]) == ["EOF"]


def test_aggregate_with_the_explain_option_answers_the_query_planner_report(db):
    db.items.create_index("a")
    db.items.insert_many([{"_id": i, "a": i} for i in range(10)])
    explained = db.command({"aggregate": "items", "pipeline": [{"$match": {"a": 4}}],
                            "explain": True})
    assert winning_stages(explained["queryPlanner"]) == ["FETCH", "IXSCAN"]
    assert "executionStats" not in explained
    explained = db.command({"aggregate": "items", "explain": True,
                            "pipeline": [{"$match": {"a": 4}}, {"$project": {"a": 1}}]})
    assert [next(iter(stage)) for stage in explained["stages"]] == ["$cursor", "$project"]


def test_explaining_out_runs_nothing_and_refuses_execution_stats(db):
    db.items.insert_many([{"_id": i} for i in range(3)])
    explained = explain_aggregate(db, "items", [{"$out": "copy"}])
    assert [next(iter(stage)) for stage in explained["stages"]] == ["$cursor", "$out"]
    assert "copy" not in db.list_collection_names()
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        explain_aggregate(db, "items", [{"$out": "copy"}], "executionStats")
    assert info.value.code == 51029
    assert "copy" not in db.list_collection_names()


# $or

def test_or_with_every_branch_indexed_is_an_or_of_index_scans(db):
    db.items.create_index("a")
    db.items.create_index("b")
    db.items.insert_many([{"_id": i, "a": i % 10, "b": i % 7} for i in range(100)])
    query = {"$or": [{"a": 1}, {"b": {"$in": [1, 2]}}]}
    explained = db.items.find(query).explain()
    fetch = explained["queryPlanner"]["winningPlan"]
    assert fetch["stage"] == "FETCH"
    or_stage = fetch["inputStage"]
    assert or_stage["stage"] == "OR"
    assert [(s["stage"], s["indexName"]) for s in or_stage["inputStages"]] == [
        ("IXSCAN", "a_1"), ("IXSCAN", "b_1")]
    assert or_stage["inputStages"][1]["indexBounds"] == {"b": ["[1, 1]", "[2, 2]"]}
    expected = sorted(d["_id"] for d in db.items.find(query).hint(NATURAL))
    stats = explained["executionStats"]
    assert stats["nReturned"] == len(expected)
    assert stats["totalDocsExamined"] == len(expected)  # a record in both branches is read once
    or_stats = stats["executionStages"]["inputStage"]
    assert or_stats["dupsTested"] == stats["totalKeysExamined"]
    assert or_stats["dupsDropped"] == stats["totalKeysExamined"] - len(expected)
    assert sorted(d["_id"] for d in db.items.find(query)) == expected


def test_or_with_a_branch_no_index_bounds_is_a_collection_scan(db):
    db.items.create_index("a")
    db.items.insert_many([{"_id": i, "a": i % 10, "b": i % 7} for i in range(20)])
    explained = db.items.find({"$or": [{"a": 1}, {"b": 2}]}).explain()
    assert winning_stages(explained["queryPlanner"]) == ["COLLSCAN"]


def test_or_with_every_branch_bounding_id_reads_only_those_records(db):
    db.items.insert_many([{"_id": i, "b": i % 7} for i in range(2000)])
    query = {"$or": [{"_id": 3}, {"_id": {"$gt": 1997}}, {"_id": {"$gte": 1990, "$lt": 1999}}]}
    expected = [d["_id"] for d in db.items.find(query).hint(NATURAL)]
    assert expected == [3] + list(range(1990, 2000))
    assert [d["_id"] for d in db.items.find(query)] == expected
    assert [d["_id"] for d in db.items.find(query).sort("_id", -1)] == expected[::-1]
    explained = db.items.find(query).explain()
    plan = explained["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "COLLSCAN"
    assert plan["indexBounds"] == {"_id": ["[3, 3]", "(1997, inf.0]", "[1990, 1999)"]}
    # The overlapping branches are read once: each record at most, and one past each range.
    assert explained["executionStats"]["totalDocsExamined"] <= len(expected) + 2


def test_id_bounds_that_hold_no_key_read_nothing(db):
    db.items.insert_many([{"_id": i} for i in range(100)])
    for query in ({"_id": {"$gt": 50, "$lt": 10}}, {"_id": {"$in": []}}):
        explained = db.items.find(query).explain()
        assert explained["executionStats"]["nReturned"] == 0
        assert explained["executionStats"]["totalDocsExamined"] == 0
        assert db.items.count_documents(query) == 0


# min and max

def test_min_and_max_read_a_range_of_the_hinted_index_in_its_order(db):
    db.items.create_index([("a", 1), ("b", -1)])
    docs = [{"_id": i, "a": i % 4, "b": i % 3} for i in range(24)]
    db.items.insert_many(docs + [{"_id": "s", "a": "x", "b": 0}, {"_id": "n", "b": 1}])
    hint = [("a", 1), ("b", -1)]

    def key(doc):  # the index's order: a ascending (numbers only here), then b descending
        return (doc["a"], -doc["b"])

    found = list(db.items.find({}, {"_id": 1}).min([("a", 1), ("b", 1)])
                 .max([("a", 3), ("b", 2)]).hint(hint))
    expected = [d for d in docs if (1, -1) <= key(d) < (3, -2)]
    assert sorted(d["_id"] for d in found) == sorted(d["_id"] for d in expected)
    # Across types as the index orders them: a missing field is null, below numbers; strings
    # come after numbers.
    assert {d["_id"] for d in db.items.find().max([("a", 0), ("b", 5)]).hint(hint)} == {"n"}
    assert {d["_id"] for d in db.items.find().min([("a", "a"), ("b", 0)]).hint(hint)} == {"s"}
    # The filter still applies, and a sort the index gives needs no SORT.
    filtered = db.items.find({"b": 2}).min([("a", 1), ("b", 9)]).max(
        [("a", 2), ("b", 9)]).hint(hint)
    assert sorted(d["_id"] for d in filtered) == [d["_id"] for d in docs if d["a"] == 1 and
                                                   d["b"] == 2]
    explained = db.items.find({}).min([("a", 1), ("b", 9)]).sort([("a", -1), ("b", 1)]).hint(
        hint).explain()
    assert winning_stages(explained["queryPlanner"]) == ["FETCH", "IXSCAN"]
    assert explained["queryPlanner"]["winningPlan"]["inputStage"]["direction"] == "backward"


@pytest.mark.parametrize("options, code", [
    ({"min": {"a": 1}}, 51173),                                   # no hint
    ({"min": {"a": 1}, "hint": {"$natural": 1}}, 51173),
    ({"min": {"b": 1}, "hint": "a_1"}, 51174),                    # not the key's fields
    ({"max": {"a": 1, "b": 1}, "hint": "a_1"}, 51174),
    ({"min": {"a": 5}, "max": {"a": 5}, "hint": "a_1"}, 51175),   # min not before max
    ({"min": {"a": 6}, "max": {"a": 5}, "hint": "a_1"}, 51175),
    ({"min": {"b": 1}, "hint": "_id_"}, 51174),
    ({"min": {"_id": 3}, "max": {"_id": 2}, "hint": {"_id": 1}}, 51175),
])
def test_min_and_max_errors_are_mongods(db, options, code):
    db.items.create_index("a")
    db.items.insert_one({"_id": 1, "a": 1})
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command({"find": "items", **options})
    assert info.value.code == code


def test_min_and_max_on_the_id_index_read_a_range_of_records_in_id_order(db):
    ids = [-3, 0, 1, 2.5, bson.Int64(4), 7, "a", "b", {"x": 1}, bson.ObjectId(b"0" * 12), True]
    db.items.insert_many([{"_id": i, "n": n} for n, i in enumerate(ids)])

    def found(**options):
        return [d["_id"] for d in db.items.find({}, **options)]

    assert found(min={"_id": 0}, max={"_id": 4}, hint=[("_id", 1)]) == [0, 1, 2.5]
    # Across types, in the order mongod gives them: numbers, strings, documents, ObjectIds...
    assert found(min={"_id": 4.0}, max={"_id": {"x": 2}}, hint="_id_") == [
        4, 7, "a", "b", {"x": 1}]
    assert found(min={"_id": "b"}, hint="_id_") == ["b", {"x": 1}, bson.ObjectId(b"0" * 12), True]
    assert found(max={"_id": 1}, hint="_id_") == [-3, 0]
    assert found(min={"_id": 1.5}, max={"_id": 2}, hint="_id_") == []
    # The filter, sort, skip and limit still apply.
    assert [d["_id"] for d in db.items.find({"n": {"$gte": 2}}, min={"_id": 0}, hint="_id_",
                                            sort=[("_id", -1)], skip=1, limit=3)] == [
        bson.ObjectId(b"0" * 12), {"x": 1}, "b"]
    explained = db.items.find({}, min={"_id": 0}, max={"_id": 4}, hint="_id_").explain()
    plan = explained["queryPlanner"]["winningPlan"]
    # As mongod shows a bounded scan of a clustered collection.
    assert (plan["stage"], plan["minRecord"], plan["maxRecord"]) == ("COLLSCAN", 0, 4)
    assert explained["executionStats"]["nReturned"] == 3


def test_min_and_max_on_the_id_index_of_a_collated_collection_are_not_implemented(db):
    db.create_collection("items", collation={"locale": "en", "strength": 2})
    db.items.insert_one({"_id": "a"})
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(db.items.find({}, min={"_id": "A"}, hint="_id_"))
    assert info.value.code == 238


# returnKey

def test_return_key_gives_the_key_that_led_to_each_document(db):
    db.items.create_index([("a", 1), ("c.d", -1)])
    db.items.create_index("t")
    db.items.insert_many([{"_id": 1, "a": 1, "c": {"d": "x"}, "t": [5, 7]},
                          {"_id": 2, "a": 2, "t": [1, 9]},
                          {"_id": 3, "a": 3, "c": {"d": 4}, "t": 2}])
    found = list(db.items.find({"a": {"$lte": 2}}, return_key=True).sort("a", 1))
    assert found == [{"a": 1, "c.d": "x"}, {"a": 2, "c.d": None}]
    # Multikey: the first of a document's keys the scan met, in its direction.
    assert list(db.items.find({"t": {"$gte": 6}}, return_key=True).hint("t_1")) == [
        {"t": 7}, {"t": 9}]
    assert list(db.items.find({"t": {"$gte": 6}}, return_key=True).hint("t_1")
                .sort("t", -1)) == [{"t": 9}, {"t": 7}]
    # Under an OR, the key of the branch that found the document first.
    ored = db.items.find({"$or": [{"t": 2}, {"a": {"$gte": 2}}]}, return_key=True)
    assert sorted(ored, key=repr) == sorted([{"t": 2}, {"a": 2, "c.d": None}], key=repr)
    # A point lookup or the _id index gives _id; a collection scan gives nothing.
    assert list(db.items.find({"_id": 2}, return_key=True)) == [{"_id": 2}]
    assert list(db.items.find({"_id": {"$gt": 2}}, return_key=True).hint("_id_")) == [
        {"_id": 3}]
    assert list(db.items.find({"x": {"$exists": False}}, return_key=True).limit(1)) == [{}]
    explained = db.items.find({"a": 1}, return_key=True).explain()
    assert winning_stages(explained["queryPlanner"]) == ["RETURN_KEY", "FETCH", "IXSCAN"]


def test_a_sort_the_index_gives_leaves_the_pipeline(db):
    db.items.create_index("a")
    db.items.insert_many([{"_id": i, "a": (i * 7) % 10, "b": i % 3} for i in range(30)])
    pipeline = [{"$match": {"b": 1}}, {"$sort": {"a": -1}}]
    explained = explain_aggregate(db, "items", pipeline)
    assert "stages" not in explained
    scan = explained["queryPlanner"]["winningPlan"]["inputStage"]
    assert (scan["stage"], scan["direction"]) == ("IXSCAN", "backward")
    got = [d["a"] for d in db.items.aggregate(pipeline)]
    assert got == sorted(got, reverse=True) and len(got) == 10
    # With no index for the order, the $sort stays a pipeline stage.
    explained = explain_aggregate(db, "items", [{"$sort": {"b": 1}}, {"$limit": 3}])
    assert [next(iter(stage)) for stage in explained["stages"]] == ["$cursor", "$sort", "$limit"]


def test_counts_are_ints_as_mongod_writes_them(db):
    # mongod writes counts that fit as int32 (shells print `nReturned: 5`, not `Long('5')`).
    db.items.create_index("a")
    db.items.insert_many([{"_id": i, "a": i % 10} for i in range(100)])
    explained = db.items.find({"a": 3}).explain()
    stats = explained["executionStats"]
    for field in ("nReturned", "executionTimeMillis", "totalKeysExamined", "totalDocsExamined"):
        assert type(stats[field]) is int, field
    stage = stats["executionStages"]
    while stage is not None:
        for field in ("nReturned", "works", "keysExamined", "docsExamined"):
            if field in stage:
                assert type(stage[field]) is int, (stage["stage"], field)
        stage = stage.get("inputStage")
