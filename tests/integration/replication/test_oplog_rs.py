"""local.oplog.rs: the oplog in mongod's entry format, readable with find (filters, $natural
order, tailable awaitData cursors) and refused to writers, as change-data-capture tools use it."""

import bson
import pymongo
import pymongo.errors
import pytest
from pymongo.cursor import CursorType


def oplog(client):
    return client.local["oplog.rs"]


def newest_ts(client):
    newest = list(oplog(client).find().sort("$natural", -1).limit(1))
    return newest[0]["ts"] if newest else bson.Timestamp(0, 0)


def test_insert_update_delete_appear_in_mongod_format(client, db):
    start = newest_ts(client)
    db.c.insert_one({"_id": 1, "x": 1})
    db.c.update_one({"_id": 1}, {"$set": {"x": 2}})
    db.c.delete_one({"_id": 1})
    ns = f"{db.name}.c"
    entries = list(oplog(client).find({"ts": {"$gt": start}, "ns": ns}))
    assert [e["op"] for e in entries] == ["i", "u", "d"]
    insert, update, delete = entries
    uuid = db.command("listCollections", filter={"name": "c"})["cursor"]["firstBatch"][0][
        "info"]["uuid"]
    for entry in entries:
        assert entry["ns"] == ns
        assert entry["ui"] == uuid
        assert isinstance(entry["ts"], bson.Timestamp)
        assert entry["t"] == 1
        assert entry["v"] == 2
        assert "wall" in entry
    assert insert["o"] == {"_id": 1, "x": 1}
    assert insert["o2"] == {"_id": 1}
    assert update["o"] == {"_id": 1, "x": 2}
    assert update["o2"] == {"_id": 1}
    assert delete["o"] == {"_id": 1}
    assert insert["ts"] < update["ts"] < delete["ts"]


def test_collection_creation_is_a_command_entry(client, db):
    start = newest_ts(client)
    db.create_collection("made")
    [entry] = list(oplog(client).find({"ts": {"$gt": start}, "op": "c"}))
    assert entry["ns"] == f"{db.name}.$cmd"
    assert entry["o"]["create"] == "made"


def test_natural_order_both_ways_with_limit_and_skip(client, db):
    start = newest_ts(client)
    db.c.insert_many([{"_id": i} for i in range(5)])
    query = {"ts": {"$gt": start}, "ns": f"{db.name}.c"}
    forward = [e["o"]["_id"] for e in oplog(client).find(query).sort("$natural", 1)]
    backward = [e["o"]["_id"] for e in oplog(client).find(query).sort("$natural", -1)]
    assert forward == [0, 1, 2, 3, 4]
    assert backward == [4, 3, 2, 1, 0]
    assert [e["o"]["_id"] for e in oplog(client).find(query).skip(1).limit(2)] == [1, 2]
    last = oplog(client).find().sort("$natural", -1).limit(1).next()
    assert last["o"] == {"_id": 4}


def test_many_entries_come_in_several_batches(client, db):
    start = newest_ts(client)
    db.c.insert_many([{"_id": i} for i in range(300)])
    cursor = oplog(client).find({"ts": {"$gt": start}, "ns": f"{db.name}.c"}, batch_size=50)
    assert [e["o"]["_id"] for e in cursor] == list(range(300))


def test_a_filter_that_matches_after_many_other_entries_still_finds_them(client, db):
    # pymongo ends a non-tailable find at its first empty batch, so no batch may be empty
    # while matches lie further on.
    db.filler.insert_many([{"_id": i} for i in range(25000)])
    db.needle.insert_many([{"_id": 1}, {"_id": 2}])
    found = [e["o"]["_id"] for e in oplog(client).find({"ns": f"{db.name}.needle"})]
    assert found == [1, 2]


def test_projection_and_filter_on_document_fields(client, db):
    start = newest_ts(client)
    db.c.insert_many([{"_id": 1, "k": "a"}, {"_id": 2, "k": "b"}])
    found = list(oplog(client).find({"ts": {"$gt": start}, "o.k": "b"}, {"o": 1, "_id": 0}))
    assert found == [{"o": {"_id": 2, "k": "b"}}]


def test_tailable_await_cursor_gets_later_entries(client, db):
    start = newest_ts(client)
    ns = f"{db.name}.tail"
    cursor = oplog(client).find({"ts": {"$gt": start}, "ns": ns},
                                cursor_type=CursorType.TAILABLE_AWAIT)
    assert list(cursor) == []  # the first batch is empty, and the cursor stays open
    assert cursor.alive
    db.tail.insert_one({"_id": "later"})
    entry = cursor.next()
    assert entry["op"] == "i" and entry["o"] == {"_id": "later"}
    cursor.close()


def test_tailable_cursor_refuses_reverse_order(client):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.local.command("find", "oplog.rs", sort={"$natural": -1}, tailable=True)
    assert failure.value.code == 2
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.local.command("find", "oplog.rs", awaitData=True)
    assert failure.value.code == 9


