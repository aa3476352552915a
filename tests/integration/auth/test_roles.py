"""Each built-in role allowed and denied on representative commands, user-defined roles with
privileges and inherited roles, and the user and role management commands."""

import pymongo
import pymongo.errors
import pytest

from auth_helpers import assert_unauthorized, connect


def test_read_reads_but_does_not_write(make_user, admin):
    admin.shop.items.insert_one({"_id": 1})
    _, c = make_user([{"role": "read", "db": "shop"}])
    assert c.shop.items.find_one() == {"_id": 1}
    assert c.shop.items.count_documents({}) == 1
    assert "items" in c.shop.list_collection_names()
    assert c.list_database_names() == ["shop"]  # only the databases it may use, as mongod
    assert_unauthorized(lambda: c.shop.items.insert_one({"_id": 2}))
    assert_unauthorized(lambda: c.other.items.find_one())
    assert_unauthorized(lambda: c.admin.command("serverStatus"))


def test_data_size_needs_find_on_the_namespace_it_names(make_user, admin):
    admin.sized.items.insert_one({"_id": 1})
    admin.secret.items.insert_one({"_id": 1})
    _, c = make_user([{"role": "read", "db": "sized"}])
    assert c.sized.command({"dataSize": "sized.items"})["numObjects"] == 1
    # The namespace is fully qualified: sending it to a database the user may read is no way
    # into another one.
    assert_unauthorized(lambda: c.sized.command({"dataSize": "secret.items"}))
    assert_unauthorized(lambda: c.secret.command({"dataSize": "secret.items"}))


def test_read_write_writes_and_indexes_but_does_not_drop_the_database(make_user):
    _, c = make_user(["readWrite"], db="rw")
    c.rw.items.insert_one({"_id": 1})
    c.rw.items.update_one({"_id": 1}, {"$set": {"a": 1}}, upsert=True)
    c.rw.items.create_index("a")
    c.rw.items.delete_one({"_id": 1})
    assert_unauthorized(lambda: c.drop_database("rw"))
    assert_unauthorized(lambda: c.rw.command("createUser", "x", pwd="p", roles=[]))


def test_db_admin_manages_but_does_not_read(make_user, admin):
    admin.dba.items.insert_one({"_id": 1})
    _, c = make_user(["dbAdmin"], db="dba")
    c.dba.items.create_index("a")
    c.dba.command("collStats", "items")
    c.dba.command("collMod", "items", validator={})
    assert_unauthorized(lambda: c.dba.items.find_one())
    assert_unauthorized(lambda: c.dba.items.insert_one({}))


def test_user_admin_manages_users_of_its_database_only(make_user):
    _, c = make_user(["userAdmin"], db="ua")
    c.ua.command("createUser", "made_by_user_admin", pwd="p", roles=["read"])
    assert [u["user"] for u in c.ua.command("usersInfo", "made_by_user_admin")["users"]] == [
        "made_by_user_admin"]
    assert_unauthorized(lambda: c.other.command("createUser", "x", pwd="p", roles=[]))
    assert_unauthorized(lambda: c.ua.items.find_one())


def test_db_owner_does_everything_on_its_database(make_user):
    _, c = make_user(["dbOwner"], db="owned")
    c.owned.items.insert_one({"_id": 1})
    c.owned.items.create_index("a")
    c.owned.command("createUser", "made_by_owner", pwd="p", roles=["read"])
    c.drop_database("owned")
    assert_unauthorized(lambda: c.elsewhere.items.find_one())


def test_any_database_roles_cover_every_database(make_user, admin):
    admin.any1.items.insert_one({"_id": 1})
    _, reader = make_user(["readAnyDatabase"])
    assert reader.any1.items.find_one() == {"_id": 1}
    assert "any1" in reader.list_database_names()
    assert_unauthorized(lambda: reader.any1.items.insert_one({}))
    assert_unauthorized(lambda: reader.admin["system.users"].find_one())

    _, writer = make_user(["readWriteAnyDatabase"])
    writer.any2.items.insert_one({"_id": 1})
    assert_unauthorized(lambda: writer.any2.command("createUser", "x", pwd="p", roles=[]))

    _, user_admin = make_user(["userAdminAnyDatabase"])
    user_admin.any3.command("createUser", "made_anywhere", pwd="p", roles=["read"])
    assert_unauthorized(lambda: user_admin.any1.items.find_one())

    _, db_admin = make_user(["dbAdminAnyDatabase"])
    db_admin.any1.items.create_index("b")
    assert_unauthorized(lambda: db_admin.any1.items.find_one())


