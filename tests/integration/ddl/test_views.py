"""Views (create with viewOn and pipeline, mongosh's db.createView): reads run the view's
aggregation over its source, writes are refused with 166 CommandNotSupportedOnView, and
definitions are checked as mongod checks them."""

import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS

PEOPLE = [{"_id": i, "name": name, "age": age, "city": city, "pets": pets}
          for i, (name, age, city, pets) in enumerate([
              ("ann", 31, "Oslo", ["cat"]),
              ("Bob", 45, "Rome", ["dog", "cat"]),
              ("cid", 19, "Oslo", []),
              ("Dee", 52, "Lima", [{"kind": "fish"}]),
              ("eve", 27, "rome", ["dog"]),
              ("Fay", 38, "Oslo", None),
              ("gus", 61, "Lima", ["cat", ["nested"]]),
          ])]


def adults_over_25(doc):
    return doc["age"] > 25


@pytest.fixture
def people(db):
    db.people.insert_many(PEOPLE)
    # The view keeps people over 25 and drops their pets.
    db.create_collection("grownups", viewOn="people",
                         pipeline=[{"$match": {"age": {"$gt": 25}}},
                                   {"$project": {"pets": 0}}])
    return db


def without_pets(doc):
    return {k: v for k, v in doc.items() if k != "pets"}


def command_error(call):
    with pytest.raises(pymongo.errors.OperationFailure) as raised:
        call()
    return raised.value


def test_list_collections_shows_the_view_as_mongod_does(people):
    entries = {c["name"]: c for c in people.list_collections()}
    view = entries["grownups"]
    assert view["type"] == "view"
    assert view["options"] == {"viewOn": "people",
                               "pipeline": [{"$match": {"age": {"$gt": 25}}},
                                            {"$project": {"pets": 0}}]}
    assert view["info"] == {"readOnly": True}
    assert "idIndex" not in view
    assert entries["people"]["type"] == "collection"
    assert [c["name"] for c in people.list_collections(filter={"type": "view"})] == ["grownups"]
    # A view created without a pipeline lists an empty one.
    people.create_collection("everyone", viewOn="people")
    listed = next(people.list_collections(filter={"name": "everyone"}))
    assert listed["options"] == {"viewOn": "people", "pipeline": []}


def test_find_applies_filter_sort_skip_limit_and_projection_after_the_view(people):
    expected = sorted((without_pets(d) for d in PEOPLE if adults_over_25(d)),
                      key=lambda d: d["age"], reverse=True)
    got = list(people.grownups.find({"city": {"$ne": "Rome"}}, {"name": 1, "age": 1})
               .sort("age", -1).skip(1).limit(3))
    want = [{"_id": d["_id"], "name": d["name"], "age": d["age"]}
            for d in expected if d["city"] != "Rome"][1:4]
    assert got == want
    assert people.grownups.find_one({"name": "cid"}) is None  # filtered out by the view


def test_a_view_cursor_carries_the_views_namespace_through_get_more(people):
    reply = people.command("find", "grownups", batchSize=2, sort={"_id": 1})
    assert reply["cursor"]["ns"] == f"{people.name}.grownups"
    assert len(reply["cursor"]["firstBatch"]) == 2
    assert reply["cursor"]["id"] != 0
    rest = people.command("getMore", reply["cursor"]["id"], collection="grownups", batchSize=100)
    ids = ([d["_id"] for d in reply["cursor"]["firstBatch"]]
           + [d["_id"] for d in rest["cursor"]["nextBatch"]])
    assert ids == [d["_id"] for d in PEOPLE if adults_over_25(d)]


def test_count_and_distinct_read_through_the_view(people):
    adults = [d for d in PEOPLE if adults_over_25(d)]
    assert people.grownups.count_documents({}) == len(adults)
    assert people.grownups.estimated_document_count() == len(adults)
    assert people.grownups.count_documents({"city": "Oslo"}) == 2
    assert people.command("count", "grownups", skip=1, limit=2)["n"] == 2
    assert sorted(people.grownups.distinct("city")) == sorted({d["city"] for d in adults})
    # The view dropped the pets: distinct on them finds nothing, where the source has some.
    assert people.grownups.distinct("pets") == []
    assert people.people.distinct("pets", {"_id": 3}) == [{"kind": "fish"}]
    assert sorted(people.grownups.distinct("age", {"age": {"$lt": 40}})) == [27, 31, 38]


def test_distinct_on_a_view_unwinds_arrays_as_on_a_collection(db):
    db.people.insert_many(PEOPLE)
    db.create_collection("all_people", viewOn="people", pipeline=[])
    on_view = db.all_people.distinct("pets")
    on_collection = db.people.distinct("pets")
    assert len(on_view) == len(on_collection)
    for value in on_collection:
        assert value in on_view
    assert db.all_people.distinct("pets.kind") == ["fish"]


