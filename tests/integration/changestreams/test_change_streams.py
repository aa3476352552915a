"""Change streams (watch()) with pymongo against a real quarryd: event shapes, updateLookup,
pre-images, $match, database and cluster streams, invalidate, resume (also across kill -9) and
the awaitData getMore that waits for a change and wakes on one."""

import threading
import time

import pymongo
import pymongo.errors
import pytest
from bson.timestamp import Timestamp

from quarry_server import CLIENT_OPTIONS

AWAIT_MS = 300


def next_event(stream, timeout_s=5.0):
    """The next event of `stream`, or fails after timeout_s (try_next returns None when a
    getMore came back empty)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        event = stream.try_next()
        if event is not None:
            return event
        if not stream.alive:
            pytest.fail("the change stream closed while waiting for an event")
    pytest.fail(f"no change event within {timeout_s} s")


def drain(stream, wait_s=0.5):
    """Every event that arrives until one empty getMore after wait_s has passed."""
    events = []
    deadline = time.monotonic() + wait_s
    while stream.alive:
        event = stream.try_next()
        if event is not None:
            events.append(event)
        elif time.monotonic() >= deadline:
            break
    return events


def test_insert_event_has_full_document_ns_and_document_key(db):
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.insert_one({"_id": 1, "a": 1, "b": "x"})
        event = next_event(stream)
    assert event["operationType"] == "insert"
    assert event["ns"] == {"db": db.name, "coll": "c"}
    assert event["documentKey"] == {"_id": 1}
    assert event["fullDocument"] == {"_id": 1, "a": 1, "b": "x"}
    assert "_data" in event["_id"]
    assert isinstance(event["clusterTime"], Timestamp)


def test_update_event_lists_updated_and_removed_fields_without_full_document(db):
    db.c.insert_one({"_id": 1, "a": 1, "b": 2, "c": 3})
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.update_one({"_id": 1}, {"$set": {"a": 10, "d.e": "new"}, "$unset": {"b": ""}})
        event = next_event(stream)
    assert event["operationType"] == "update"
    assert event["ns"] == {"db": db.name, "coll": "c"}
    assert event["documentKey"] == {"_id": 1}
    assert event["updateDescription"]["updatedFields"] == {"a": 10, "d": {"e": "new"}}
    assert event["updateDescription"]["removedFields"] == ["b"]
    assert "fullDocument" not in event


def test_an_update_is_described_alike_whether_its_pre_image_is_logged_or_not(db):
    # Without pre-images the oplog logs what changed instead of the whole pre-image.
    doc = {"_id": 1, "big": "x" * 2000, "a": {"b": 1, "0": 5}, "arr": [1, 2, 3, 4], "gone": 1, "n": 1}
    db.create_collection("plain")
    db.create_collection("imaged", changeStreamPreAndPostImages={"enabled": True})
    update = {"$set": {"a.b": 2, "a.0": 6, "arr": [1, 9], "new": {"x": 1}},
              "$unset": {"gone": ""}, "$inc": {"n": 1}}
    descriptions = {}
    for name in ("plain", "imaged"):
        db[name].insert_one(doc)
        with db[name].watch(max_await_time_ms=AWAIT_MS) as stream:
            db[name].update_one({"_id": 1}, update)
            descriptions[name] = next_event(stream)["updateDescription"]
    assert descriptions["plain"] == descriptions["imaged"]
    assert descriptions["plain"] == {
        "updatedFields": {"a.b": 2, "a.0": 6, "arr.1": 9, "n": 2, "new": {"x": 1}},
        "removedFields": ["gone"],
        "truncatedArrays": [{"field": "arr", "newSize": 2}],
    }


def test_replace_event_carries_the_new_document(db):
    db.c.insert_one({"_id": 1, "a": 1})
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.replace_one({"_id": 1}, {"z": 26})
        event = next_event(stream)
    assert event["operationType"] == "replace"
    assert event["documentKey"] == {"_id": 1}
    assert event["fullDocument"] == {"_id": 1, "z": 26}
    assert "updateDescription" not in event


def test_delete_event_has_document_key_only(db):
    db.c.insert_one({"_id": "k", "a": 1})
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.delete_one({"_id": "k"})
        event = next_event(stream)
    assert event["operationType"] == "delete"
    assert event["ns"] == {"db": db.name, "coll": "c"}
    assert event["documentKey"] == {"_id": "k"}
    assert "fullDocument" not in event


def test_events_arrive_in_commit_order_with_increasing_cluster_times(db):
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.insert_one({"_id": 1})
        db.c.insert_one({"_id": 2})
        db.c.update_one({"_id": 1}, {"$set": {"x": 1}})
        db.c.delete_one({"_id": 2})
        events = [next_event(stream) for _ in range(4)]
    assert [(e["operationType"], e["documentKey"]["_id"]) for e in events] == [
        ("insert", 1), ("insert", 2), ("update", 1), ("delete", 2)]
    times = [e["clusterTime"] for e in events]
    assert times == sorted(times) and len(set(times)) == 4


def test_update_lookup_returns_the_current_document_with_an_update(db):
    db.c.insert_one({"_id": 1, "a": 1, "keep": "me"})
    with db.c.watch(full_document="updateLookup", max_await_time_ms=AWAIT_MS) as stream:
        db.c.update_one({"_id": 1}, {"$inc": {"a": 1}})
        event = next_event(stream)
    assert event["operationType"] == "update"
    assert event["updateDescription"]["updatedFields"] == {"a": 2}
    assert event["fullDocument"] == {"_id": 1, "a": 2, "keep": "me"}


def test_update_lookup_of_a_since_deleted_document_is_null(db):
    db.c.insert_one({"_id": 1, "a": 1})
    with db.c.watch(full_document="updateLookup", max_await_time_ms=AWAIT_MS) as stream:
        db.c.update_one({"_id": 1}, {"$set": {"a": 2}})
        db.c.delete_one({"_id": 1})
        update = next_event(stream)
        next_event(stream)
    assert update["operationType"] == "update"
    assert "fullDocument" in update and update["fullDocument"] is None


# --- pre-images: pymongo 3.11 has no full_document_before_change, so aggregate/getMore by hand.

def open_raw_stream(db, coll, **change_stream_options):
    reply = db.command("aggregate", coll, pipeline=[{"$changeStream": change_stream_options}],
                       cursor={})
    return reply["cursor"]["id"], list(reply["cursor"]["firstBatch"])


def raw_events(db, coll, cursor_id, count, timeout_s=5.0):
    events = []
    deadline = time.monotonic() + timeout_s
    while len(events) < count and time.monotonic() < deadline:
        reply = db.command("getMore", cursor_id, collection=coll, maxTimeMS=AWAIT_MS)
        events.extend(reply["cursor"]["nextBatch"])
    assert len(events) >= count, f"got {len(events)} of {count} events: {events}"
    return events


def kill_raw(db, coll, cursor_id):
    db.command("killCursors", coll, cursors=[cursor_id])


def test_pre_images_when_available_show_the_document_before_update_replace_and_delete(db):
    db.create_collection("c", changeStreamPreAndPostImages={"enabled": True})
    db.c.insert_one({"_id": 1, "v": "original"})
    cursor_id, first = open_raw_stream(db, "c", fullDocumentBeforeChange="whenAvailable")
    db.c.update_one({"_id": 1}, {"$set": {"v": "updated"}})
    db.c.replace_one({"_id": 1}, {"v": "replaced"})
    db.c.delete_one({"_id": 1})
    events = first + raw_events(db, "c", cursor_id, 3)
    kill_raw(db, "c", cursor_id)
    assert [e["operationType"] for e in events] == ["update", "replace", "delete"]
    assert events[0]["fullDocumentBeforeChange"] == {"_id": 1, "v": "original"}
    assert events[1]["fullDocumentBeforeChange"] == {"_id": 1, "v": "updated"}
    assert events[2]["fullDocumentBeforeChange"] == {"_id": 1, "v": "replaced"}


def test_pre_images_required_after_coll_mod_enables_them(db):
    db.create_collection("c")
    db.command("collMod", "c", changeStreamPreAndPostImages={"enabled": True})
    db.c.insert_one({"_id": 1, "n": 1})
    cursor_id, first = open_raw_stream(db, "c", fullDocumentBeforeChange="required")
    db.c.update_one({"_id": 1}, {"$inc": {"n": 1}})
    events = first + raw_events(db, "c", cursor_id, 1)
    kill_raw(db, "c", cursor_id)
    assert events[0]["operationType"] == "update"
    assert events[0]["fullDocumentBeforeChange"] == {"_id": 1, "n": 1}
    assert events[0]["updateDescription"]["updatedFields"] == {"n": 2}


def test_pre_images_when_available_is_null_when_the_collection_does_not_record_them(db):
    db.create_collection("c")
    db.c.insert_one({"_id": 1, "n": 1})
    cursor_id, first = open_raw_stream(db, "c", fullDocumentBeforeChange="whenAvailable")
    db.c.update_one({"_id": 1}, {"$inc": {"n": 1}})
    events = first + raw_events(db, "c", cursor_id, 1)
    kill_raw(db, "c", cursor_id)
    assert events[0]["operationType"] == "update"
    assert "fullDocumentBeforeChange" in events[0]
    assert events[0]["fullDocumentBeforeChange"] is None


def test_match_stage_filters_events_by_operation_type(db):
    pipeline = [{"$match": {"operationType": {"$in": ["insert", "delete"]}}}]
    with db.c.watch(pipeline, max_await_time_ms=AWAIT_MS) as stream:
        db.c.insert_one({"_id": 1})
        db.c.update_one({"_id": 1}, {"$set": {"x": 1}})
        db.c.replace_one({"_id": 1}, {"y": 1})
        db.c.delete_one({"_id": 1})
        db.c.insert_one({"_id": 2})
        events = [next_event(stream) for _ in range(3)]
        assert drain(stream, 0.4) == []
    assert [(e["operationType"], e["documentKey"]["_id"]) for e in events] == [
        ("insert", 1), ("delete", 1), ("insert", 2)]


def test_database_watch_sees_every_collection_of_that_database_only(db, client):
    other = client[db.name + "_other"]
    try:
        with db.watch(max_await_time_ms=AWAIT_MS) as stream:
            db.a.insert_one({"_id": "a"})
            other.c.insert_one({"_id": "elsewhere"})
            db.b.insert_one({"_id": "b"})
            events = [next_event(stream) for _ in range(2)]
            assert drain(stream, 0.4) == []
    finally:
        client.drop_database(other.name)
    assert [(e["ns"]["coll"], e["documentKey"]["_id"]) for e in events] == [("a", "a"), ("b", "b")]
    assert all(e["ns"]["db"] == db.name for e in events)


def test_cluster_watch_sees_changes_in_every_database(db, client):
    other = client[db.name + "_other"]
    try:
        with client.watch([{"$match": {"ns.db": {"$in": [db.name, other.name]}}}],
                          max_await_time_ms=AWAIT_MS) as stream:
            db.a.insert_one({"_id": 1})
            other.b.insert_one({"_id": 2})
            events = [next_event(stream) for _ in range(2)]
    finally:
        client.drop_database(other.name)
    assert [e["ns"] for e in events] == [{"db": db.name, "coll": "a"},
                                         {"db": other.name, "coll": "b"}]


def test_dropping_the_watched_collection_gives_drop_then_invalidate_and_closes_the_stream(db):
    db.c.insert_one({"_id": 0})
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.insert_one({"_id": 1})
        db.c.drop()
        events = [next_event(stream) for _ in range(3)]
        assert [e["operationType"] for e in events] == ["insert", "drop", "invalidate"]
        assert events[1]["ns"] == {"db": db.name, "coll": "c"}
        # After invalidate the server closes the cursor: the stream is exhausted.
        deadline = time.monotonic() + 2
        while stream.alive and time.monotonic() < deadline:
            assert stream.try_next() is None
        assert not stream.alive


def test_resume_after_a_token_sees_exactly_the_later_events(db):
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.insert_one({"_id": 1})
        db.c.insert_one({"_id": 2})
        next_event(stream)
        token = next_event(stream)["_id"]
    db.c.insert_one({"_id": 3})
    db.c.update_one({"_id": 1}, {"$set": {"x": 1}})
    db.c.delete_one({"_id": 2})
    with db.c.watch(resume_after=token, max_await_time_ms=AWAIT_MS) as resumed:
        events = [next_event(resumed) for _ in range(3)]
        assert drain(resumed, 0.4) == []
    assert [(e["operationType"], e["documentKey"]["_id"]) for e in events] == [
        ("insert", 3), ("update", 1), ("delete", 2)]


def test_start_after_a_token_also_resumes_after_it(db):
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.insert_one({"_id": 1})
        token = next_event(stream)["_id"]
    db.c.insert_one({"_id": 2})
    with db.c.watch(start_after=token, max_await_time_ms=AWAIT_MS) as resumed:
        event = next_event(resumed)
        assert drain(resumed, 0.4) == []
    assert event["documentKey"] == {"_id": 2}


@pytest.mark.slow
def test_resume_after_kill_9_and_restart_sees_exactly_the_events_after_the_token(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        coll = c.t_cs_crash.c
        with coll.watch(max_await_time_ms=AWAIT_MS) as stream:
            for i in range(3):
                coll.insert_one({"_id": i})
            events = [next_event(stream) for _ in range(3)]
        token = events[1]["_id"]  # after _id 1: only _id 2 and the later writes must come back
        coll.update_one({"_id": 0}, {"$set": {"after": True}})
        coll.insert_one({"_id": 3})
    own_server.restart(crash=True)
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        coll = c.t_cs_crash.c
        coll.insert_one({"_id": 4})  # written after the restart
        with coll.watch(resume_after=token, max_await_time_ms=AWAIT_MS) as resumed:
            got = [next_event(resumed) for _ in range(4)]
            assert drain(resumed, 0.4) == []
    assert [(e["operationType"], e["documentKey"]["_id"]) for e in got] == [
        ("insert", 2), ("update", 0), ("insert", 3), ("insert", 4)]


def test_get_more_without_changes_waits_about_max_await_time_and_returns_empty(db):
    db.create_collection("c")
    cursor_id, first = open_raw_stream(db, "c")
    assert first == []
    try:
        for _ in range(2):
            start = time.monotonic()
            reply = db.command("getMore", cursor_id, collection="c", maxTimeMS=AWAIT_MS)
            elapsed = time.monotonic() - start
            assert reply["cursor"]["nextBatch"] == []
            assert reply["cursor"]["id"] == cursor_id, "an empty change stream batch stays open"
            assert 0.8 * AWAIT_MS / 1000 <= elapsed <= AWAIT_MS / 1000 + 0.5, elapsed
    finally:
        kill_raw(db, "c", cursor_id)


def test_a_change_wakes_a_waiting_get_more_well_before_max_await_time(db, server):
    wait_ms = 3000
    db.create_collection("c")
    cursor_id, _ = open_raw_stream(db, "c")
    writer = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    writer[db.name].c.find_one()  # connect before timing
    inserted_at = []

    def insert_later():
        time.sleep(0.5)
        inserted_at.append(time.monotonic())
        writer[db.name].c.insert_one({"_id": "wake"})

    thread = threading.Thread(target=insert_later)
    try:
        start = time.monotonic()
        thread.start()
        reply = db.command("getMore", cursor_id, collection="c", maxTimeMS=wait_ms)
        returned_at = time.monotonic()
        thread.join()
    finally:
        writer.close()
        kill_raw(db, "c", cursor_id)
    batch = reply["cursor"]["nextBatch"]
    assert [e["documentKey"] for e in batch] == [{"_id": "wake"}]
    assert returned_at - start < wait_ms / 1000 / 2, "getMore slept through the change"
    # From the insert call to the event in our hands: the insert round trip plus the wake-up.
    latency = returned_at - inserted_at[0]
    assert latency < 0.1, f"event arrived {latency * 1000:.0f} ms after the insert"


def test_waiting_change_stream_does_not_block_other_clients(db, server):
    db.create_collection("c")
    cursor_id, _ = open_raw_stream(db, "c")
    done = []

    def wait():
        db.command("getMore", cursor_id, collection="c", maxTimeMS=1500)
        done.append(time.monotonic())

    thread = threading.Thread(target=wait)
    thread.start()
    try:
        with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as other:
            start = time.monotonic()
            other[db.name].command("ping")
            other[db.name].d.insert_one({"_id": 1})
            assert time.monotonic() - start < 0.5
    finally:
        thread.join()
        kill_raw(db, "c", cursor_id)


# --- more event kinds and DDL

def test_multi_document_writes_give_one_event_per_document_and_no_ops_give_none(db):
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.insert_many([{"_id": i, "g": 1} for i in range(3)])
        db.c.update_many({"g": 1}, {"$set": {"h": 1}})
        db.c.update_one({"_id": 0}, {"$set": {"h": 1}})  # changes nothing: no event
        db.c.delete_one({"_id": "missing"})  # deletes nothing: no event
        db.c.update_one({"_id": 9}, {"$set": {"u": 1}}, upsert=True)  # an upsert inserts
        db.c.find_one_and_update({"_id": 1}, {"$inc": {"h": 1}})
        db.c.delete_many({"g": 1})
        events = [next_event(stream) for _ in range(11)]
        assert drain(stream, 0.4) == []
    assert [(e["operationType"], e["documentKey"]["_id"]) for e in events] == [
        ("insert", 0), ("insert", 1), ("insert", 2), ("update", 0), ("update", 1), ("update", 2),
        ("insert", 9), ("update", 1), ("delete", 0), ("delete", 1), ("delete", 2)]
    assert events[6]["fullDocument"] == {"_id": 9, "u": 1}


def test_update_description_reports_dotted_paths_and_truncated_arrays(db):
    db.c.insert_one({"_id": 1, "arr": [1, 2, 3, 4], "o": {"p": 1, "q": 2}})
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.update_one({"_id": 1}, [{"$set": {"arr": [1, 2]}}])
        db.c.update_one({"_id": 1}, {"$unset": {"o.p": 1}, "$set": {"arr.0": 9}})
        first, second = next_event(stream), next_event(stream)
    assert first["updateDescription"]["truncatedArrays"] == [{"field": "arr", "newSize": 2}]
    assert first["updateDescription"]["updatedFields"] == {}
    assert second["updateDescription"]["updatedFields"] == {"arr.0": 9}
    assert second["updateDescription"]["removedFields"] == ["o.p"]


def test_a_collection_stream_ignores_other_collections_of_the_database(db):
    with db.x.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.y.insert_one({"_id": "y"})
        db.x.insert_one({"_id": "x"})
        events = [next_event(stream)]
        assert drain(stream, 0.4) == []
    assert events[0]["ns"] == {"db": db.name, "coll": "x"}


def test_renaming_the_watched_collection_gives_rename_then_invalidate(db):
    db.r.insert_one({"_id": 1})
    with db.r.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.r.rename("r2")
        events = [next_event(stream) for _ in range(2)]
        assert [e["operationType"] for e in events] == ["rename", "invalidate"]
        assert events[0]["ns"] == {"db": db.name, "coll": "r"}
        assert events[0]["to"] == {"db": db.name, "coll": "r2"}
        assert drain(stream, 0.4) == [] and not stream.alive


def test_dropping_the_watched_database_gives_drops_drop_database_then_invalidate(client, db):
    db.a.insert_one({})
    db.b.insert_one({})
    with db.watch(max_await_time_ms=AWAIT_MS) as stream:
        client.drop_database(db.name)
        events = [next_event(stream) for _ in range(4)]
        assert drain(stream, 0.4) == [] and not stream.alive
    kinds = [(e["operationType"], e.get("ns")) for e in events]
    assert sorted(kinds[:2], key=lambda k: k[1]["coll"]) == [
        ("drop", {"db": db.name, "coll": "a"}), ("drop", {"db": db.name, "coll": "b"})]
    assert kinds[2:] == [("dropDatabase", {"db": db.name}), ("invalidate", None)]


def test_resume_after_an_invalidate_is_refused_but_start_after_continues(db):
    db.c.insert_one({"_id": 1})
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.drop()
        events = [next_event(stream) for _ in range(2)]
    invalidate = events[-1]
    assert invalidate["operationType"] == "invalidate"
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("aggregate", "c", pipeline=[{"$changeStream": {"resumeAfter": invalidate["_id"]}}],
                   cursor={})
    assert info.value.code == 260  # InvalidResumeToken
    with db.c.watch(start_after=invalidate["_id"], max_await_time_ms=AWAIT_MS) as resumed:
        db.c.insert_one({"_id": "new"})
        event = next_event(resumed)
    assert (event["operationType"], event["documentKey"]) == ("insert", {"_id": "new"})


def test_resume_from_the_post_batch_resume_token_of_an_empty_batch(db):
    db.create_collection("c")
    db.c.insert_one({"_id": "before"})
    cursor_id, first = open_raw_stream(db, "c")
    assert first == []
    reply = db.command("getMore", cursor_id, collection="c", maxTimeMS=100)
    assert reply["cursor"]["nextBatch"] == []
    token = reply["cursor"]["postBatchResumeToken"]
    kill_raw(db, "c", cursor_id)
    db.c.insert_one({"_id": "after"})
    with db.c.watch(resume_after=token, max_await_time_ms=AWAIT_MS) as resumed:
        event = next_event(resumed)
        assert drain(resumed, 0.4) == []
    assert event["documentKey"] == {"_id": "after"}


def test_start_at_operation_time_includes_the_write_at_that_time(db):
    db.c.insert_one({"_id": "before"})
    at = db.command("insert", "c", documents=[{"_id": "at"}])["operationTime"]
    db.c.insert_one({"_id": "after"})
    with db.c.watch(start_at_operation_time=at, max_await_time_ms=AWAIT_MS) as stream:
        ids = [next_event(stream)["documentKey"]["_id"] for _ in range(2)]
        assert drain(stream, 0.4) == []
    assert ids == ["at", "after"]


def test_batch_size_of_get_more_limits_the_events_per_batch(db):
    db.create_collection("c")
    cursor_id, _ = open_raw_stream(db, "c")
    db.c.insert_many([{"_id": i} for i in range(5)])
    try:
        reply = db.command("getMore", cursor_id, collection="c", batchSize=2, maxTimeMS=AWAIT_MS)
        assert [e["documentKey"]["_id"] for e in reply["cursor"]["nextBatch"]] == [0, 1]
        rest = raw_events(db, "c", cursor_id, 3)
        assert [e["documentKey"]["_id"] for e in rest] == [2, 3, 4]
    finally:
        kill_raw(db, "c", cursor_id)


def test_killed_change_stream_cursor_is_gone(db):
    db.create_collection("c")
    cursor_id, _ = open_raw_stream(db, "c")
    reply = db.command("killCursors", "c", cursors=[cursor_id])
    assert reply["cursorsKilled"] == [cursor_id]
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("getMore", cursor_id, collection="c", maxTimeMS=100)
    assert info.value.code == 43  # CursorNotFound


# --- errors a mongod gives for bad change stream requests

def aggregate_error(database, coll, pipeline):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        database.command("aggregate", coll, pipeline=pipeline, cursor={})
    return info.value


def test_change_stream_must_be_the_first_stage(db):
    assert aggregate_error(db, "c", [{"$match": {}}, {"$changeStream": {}}]).code == 40602


def test_resume_after_and_start_after_together_are_refused(db):
    with db.c.watch(max_await_time_ms=AWAIT_MS) as stream:
        db.c.insert_one({})
        token = next_event(stream)["_id"]
    err = aggregate_error(db, "c", [{"$changeStream": {"resumeAfter": token, "startAfter": token}}])
    assert err.code == 50865


def test_malformed_resume_token_is_invalid_resume_token(db):
    err = aggregate_error(db, "c", [{"$changeStream": {"resumeAfter": {"_data": "zz"}}}])
    assert err.code == 260


def test_stages_that_cannot_follow_change_stream_are_refused(db):
    assert aggregate_error(db, "c", [{"$changeStream": {}}, {"$group": {"_id": 1}}]).code == 20
    assert aggregate_error(db, "c", [{"$changeStream": {}}, {"$out": "x"}]).code == 20


def test_all_changes_for_cluster_only_on_admin_and_plain_stream_not_on_admin(db, client):
    err = aggregate_error(db, 1, [{"$changeStream": {"allChangesForCluster": True}}])
    assert err.code == 72  # InvalidOptions
    err = aggregate_error(client.admin, 1, [{"$changeStream": {}}])
    assert err.code == 73  # InvalidNamespace


def test_required_pre_image_that_is_missing_fails_the_get_more(db):
    db.create_collection("c")  # without changeStreamPreAndPostImages
    db.c.insert_one({"_id": 1, "a": 1})
    cursor_id, _ = open_raw_stream(db, "c", fullDocumentBeforeChange="required")
    db.c.update_one({"_id": 1}, {"$set": {"a": 2}})
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        raw_events(db, "c", cursor_id, 1)
    assert info.value.code == 47  # NoMatchingDocument


def test_projecting_away_the_resume_token_is_a_non_resumable_error(db):
    db.create_collection("c")
    reply = db.command("aggregate", "c", pipeline=[{"$changeStream": {}}, {"$project": {"_id": 0}}],
                       cursor={})
    db.c.insert_one({"_id": 1})
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        raw_events(db, "c", reply["cursor"]["id"], 1)
    assert info.value.code == 280  # ChangeStreamFatalError
    assert "NonResumableChangeStreamError" in info.value.details.get("errorLabels", [])


def test_pymongo_resumes_transparently_after_a_resumable_get_more_error(make_server, request):
    # pymongo (wire version >= 9) resumes only on errors labelled ResumableChangeStreamError.
    server = make_server(request.node.name, extra_args=["--enableTestCommands"])
    try:
        with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
            coll = c.t_cs_resume.c
            with coll.watch(max_await_time_ms=AWAIT_MS) as stream:
                coll.insert_one({"_id": 1})
                assert next_event(stream)["documentKey"] == {"_id": 1}
                # As in the drivers' change stream spec tests: fail the getMore once the cursor
                # is checked out, so the server labels the error ResumableChangeStreamError.
                c.admin.command("configureFailPoint", "failGetMoreAfterCursorCheckout",
                                mode={"times": 1}, data={"errorCode": 6})  # HostUnreachable
                coll.insert_one({"_id": 2})
                coll.insert_one({"_id": 3})
                ids = [next_event(stream)["documentKey"]["_id"] for _ in range(2)]
                assert drain(stream, 0.4) == []
            assert ids == [2, 3], "the resumed stream lost or repeated events"
    finally:
        server.stop()


def test_back_to_back_awaited_get_mores_never_find_the_cursor_in_use(db):
    # One client, strictly sequential getMores: each is sent only after the previous reply
    # arrived, so mongod never answers CursorInUse here.
    db.create_collection("c")
    cursor_id, _ = open_raw_stream(db, "c")
    in_use = 0
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                db.command("getMore", cursor_id, collection="c", maxTimeMS=5)
            except pymongo.errors.OperationFailure as exc:
                if exc.code != 143:
                    raise
                in_use += 1
    finally:
        kill_raw(db, "c", cursor_id)
    assert in_use == 0, f"{in_use} sequential getMores were refused with CursorInUse"