def test_cluster_roles_see_and_manage_the_server_but_not_the_data(make_user, admin):
    admin.cl.items.insert_one({"_id": 1})
    _, monitor = make_user(["clusterMonitor"])
    assert monitor.admin.command("serverStatus")["ok"] == 1
    monitor.admin.command("currentOp")
    monitor.admin.command("getCmdLineOpts")
    assert_unauthorized(lambda: monitor.admin.command("killOp", op=12345))
    assert_unauthorized(lambda: monitor.cl.items.find_one())

    # Everyone's operations need inprog; one's own do not (test_own_operations_and_sessions.py).
    _, reader = make_user(["readAnyDatabase"])
    assert_unauthorized(lambda: list(reader.admin.aggregate([{"$currentOp": {"allUsers": True}}])))
    assert list(monitor.admin.aggregate([{"$currentOp": {"allUsers": True}}])) != []

    _, cluster_admin = make_user(["clusterAdmin"])
    cluster_admin.admin.command("killOp", op=12345)
    cluster_admin.admin.command("serverStatus")
    assert_unauthorized(lambda: cluster_admin.cl.items.find_one())


def test_backup_reads_everything_and_restore_writes(make_user, admin):
    admin.br.items.insert_one({"_id": 1})
    _, backup = make_user(["backup"])
    assert backup.br.items.find_one() == {"_id": 1}
    assert backup.admin["system.users"].find_one() is not None
    assert_unauthorized(lambda: backup.br.items.insert_one({"_id": 2}))

    _, restore = make_user(["restore"])
    restore.br.items.insert_one({"_id": 3})
    assert_unauthorized(lambda: restore.admin.command("serverStatus"))


def test_root_may_do_anything(admin):
    admin.rootdb.items.insert_one({"_id": 1})
    admin.admin.command("serverStatus")
    admin.rootdb.items.create_index("a")
    admin.admin.command("currentOp")
    admin.drop_database("rootdb")


def test_aggregation_needs_privileges_on_every_collection_it_reads_and_writes(make_user, admin):
    admin.agg.src.insert_one({"_id": 1, "k": 1})
    admin.agg.other.insert_one({"_id": 1, "k": 1})
    admin.admin.command("createRole", "readSrc", privileges=[
        {"resource": {"db": "agg", "collection": "src"}, "actions": ["find"]}], roles=[])
    _, c = make_user(["readSrc"])
    assert list(c.agg.src.aggregate([{"$match": {}}])) == [{"_id": 1, "k": 1}]
    assert_unauthorized(lambda: list(c.agg.src.aggregate(
        [{"$lookup": {"from": "other", "localField": "k", "foreignField": "k", "as": "o"}}])))
    assert_unauthorized(lambda: list(c.agg.src.aggregate([{"$out": "copy"}])))
    assert_unauthorized(lambda: c.agg.other.find_one())
    assert_unauthorized(lambda: c.agg.command("explain", {"find": "other"}))
    c.agg.command("explain", {"find": "src"})


def test_user_management_commands(auth_server, admin):
    db = admin.um
    db.command("createUser", "ann", pwd="one", roles=["read"], customData={"a": 1})
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("createUser", "ann", pwd="one", roles=["read"])
    assert info.value.code == 51003
    assert info.value.details["errmsg"] == 'User "ann@um" already exists'
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("createUser", "bob", pwd="one", roles=["noSuchRole"])
    assert info.value.code == 31

    users = db.command("usersInfo", "ann")["users"]
    assert len(users) == 1
    assert users[0]["_id"] == "um.ann" and users[0]["customData"] == {"a": 1}
    assert "credentials" not in users[0]
    assert sorted(users[0]["mechanisms"]) == ["SCRAM-SHA-1", "SCRAM-SHA-256"]
    assert "credentials" in db.command("usersInfo", "ann", showCredentials=True)["users"][0]
    assert db.command("usersInfo", {"user": "ann", "db": "um"})["users"][0]["user"] == "ann"
    db.command("createUser", "cid", pwd="x", roles=[])
    assert [u["user"] for u in db.command("usersInfo", 1)["users"]] == ["ann", "cid"]
    assert [u["user"] for u in db.command("usersInfo", ["ann", "cid"])["users"]] == [
        "ann", "cid"]
    shown = db.command("usersInfo", "ann", showPrivileges=True)["users"][0]
    assert {"role": "read", "db": "um"} in shown["inheritedRoles"]
    # filter applies to the documents as shown, after the users are selected.
    assert [u["user"] for u in db.command("usersInfo", 1, filter={"customData.a": 1})[
        "users"]] == ["ann"]
    assert [u["user"] for u in db.command("usersInfo", {"forAllDBs": True}, filter={
        "db": "um", "roles.role": "read"})["users"]] == ["ann"]
    assert db.command("usersInfo", ["ann", "cid"], filter={"user": "nobody"})["users"] == []
    assert db.command("usersInfo", 1, filter={"credentials": {"$exists": True}})["users"] == []
    assert len(db.command("usersInfo", 1, showCredentials=True,
                          filter={"credentials": {"$exists": True}})["users"]) == 2
    for bad in ({"filter": {"user": "ann"}, "showPrivileges": True}, {"showPrivileges": True}):
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            db.command("usersInfo", 1, **bad)
        assert info.value.code == 20  # IllegalOperation
        assert "exact-match usersInfo queries" in info.value.details["errmsg"]
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("usersInfo", 1, filter={"user": {"$bad": 1}})
    assert info.value.code == 2

    # A connection signed in as ann sees grants and revocations at its next command.
    with connect(auth_server, "ann", "one", source="um", maxPoolSize=1) as ann:
        assert_unauthorized(lambda: ann.um.items.insert_one({}))
        db.command("grantRolesToUser", "ann", roles=["readWrite"])
        ann.um.items.insert_one({"_id": "granted"})
        db.command("revokeRolesFromUser", "ann", roles=["readWrite"])
        assert_unauthorized(lambda: ann.um.items.insert_one({}))
        db.command("updateUser", "ann", pwd="two")
        db.command("dropUser", "ann")
        assert_unauthorized(lambda: ann.um.items.find_one(), "requires authentication")
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("dropUser", "ann")
    assert info.value.code == 11

    db.command("createUser", "dan", pwd="old", roles=["read"])
    db.command("updateUser", "dan", pwd="new")
    with connect(auth_server, "dan", "old", source="um") as c:
        with pytest.raises(pymongo.errors.OperationFailure):
            c.um.items.find_one()
    with connect(auth_server, "dan", "new", source="um") as c:
        c.um.items.find_one()
    assert db.command("dropAllUsersFromDatabase")["n"] == 2
    assert db.command("usersInfo", 1)["users"] == []


