"""SORT_MERGE as mongod plans it: an $in on an index's leading fields, sorted on the field after
them, reads one scan per value and merges them in the sort's order (FETCH over SORT_MERGE over
IXSCANs, no blocking SORT), as does an $or whose branches' scans each give the sort. Results and
their order equal a collection scan's; a record two scans meet comes out once."""

import pytest

NATURAL = [("$natural", 1)]


def stages(plan):
    """The plan as nested stage names: FETCH(SORT_MERGE(IXSCAN,IXSCAN))."""
    out = plan["stage"]
    children = plan.get("inputStages", []) + ([plan["inputStage"]] if "inputStage" in plan else [])
    if children:
        out += "(" + ",".join(stages(child) for child in children) + ")"
    return out


def find_stage(plan, name):
    if plan["stage"] == name:
        return plan
    for child in plan.get("inputStages", []) + [plan.get("inputStage")]:
        found = find_stage(child, name) if child else None
        if found:
            return found
    return None


def winning(cursor):
    return cursor.explain()["queryPlanner"]["winningPlan"]


@pytest.fixture
def coll(db):
    # b is distinct per document, so every sort on it has one right order.
    db.c.insert_many([{"_id": i, "a": i % 5, "b": (i * 37) % 101, "c": i % 3} for i in range(100)])
    db.c.create_index([("a", 1), ("b", 1)])
    return db.c


@pytest.mark.parametrize("direction", [1, -1])
def test_in_sorted_on_the_next_key_field_merges_one_scan_per_value(coll, direction):
    query = {"a": {"$in": [1, 2, 4]}}
    got = list(coll.find(query).sort("b", direction))
    assert got == list(coll.find(query).sort("b", direction).hint(NATURAL))
    assert len(got) == 60
    plan = winning(coll.find(query).sort("b", direction))
    assert stages(plan) == "FETCH(SORT_MERGE(IXSCAN,IXSCAN,IXSCAN))"
    merge = plan["inputStage"]
    assert merge["sortPattern"] == {"b": direction}
    scans = merge["inputStages"]
    points = [["[1, 1]"], ["[2, 2]"], ["[4, 4]"]]  # in the scans' direction
    assert [s["indexBounds"]["a"] for s in scans] == points[::direction]
    assert [s["indexBounds"]["b"] for s in scans] == [["[MinKey, MaxKey]"]] * 3
    assert {s["direction"] for s in scans} == {"forward" if direction == 1 else "backward"}


def test_execution_stats_count_the_merge_and_its_duplicates(coll):
    explained = coll.find({"a": {"$in": [1, 2]}}).sort("b", 1).explain()
    merge = find_stage(explained["executionStats"]["executionStages"], "SORT_MERGE")
    assert merge["nReturned"] == 40
    assert merge["dupsTested"] == 40 and merge["dupsDropped"] == 0
    assert len(merge["inputStages"]) == 2
    assert explained["executionStats"]["totalKeysExamined"] == 40


def test_several_equality_fields_split_into_every_combination(db):
    db.c.insert_many([{"_id": i, "a": i % 4, "c": i % 3, "b": (i * 13) % 97} for i in range(97)])
    db.c.create_index([("a", 1), ("c", 1), ("b", -1)])
    for query, scans in [({"a": {"$in": [0, 3]}, "c": 1}, 2),
                         ({"a": {"$in": [0, 1, 3]}, "c": {"$in": [0, 2]}}, 6)]:
        for direction in (1, -1):
            got = list(db.c.find(query).sort("b", direction))
            assert got == list(db.c.find(query).sort("b", direction).hint(NATURAL)), query
            plan = winning(db.c.find(query).sort("b", direction))
            assert stages(plan) == "FETCH(SORT_MERGE(" + ",".join(["IXSCAN"] * scans) + "))"


def test_a_range_after_the_in_is_merged_too(coll):
    query = {"a": {"$in": [0, 3]}, "b": {"$gt": 20, "$lt": 80}}
    got = list(coll.find(query).sort("b", -1))
    assert got == list(coll.find(query).sort("b", -1).hint(NATURAL))
    assert stages(winning(coll.find(query).sort("b", -1))) == "FETCH(SORT_MERGE(IXSCAN,IXSCAN))"


