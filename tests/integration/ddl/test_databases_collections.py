"""Databases, collections and indexes: list, create, drop, rename, createIndexes."""

import pymongo
import pymongo.errors
import pytest

from wire_client import RawConnection


def test_inserting_creates_database_and_collection_implicitly(client, db):
    db.first.insert_one({"_id": 1})
    assert db.name in client.list_database_names()
    assert "first" in db.list_collection_names()


def test_list_databases_reports_sizes_and_empty_flags(client, db):
    db.c.insert_one({"x": 1})
    reply = client.admin.command("listDatabases")
    entry = next(d for d in reply["databases"] if d["name"] == db.name)
    assert entry["empty"] is False
    assert isinstance(entry["sizeOnDisk"], (int, float))
    assert "totalSize" in reply


def test_list_collection_names_and_list_collections(db):
    for name in ("alpha", "beta", "gamma"):
        db[name].insert_one({"_id": 1})
    assert sorted(db.list_collection_names()) == ["alpha", "beta", "gamma"]
    infos = {c["name"]: c for c in db.list_collections()}
    assert set(infos) == {"alpha", "beta", "gamma"}
    assert infos["alpha"]["type"] == "collection"
    assert "uuid" in infos["alpha"].get("info", {})
    assert [c["name"] for c in db.list_collections(filter={"name": "beta"})] == ["beta"]


def test_create_collection_explicitly_and_twice(db):
    db.create_collection("made")
    assert "made" in db.list_collection_names()
    with pytest.raises(pymongo.errors.CollectionInvalid):  # pymongo checks the names itself
        db.create_collection("made")
    # mongod 7.0 accepts a create that repeats the existing options; earlier versions said 48.
    try:
        db.command("create", "made")
    except pymongo.errors.OperationFailure as e:
        assert e.code == 48, e.details
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("create", "made", validator={"x": {"$exists": True}})
    assert info.value.code == 48, info.value.details


def test_collection_validator_is_enforced_or_refused(db):
    # A validator that is accepted but not applied would let invalid documents in silently.
    try:
        db.command("create", "validated", validator={"x": {"$type": "int"}})
    except pymongo.errors.OperationFailure as e:
        assert e.code in (115, 2), e.details  # refused clearly: fine
        return
    with pytest.raises(pymongo.errors.WriteError) as info:
        db.validated.insert_one({"x": "not an int"})
    assert info.value.code == 121  # DocumentValidationFailure
    db.validated.insert_one({"x": 5})


def test_drop_collection_removes_it_and_its_documents(db):
    db.gone.insert_many([{"_id": i} for i in range(10)])
    db.drop_collection("gone")
    assert "gone" not in db.list_collection_names()
    assert db.gone.count_documents({}) == 0
    db.gone.insert_one({"_id": 1})
    assert db.gone.count_documents({}) == 1, "a re-created collection starts empty"


def test_drop_of_a_missing_collection_is_quietly_ok(db):
    db.drop_collection("never_there")  # pymongo also ignores NamespaceNotFound (26)
    # mongod 7.0 answers ok: 1; earlier versions said 26 NamespaceNotFound.
    try:
        assert db.command("drop", "never_there")["ok"] == 1.0
    except pymongo.errors.OperationFailure as e:
        assert e.code == 26, e.details


def test_drop_database_removes_all_its_collections(client):
    name = "t_drop_database_whole"
    client[name].a.insert_one({"_id": 1})
    client[name].b.insert_one({"_id": 1})
    client.drop_database(name)
    assert name not in client.list_database_names()
    assert client[name].a.count_documents({}) == 0


def test_rename_collection_keeps_documents(db):
    db.old.insert_many([{"_id": i} for i in range(5)])
    db.old.rename("new")
    names = db.list_collection_names()
    assert "new" in names and "old" not in names
    assert sorted(d["_id"] for d in db.new.find()) == [0, 1, 2, 3, 4]


def test_rename_onto_an_existing_collection_needs_drop_target(db):
    db.src.insert_one({"_id": "src"})
    db.dst.insert_one({"_id": "dst"})
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.src.rename("dst")
    assert info.value.code == 48
    db.src.rename("dst", dropTarget=True)
    assert list(db.dst.find()) == [{"_id": "src"}]


def test_rename_of_a_missing_collection_fails_with_26(db):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.absent.rename("whatever")
    assert info.value.code == 26


def test_list_indexes_shows_the_id_index(db):
    db.c.insert_one({"_id": 1})
    indexes = list(db.c.list_indexes())
    assert [i["name"] for i in indexes] == ["_id_"]
    assert indexes[0]["key"] == {"_id": 1}
    assert db.c.index_information()["_id_"]["key"] == [("_id", 1)]


def test_list_indexes_of_a_missing_collection(db):
    assert list(db.nothing.list_indexes()) == []  # pymongo maps code 26 to "no indexes"
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("listIndexes", "nothing")
    assert info.value.code == 26


def test_create_index_on_id_succeeds(db):
    # pymongo names it "_id_1"; mongod ignores the name of an _id index spec and answers ok
    # (a name conflict error here is FerretDB issue #3921's bug).
    db.c.insert_one({"_id": 1})
    db.c.create_index([("_id", 1)])
    db.command("createIndexes", "c", indexes=[{"key": {"_id": 1}, "name": "_id_"}])
    assert [i["name"] for i in db.c.list_indexes()] == ["_id_"]


def test_secondary_index_is_created_or_refused_with_a_clear_error(db):
    # Quarry may not build secondary indexes yet; then it must say so with an ok: 0 reply that
    # names the problem (not crash, not pretend).
    db.c.insert_many([{"_id": i, "x": i % 5} for i in range(20)])
    try:
        name = db.c.create_index([("x", 1)])
    except pymongo.errors.OperationFailure as e:
        assert e.code and e.details.get("errmsg"), e.details
        return
    assert name == "x_1"
    assert "x_1" in [i["name"] for i in db.c.list_indexes()]
    assert sorted(d["_id"] for d in db.c.find({"x": 3})) == [3, 8, 13, 18]


def test_drop_index_of_id_is_refused(db):
    db.c.insert_one({"_id": 1})
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.c.drop_index("_id_")
    assert info.value.code == 72


def test_invalid_collection_names_are_refused(db):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("create", "bad$name")
    assert info.value.code == 73
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("insert", "", documents=[{"x": 1}])
    assert info.value.code == 73


@pytest.mark.parametrize("name", ["bad.db", "bad db", "bad$db", "x" * 64])
def test_invalid_database_name_is_refused(server, name):
    # pymongo checks names itself, so send the command raw.
    with RawConnection(server.host, server.port) as conn:
        reply = conn.command({"insert": "c", "documents": [{"x": 1}], "$db": name})
    assert reply.doc["ok"] == 0 and reply.doc["code"] == 73, reply.doc


def test_db_stats_and_coll_stats_answer(db):
    db.c.insert_many([{"_id": i} for i in range(10)])
    stats = db.command("dbStats")
    assert stats["db"] == db.name and stats["collections"] >= 1 and stats["objects"] == 10
    coll = db.command("collStats", "c")
    assert coll["count"] == 10


def test_server_status_has_the_fields_tools_read(client):
    status = client.admin.command("serverStatus")
    for field in ("host", "version", "process", "pid", "uptime", "localTime", "connections",
                  "network", "opcounters"):
        assert field in status, field
    for field in ("bytesIn", "bytesOut", "physicalBytesIn", "physicalBytesOut", "numRequests"):
        assert field in status["network"], field
    assert status["connections"]["current"] >= 1