def test_user_defined_roles_grant_privileges_and_inherit_roles(auth_server, admin, make_user):
    db = admin.ro
    db.items.insert_one({"_id": 1})
    db.command("createRole", "itemsReader", privileges=[
        {"resource": {"db": "ro", "collection": "items"}, "actions": ["find"]}], roles=[])
    db.command("createRole", "itemsAndRead", privileges=[], roles=["itemsReader"])
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("createRole", "wide", privileges=[
            {"resource": {"cluster": True}, "actions": ["serverStatus"]}], roles=[])
    assert info.value.code == 2

    info = db.command("rolesInfo", "itemsAndRead", showPrivileges=True)["roles"][0]
    assert info["role"] == "itemsAndRead" and info["isBuiltin"] is False
    assert info["roles"] == [{"role": "itemsReader", "db": "ro"}]
    assert info["inheritedPrivileges"] == [
        {"resource": {"db": "ro", "collection": "items"}, "actions": ["find"]}]
    builtin = db.command("rolesInfo", "read", showPrivileges=True)["roles"][0]
    assert builtin["isBuiltin"] is True
    assert "find" in builtin["privileges"][0]["actions"]

    _, c = make_user([{"role": "itemsAndRead", "db": "ro"}])
    assert c.ro.items.find_one() == {"_id": 1}
    assert_unauthorized(lambda: c.ro.other.find_one())
    db.command("grantPrivilegesToRole", "itemsReader", privileges=[
        {"resource": {"db": "ro", "collection": "other"}, "actions": ["find"]}])
    assert c.ro.other.find_one() is None
    db.command("revokePrivilegesFromRole", "itemsReader", privileges=[
        {"resource": {"db": "ro", "collection": "other"}, "actions": ["find"]}])
    assert_unauthorized(lambda: c.ro.other.find_one())
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("updateRole", "itemsReader", roles=["itemsAndRead"])
    assert info.value.code == 5  # GraphContainsCycle
    db.command("dropRole", "itemsReader")
    assert_unauthorized(lambda: c.ro.items.find_one())
    assert db.command("rolesInfo", "itemsAndRead")["roles"][0]["roles"] == []


def test_direct_writes_to_system_users_change_privileges_at_once(auth_server, admin):
    admin.direct.command("createUser", "eve", pwd="eve-pw", roles=["read"])
    with connect(auth_server, "eve", "eve-pw", source="direct", maxPoolSize=1) as eve:
        assert_unauthorized(lambda: eve.direct.items.insert_one({}))
        admin.admin.system.users.update_one(
            {"_id": "direct.eve"}, {"$set": {"roles": [{"role": "readWrite", "db": "direct"}]}})
        eve.direct.items.insert_one({"_id": "granted by a direct write"})
        admin.admin.system.users.delete_one({"_id": "direct.eve"})
        assert_unauthorized(lambda: eve.direct.items.find_one(), "requires authentication")


def test_a_first_direct_write_creates_the_roles_collection(make_server):
    server = make_server("direct-roles")
    with connect(server) as client:
        client.admin.system.roles.insert_one({
            "_id": "admin.itemsReader", "role": "itemsReader", "db": "admin", "roles": [],
            "privileges": [{"resource": {"db": "shop", "collection": "items"},
                            "actions": ["find"]}]})
        assert [r["role"] for r in client.admin.command("rolesInfo", 1)["roles"]] == \
            ["itemsReader"]
        # Other system names stay the server's own.
        with pytest.raises(pymongo.errors.OperationFailure) as refused:
            client.admin.system.other.insert_one({})
        assert refused.value.code == 73  # InvalidNamespace
    server.stop()
