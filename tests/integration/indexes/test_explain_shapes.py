"""explain in mongod's shapes for what the planner does beyond a single index scan: aggregations
(whole, or as a $cursor stage followed by the rest of the pipeline), $or answered by an OR of
index scans, and covered projections answered from index keys alone."""

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