def test_aggregate_on_a_view_runs_after_the_views_stages(people):
    got = list(people.grownups.aggregate([{"$group": {"_id": "$city", "n": {"$sum": 1}}},
                                          {"$sort": {"_id": 1}}]))
    counts = {}
    for d in PEOPLE:
        if adults_over_25(d):
            counts[d["city"]] = counts.get(d["city"], 0) + 1
    assert got == [{"_id": city, "n": n} for city, n in sorted(counts.items())]
    # The pets were projected away before the caller's stages.
    assert list(people.grownups.aggregate([{"$match": {"pets": {"$exists": True}}}])) == []


def test_views_on_views_and_collmod_redefine(people):
    people.create_collection("oslo_grownups", viewOn="grownups",
                             pipeline=[{"$match": {"city": "Oslo"}}])
    assert [d["name"] for d in people.oslo_grownups.find().sort("_id", 1)] == ["ann", "Fay"]
    people.command("collMod", "oslo_grownups", viewOn="people",
                   pipeline=[{"$match": {"city": "Lima"}}])
    assert [d["name"] for d in people.oslo_grownups.find().sort("_id", 1)] == ["Dee", "gus"]
    listed = next(people.list_collections(filter={"name": "oslo_grownups"}))
    assert listed["options"] == {"viewOn": "people", "pipeline": [{"$match": {"city": "Lima"}}]}


def test_a_view_definition_that_would_read_itself_is_refused(people):
    people.create_collection("v1", viewOn="grownups")
    error = command_error(lambda: people.command("collMod", "grownups", viewOn="v1",
                                                 pipeline=[]))
    assert error.code == 5  # GraphContainsCycle
    assert [d["_id"] for d in people.grownups.find().sort("_id", 1)] == [0, 1, 3, 4, 5, 6]


def test_views_nest_at_most_twenty_deep(db):
    db.base.insert_one({"_id": 1})
    previous = "base"
    for depth in range(1, 21):
        db.create_collection(f"v{depth}", viewOn=previous)
        previous = f"v{depth}"
    assert list(db.v20.find()) == [{"_id": 1}]
    error = command_error(lambda: db.create_collection("v21", viewOn="v20"))
    assert error.code == 149  # ViewDepthLimitExceeded
    assert "v21" not in db.list_collection_names()


def test_lookup_and_union_with_read_a_view(people):
    got = list(people.people.aggregate([
        {"$match": {"_id": 2}},
        {"$lookup": {"from": "grownups", "localField": "city", "foreignField": "city",
                     "as": "neighbours"}},
        {"$project": {"names": "$neighbours.name"}}]))
    assert got == [{"_id": 2, "names": ["ann", "Fay"]}]
    union = list(people.people.aggregate([{"$match": {"_id": 2}},
                                          {"$unionWith": "grownups"},
                                          {"$project": {"_id": 1}}]))
    assert [d["_id"] for d in union] == [2, 0, 1, 3, 4, 5, 6]


def test_views_reading_each_other_through_lookup_fail_instead_of_recursing(db):
    db.base.insert_one({"_id": 1})
    lookup = {"$lookup": {"from": "b", "pipeline": [], "as": "x"}}
    db.create_collection("a", viewOn="base", pipeline=[lookup])
    db.create_collection("b", viewOn="base",
                         pipeline=[{"$lookup": {"from": "a", "pipeline": [], "as": "y"}}])
    error = command_error(lambda: list(db.a.find()))
    assert error.code == 149
    assert db.command("ping")["ok"] == 1