def test_more_scans_than_mongods_cap_sort_instead(db):
    db.c.insert_many([{"_id": i, "a": i, "b": -i} for i in range(300)])
    db.c.create_index([("a", 1), ("b", 1)])
    at_cap = {"a": {"$in": list(range(200))}}
    over_cap = {"a": {"$in": list(range(201))}}
    assert "SORT_MERGE" in stages(winning(db.c.find(at_cap).sort("b", 1)))
    plan = stages(winning(db.c.find(over_cap).sort("b", 1)))
    assert "SORT_MERGE" not in plan and plan.startswith("SORT(")
    for query in (at_cap, over_cap):
        assert list(db.c.find(query).sort("b", 1)) == list(
            db.c.find(query).sort("b", 1).hint(NATURAL))


def test_a_limit_reads_about_what_it_returns(coll):
    cursor = coll.find({"a": {"$in": [0, 1, 2, 3, 4]}}).sort("b", 1).limit(4)
    explained = cursor.explain()
    plan = explained["queryPlanner"]["winningPlan"]
    assert "SORT" not in stages(plan).replace("SORT_MERGE", "")
    stats = explained["executionStats"]
    assert stats["nReturned"] == 4
    assert stats["totalDocsExamined"] == 4
    assert stats["totalKeysExamined"] <= 4 + 5  # one waiting entry per scan at most
    assert list(coll.find({"a": {"$in": [0, 1, 2, 3, 4]}}).sort("b", 1).limit(4)) == list(
        coll.find({}).sort("b", 1).limit(4).hint(NATURAL))


@pytest.mark.parametrize("skip,limit", [(3, 5), (55, 10), (0, 1), (7, 0)])
def test_skip_and_limit_over_the_merge(coll, skip, limit):
    query = {"a": {"$in": [2, 3]}}
    for direction in (1, -1):
        got = list(coll.find(query).sort("b", direction).skip(skip).limit(limit))
        assert got == list(coll.find(query).sort("b", direction).skip(skip).limit(limit).hint(
            NATURAL))


def test_an_index_only_projection_stays_covered(coll):
    query = {"a": {"$in": [1, 3]}}
    projection = {"_id": 0, "a": 1, "b": 1}
    got = list(coll.find(query, projection).sort("b", -1))
    assert got == list(coll.find(query, projection).sort("b", -1).hint(NATURAL))
    explained = coll.find(query, projection).sort("b", -1).explain()
    assert stages(explained["queryPlanner"]["winningPlan"]) == \
        "PROJECTION_COVERED(SORT_MERGE(IXSCAN,IXSCAN))"
    assert explained["executionStats"]["totalDocsExamined"] == 0


def test_an_or_whose_branches_give_the_sort_is_merged_once_per_record(db):
    db.c.insert_many([{"_id": i, "a": i % 4, "c": i % 3, "b": (i * 11) % 61} for i in range(61)])
    db.c.create_index([("a", 1), ("b", 1)])
    db.c.create_index([("c", 1), ("b", 1)])
    query = {"$or": [{"a": 1}, {"c": 2}]}  # overlapping: i % 4 == 1 and i % 3 == 2
    for direction in (1, -1):
        got = list(db.c.find(query).sort("b", direction))
        assert got == list(db.c.find(query).sort("b", direction).hint(NATURAL))
        assert len({d["_id"] for d in got}) == len(got)
        explained = db.c.find(query).sort("b", direction).explain()
        assert stages(explained["queryPlanner"]["winningPlan"]) == "FETCH(SORT_MERGE(IXSCAN,IXSCAN))"
        merge = find_stage(explained["executionStats"]["executionStages"], "SORT_MERGE")
        assert merge["dupsDropped"] == 5  # 5, 17, 29, 41, 53
        assert merge["nReturned"] == len(got)


def test_an_or_branch_with_an_in_is_split_into_the_merge(db):
    db.c.insert_many([{"_id": i, "a": i % 6, "c": i % 5, "b": (i * 7) % 53} for i in range(53)])
    db.c.create_index([("a", 1), ("b", 1)])
    db.c.create_index([("c", 1), ("b", 1)])
    query = {"$or": [{"a": {"$in": [0, 5]}}, {"c": 4}]}
    got = list(db.c.find(query).sort("b", 1).limit(20))
    assert got == list(db.c.find(query).sort("b", 1).limit(20).hint(NATURAL))
    assert stages(winning(db.c.find(query).sort("b", 1))) == \
        "FETCH(SORT_MERGE(IXSCAN,IXSCAN,IXSCAN))"