def test_other_sorts_are_refused_not_ignored(client):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        oplog(client).find().sort("ts", -1).next()
    assert failure.value.code == 115


def test_clients_cannot_write_the_oplog(client):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        oplog(client).insert_one({"x": 1})
    assert failure.value.code == 73
    assert "cannot write to local.oplog.rs" in str(failure.value)
    with pytest.raises(pymongo.errors.OperationFailure):
        oplog(client).delete_many({})
    with pytest.raises(pymongo.errors.OperationFailure):
        oplog(client).update_many({}, {"$set": {"x": 1}})
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.local.drop_collection("oplog.rs")
    assert failure.value.code == 20
    assert "can't drop live oplog while replicating" in str(failure.value)
    assert oplog(client).find_one() is not None


def test_local_admin_cannot_be_dropped(client):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.drop_database("local")
    assert failure.value.code == 20
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.drop_database("admin")
    assert failure.value.code == 20
    assert "Dropping the 'admin' database is prohibited." in str(failure.value)


def test_local_lists_a_capped_oplog(client):
    infos = {c["name"]: c for c in client.local.list_collections()}
    assert infos["oplog.rs"]["options"]["capped"] is True
    assert "system.replset" in infos
    stats = client.local.command("collStats", "oplog.rs")
    assert stats["capped"] is True
    assert stats["maxSize"] > 0


def test_oplog_stats_count_its_entries_also_after_a_restart(own_server):
    client = pymongo.MongoClient(own_server.uri(), directConnection=True)
    try:
        client.t.c.insert_many([{"_id": i} for i in range(5)])
        client.t.c.delete_one({"_id": 0})
        listed = len(list(client.local["oplog.rs"].find()))
        stats = client.local.command("collStats", "oplog.rs")
        assert stats["count"] == listed
        client.t.c.insert_many([{"_id": i} for i in range(10, 17)])
        assert client.local.command("collStats", "oplog.rs")["count"] == listed + 7
    finally:
        client.close()
    own_server.restart()
    client = pymongo.MongoClient(own_server.uri(), directConnection=True)
    try:
        listed = len(list(client.local["oplog.rs"].find()))
        assert client.local.command("collStats", "oplog.rs")["count"] == listed
    finally:
        client.close()


def test_server_status_shows_the_oplog_window_when_asked(client, db):
    db.c.insert_one({})
    assert "oplog" not in client.admin.command("serverStatus")
    section = client.admin.command("serverStatus", oplog=1)["oplog"]
    newest = client.local["oplog.rs"].find().sort("$natural", -1).limit(1).next()["ts"]
    oldest = client.local["oplog.rs"].find().sort("$natural", 1).limit(1).next()["ts"]
    assert section["earliestOptime"] == oldest
    assert section["latestOptime"] >= newest


def test_count_is_refused_rather_than_zero(client):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.local.command("count", "oplog.rs")
    assert failure.value.code == 115


def test_list_databases_includes_admin_config_local(client, db):
    db.c.insert_one({})
    names = client.list_database_names()
    assert {"admin", "config", "local", db.name} <= set(names)
    assert names == sorted(names)
    reply = client.admin.command("listDatabases", nameOnly=True, filter={"name": "local"})
    assert reply["databases"] == [{"name": "local"}]
    full = client.admin.command("listDatabases")
    local = next(d for d in full["databases"] if d["name"] == "local")
    assert local["sizeOnDisk"] > 0 and local["empty"] is False


def test_create_refuses_unknown_options(db):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        db.command("create", "c", notAnOption=1)
    assert failure.value.code == 40415
    assert "BSON field 'create.notAnOption' is an unknown field." in str(failure.value)


def test_await_get_more_without_new_entries_answers_empty_and_stays_open(client, db):
    start = newest_ts(client)
    reply = client.local.command("find", "oplog.rs",
                                 filter={"ts": {"$gt": start}, "ns": f"{db.name}.none"},
                                 tailable=True, awaitData=True)
    cursor_id = reply["cursor"]["id"]
    assert cursor_id != 0 and reply["cursor"]["firstBatch"] == []
    more = client.local.command("getMore", bson.int64.Int64(cursor_id), collection="oplog.rs",
                                maxTimeMS=50)
    assert more["cursor"]["nextBatch"] == []
    assert more["cursor"]["id"] == cursor_id
    db.none.insert_one({"_id": 1})
    more = client.local.command("getMore", bson.int64.Int64(cursor_id), collection="oplog.rs")
    assert [e["o"] for e in more["cursor"]["nextBatch"]] == [{"_id": 1}]
    killed = client.local.command("killCursors", "oplog.rs",
                                  cursors=[bson.int64.Int64(cursor_id)])
    assert killed["cursorsKilled"] == [cursor_id]


def test_explain_is_refused_rather_than_empty(client):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.local.command("explain", {"find": "oplog.rs", "filter": {}})
    assert failure.value.code == 115