def test_writes_and_collection_commands_on_a_view_answer_166(people):
    view = people.grownups
    attempts = {
        "insert": lambda: view.insert_one({"name": "zed", "age": 40}),
        "insert_many": lambda: view.insert_many([{"a": 1}, {"a": 2}]),
        "update": lambda: view.update_one({"name": "ann"}, {"$set": {"age": 1}}),
        "upsert": lambda: view.update_one({"name": "new"}, {"$set": {"age": 1}}, upsert=True),
        "replace": lambda: view.replace_one({"name": "ann"}, {"name": "x"}),
        "delete": lambda: view.delete_many({}),
        "findAndModify": lambda: view.find_one_and_update({}, {"$set": {"age": 1}}),
        "findAndModify remove": lambda: view.find_one_and_delete({}),
        "createIndexes": lambda: view.create_index("age"),
        "listIndexes": lambda: list(view.list_indexes()),
        "dropIndexes": lambda: view.drop_index("age_1"),
        "collStats": lambda: people.command("collStats", "grownups"),
        "$collStats": lambda: list(view.aggregate([{"$collStats": {"count": {}}}])),
        "validate": lambda: people.command("validate", "grownups"),
        "dataSize": lambda: people.command("dataSize", f"{people.name}.grownups"),
        "compact": lambda: people.command("compact", "grownups", force=True),
        "$out into a view": lambda: list(people.people.aggregate([{"$out": "grownups"}])),
        "$merge into a view": lambda: list(people.people.aggregate([{"$merge": "grownups"}])),
        "watch": lambda: view.watch(),
        "explain $collStats": lambda: people.command(
            "aggregate", "grownups", pipeline=[{"$collStats": {}}], explain=True),
        "createSearchIndexes": lambda: people.command(
            "createSearchIndexes", "grownups",
            indexes=[{"name": "s", "type": "vectorSearch", "definition": {"fields": [
                {"type": "vector", "path": "v", "numDimensions": 2, "similarity": "cosine"}]}}]),
    }
    for name, attempt in attempts.items():
        error = command_error(attempt)
        assert error.code == 166, (name, error.details)
        assert error.details["codeName"] == "CommandNotSupportedOnView", name
    error = command_error(lambda: view.rename("renamed"))
    assert error.code == 166
    # Nothing reached the source, and the view is as it was.
    assert list(people.people.find().sort("_id", 1)) == PEOPLE
    assert sorted(people.list_collection_names()) == ["grownups", "people"]
    assert view.count_documents({}) == sum(1 for d in PEOPLE if adults_over_25(d))


def test_find_options_an_aggregate_cannot_express_answer_168(people):
    for options in ({"min": {"age": 1}, "hint": {"age": 1}}, {"returnKey": True},
                    {"showRecordId": True}, {"noCursorTimeout": True},
                    {"allowPartialResults": True}, {"sort": {"$natural": 1}},
                    {"singleBatch": True}):
        error = command_error(lambda: people.command("find", "grownups", **options))
        assert error.code == 168, options
    reply = people.command("find", "grownups", singleBatch=True, limit=1)
    assert len(reply["cursor"]["firstBatch"]) == 1 and reply["cursor"]["id"] == 0


def explained_namespaces(explain):
    """Every queryPlanner.namespace in an explain reply, at the top or in a $cursor stage."""
    found = []
    if "queryPlanner" in explain:
        found.append(explain["queryPlanner"]["namespace"])
    for stage in explain.get("stages", []):
        if "$cursor" in stage:
            found.append(stage["$cursor"]["queryPlanner"]["namespace"])
    return found


def test_explain_of_a_read_of_a_view_explains_the_aggregate_over_its_source(people):
    source = f"{people.name}.people"
    find = people.grownups.find({"city": "Oslo"}).explain()
    assert explained_namespaces(find) == [source]
    assert any("$project" in stage for stage in find["stages"])
    count = people.command("explain", {"count": "grownups", "query": {"city": "Oslo"}})
    assert explained_namespaces(count) == [source]
    assert any("$count" in stage for stage in count["stages"])
    aggregate = people.command("aggregate", "grownups", pipeline=[{"$sort": {"age": 1}}],
                               explain=True)
    assert explained_namespaces(aggregate) == [source]
    executed = people.command("explain", {"find": "grownups", "filter": {"city": "Oslo"}},
                              verbosity="executionStats")
    cursor_stage = executed["stages"][0]["$cursor"]
    assert cursor_stage["executionStats"]["nReturned"] >= 2
    # distinct as mongod rewrites it: the $match it reads by, then the values collected.
    distinct = people.command("explain", {"distinct": "grownups", "key": "city",
                                          "query": {"age": {"$gte": 30}}})
    assert explained_namespaces(distinct) == [source]
    assert any("$group" in stage for stage in distinct["stages"])
    assert "age" in str(distinct["stages"][0]["$cursor"]["queryPlanner"]["parsedQuery"])