def test_ties_come_out_in_one_order(db):
    # b ties across the scans: ascending they come in record order, descending as a backward
    # scan of the index gives them (records in reverse).
    db.c.insert_many([{"_id": i, "a": i % 3, "b": i % 4} for i in range(36)])
    db.c.create_index([("a", 1), ("b", 1)])
    query = {"a": {"$in": [0, 1, 2]}}
    ascending = [d["_id"] for d in db.c.find(query).sort("b", 1)]
    assert ascending == [d["_id"] for d in db.c.find(query).sort("b", 1).hint(NATURAL)]
    descending = [(d["b"], d["_id"]) for d in db.c.find(query).sort("b", -1)]
    assert descending == sorted(descending, reverse=True)
    assert [d["_id"] for d in db.c.find(query).sort("b", -1)] == [
        i for _, i in descending]  # the same again
    assert stages(winning(db.c.find(query).sort("b", -1))) == \
        "FETCH(SORT_MERGE(IXSCAN,IXSCAN,IXSCAN))"


def test_a_multikey_index_is_not_merged_and_answers_right(db):
    db.c.insert_many([{"_id": i, "a": [i % 3, (i + 1) % 3], "b": (i * 5) % 31} for i in range(31)])
    db.c.create_index([("a", 1), ("b", 1)])
    query = {"a": {"$in": [0, 2]}}
    got = list(db.c.find(query).sort("b", 1))
    assert got == list(db.c.find(query).sort("b", 1).hint(NATURAL))
    assert len({d["_id"] for d in got}) == len(got) == 31
    assert "SORT_MERGE" not in stages(winning(db.c.find(query).sort("b", 1)))


def test_a_hinted_index_is_merged(coll):
    coll.create_index("a")
    query = {"a": {"$in": [1, 2]}}
    cursor = coll.find(query).sort("b", -1).hint([("a", 1), ("b", 1)])
    assert stages(winning(cursor)) == "FETCH(SORT_MERGE(IXSCAN,IXSCAN))"
    assert list(coll.find(query).sort("b", -1).hint("a_1_b_1")) == list(
        coll.find(query).sort("b", -1).hint(NATURAL))


def test_the_merge_wins_the_trial_and_replays_from_the_plan_cache(coll):
    coll.create_index("a")  # a_1 sorts in memory: the trial's other candidate
    query = {"a": {"$in": [0, 2, 4]}}
    expected = list(coll.find(query).sort("b", 1).limit(7).hint(NATURAL))
    for _ in range(4):  # the first runs make the entry and activate it; later ones replay it
        assert list(coll.find(query).sort("b", 1).limit(7)) == expected
    entries = list(coll.aggregate([{"$planCacheStats": {}}]))
    assert len(entries) == 1 and entries[0]["isActive"] is True
    assert "SORT_MERGE" in stages(entries[0]["cachedPlan"])
    # Other values of the same shape replay the cached choice with their own scans.
    other = {"a": {"$in": [1, 3, 0]}}
    assert list(coll.find(other).sort("b", -1).limit(9)) == list(
        coll.find(other).sort("b", -1).limit(9).hint(NATURAL))


def test_aggregate_match_and_sort_read_through_the_merge(coll):
    pipeline = [{"$match": {"a": {"$in": [1, 4]}}}, {"$sort": {"b": -1}}, {"$limit": 6}]
    got = list(coll.aggregate(pipeline))
    assert got == list(coll.aggregate(pipeline, hint={"$natural": 1}))
    explained = coll.database.command("aggregate", coll.name, pipeline=pipeline, explain=True)
    assert "SORT_MERGE" in str(explained)
    assert "'stage': 'SORT'" not in str(explained)


def test_a_wildcard_branch_is_not_merged(db):
    db.c.insert_many([{"_id": i, "a": i % 3, "b": i % 4, "s": (i * 7) % 23} for i in range(23)])
    db.c.create_index([("$**", 1)])
    query = {"$or": [{"a": 1}, {"b": 2}]}
    got = list(db.c.find(query).sort("a", -1))
    assert [d["a"] for d in got] == sorted((d["a"] for d in got), reverse=True)
    assert sorted(d["_id"] for d in got) == sorted(d["_id"] for d in db.c.find(query).hint(NATURAL))
    assert "SORT_MERGE" not in stages(winning(db.c.find(query).sort("a", -1)))