def test_definitions_are_checked_when_made(people):
    cases = [
        ({"viewOn": 5}, 14),
        ({"viewOn": "people", "pipeline": {"$match": {}}}, 14),
        ({"viewOn": "people", "pipeline": [5]}, 14),
        ({"pipeline": []}, 72),
        ({"viewOn": "people", "validator": {"a": 1}}, 72),
        ({"viewOn": "people", "capped": True, "size": 1000}, 72),
        ({"viewOn": "people", "pipeline": [{"$out": "elsewhere"}]}, 167),
        ({"viewOn": "people", "pipeline": [{"$match": {}}, {"$merge": "elsewhere"}]}, 167),
        ({"viewOn": "people", "pipeline": [{"$changeStream": {}}]}, 167),
        ({"viewOn": "people", "pipeline": [{"$currentOp": {}}]}, 73),
        ({"viewOn": "people", "pipeline": [{"$nosuchstage": {}}]}, 40324),
        ({"viewOn": "people", "pipeline": [{"$match": {"$nosuchop": 1}}]}, 2),
        ({"viewOn": "grownups", "collation": {"locale": "fr"}}, 167),
    ]
    for options, code in cases:
        error = command_error(lambda: people.command("create", "bad", **options))
        assert error.code == code, (options, error.details)
    assert "bad" not in people.list_collection_names()
    # A view over a name already taken, and a name already taken by a view.
    assert command_error(lambda: people.command("create", "people", viewOn="x")).code == 48
    assert command_error(lambda: people.command("create", "grownups")).code == 48
    assert command_error(
        lambda: people.command("collMod", "grownups", validator={"a": 1})).code == 72
    assert command_error(
        lambda: people.command("collMod", "people", viewOn="x", pipeline=[])).code == 72


def test_a_views_collation_is_its_reads_default_and_cannot_be_overridden(db):
    db.create_collection("words", collation={"locale": "en", "strength": 2})
    db.words.insert_many([{"_id": 1, "w": "apple"}, {"_id": 2, "w": "Apple"},
                          {"_id": 3, "w": "banana"}])
    # A view without a collation reads with the simple one, not its source's default.
    db.create_collection("plain", viewOn="words")
    assert [d["_id"] for d in db.plain.find({"w": "apple"})] == [1]
    # A view with a collation matches and groups by it.
    db.create_collection("folded", viewOn="words", collation={"locale": "en", "strength": 2})
    assert sorted(d["_id"] for d in db.folded.find({"w": "apple"})) == [1, 2]
    assert db.folded.count_documents({"w": "APPLE"}) == 2
    assert len(db.folded.distinct("w")) == 2
    listed = next(db.list_collections(filter={"name": "folded"}))
    assert listed["options"]["collation"]["locale"] == "en"
    assert listed["options"]["collation"]["strength"] == 2
    same = {"locale": "en", "strength": 2}
    assert len(list(db.folded.find({"w": "apple"}, collation=same))) == 2
    for read in (lambda: list(db.folded.find({}, collation={"locale": "fr"})),
                 lambda: db.folded.count_documents({}, collation={"locale": "simple"}),
                 lambda: db.plain.distinct("w", collation={"locale": "en"}),
                 lambda: list(db.plain.aggregate([], collation={"locale": "en"}))):
        assert command_error(read).code == 167


def test_dropping_a_view_leaves_its_source_and_db_stats_count_views(people):
    stats = people.command("dbStats")
    assert stats["views"] == 1
    assert stats["collections"] == 1
    assert stats["objects"] == len(PEOPLE)
    reply = people.command("drop", "grownups")
    assert reply["ok"] == 1
    assert people.list_collection_names() == ["people"]
    assert people.people.count_documents({}) == len(PEOPLE)
    assert people.command("dbStats")["views"] == 0


def test_a_view_cannot_be_created_in_a_transaction(client, people):
    with client.start_session() as session:
        session.start_transaction()
        error = command_error(lambda: people.command(
            "create", "inside", viewOn="people", session=session))
        session.abort_transaction()
    assert error.code == 263
    assert "inside" not in people.list_collection_names()


def test_a_read_of_a_view_in_a_transaction_sees_the_transactions_writes(client, people):
    with client.start_session() as session:
        with session.start_transaction():
            people.people.insert_one({"_id": 99, "name": "new", "age": 70, "city": "Oslo"},
                                     session=session)
            inside = [d["_id"] for d in people.grownups.find({"city": "Oslo"}, session=session)]
            counted = people.grownups.count_documents({}, session=session)
            outside = [d["_id"] for d in people.grownups.find({"city": "Oslo"})]
    adults = sum(1 for d in PEOPLE if adults_over_25(d))
    assert inside == [0, 5, 99] and counted == adults + 1
    assert outside == [0, 5]


def test_views_survive_a_restart(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        db = c.t_views_restart
        db.people.insert_many(PEOPLE)
        db.create_collection("grownups", viewOn="people",
                             pipeline=[{"$match": {"age": {"$gt": 25}}}])
    own_server.restart()
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        db = c.t_views_restart
        assert db.grownups.count_documents({}) == sum(1 for d in PEOPLE if adults_over_25(d))
        assert next(db.list_collections(filter={"name": "grownups"}))["type"] == "view"
        assert command_error(lambda: db.grownups.insert_one({"a": 1})).code == 166
