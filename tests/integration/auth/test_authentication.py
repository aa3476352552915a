"""SCRAM-SHA-256 and SCRAM-SHA-1 through pymongo against quarryd --auth: both mechanisms,
wrong passwords, unknown users, the localhost exception, logout, and what the server counts and
logs about it."""

import base64
import hashlib
import hmac
import os
import uuid

import bson
import pymongo
import pymongo.errors
import pytest

from auth_helpers import ADMIN_PASSWORD, assert_unauthorized, connect
from wire_client import RawConnection, op_query


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-1", None])
def test_each_mechanism_signs_in_with_the_right_password(auth_server, admin, mechanism):
    name = "both_" + (mechanism or "default").replace("-", "_")
    admin.shop.command("createUser", name, pwd="p@ss w0rd", roles=["readWrite"])
    with connect(auth_server, name, "p@ss w0rd", source="shop", mechanism=mechanism) as c:
        c.shop.items.insert_one({"_id": name})
        assert c.shop.items.find_one({"_id": name}) == {"_id": name}


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-1"])
def test_a_wrong_password_or_an_unknown_user_fails_with_authentication_failed(
        auth_server, admin, mechanism):
    admin.admin.command("createUser", "wrongpw_" + mechanism[-1], pwd="right", roles=[])
    for user, password in [("wrongpw_" + mechanism[-1], "wrong"), ("nobody", "right")]:
        with connect(auth_server, user, password, mechanism=mechanism) as c:
            with pytest.raises(pymongo.errors.OperationFailure) as info:
                c.admin.command("connectionStatus")
            assert info.value.code == 18
            assert info.value.details["errmsg"] == "Authentication failed."


def test_a_user_without_sha256_credentials_cannot_use_sha256(auth_server, admin):
    admin.admin.command("createUser", "sha1only", pwd="pw", roles=["read"],
                        mechanisms=["SCRAM-SHA-1"])
    info = admin.admin.command("usersInfo", "sha1only")["users"][0]
    assert info["mechanisms"] == ["SCRAM-SHA-1"]
    with connect(auth_server, "sha1only", "pw", mechanism="SCRAM-SHA-1") as c:
        c.admin.command("connectionStatus")
        assert c.admin.command("connectionStatus")["authInfo"]["authenticatedUsers"] == [
            {"user": "sha1only", "db": "admin"}]
    with connect(auth_server, "sha1only", "pw", mechanism="SCRAM-SHA-256") as c:
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            c.admin.command("connectionStatus")
        assert info.value.code == 18


def test_non_ascii_passwords_are_saslprepped_for_sha256(auth_server, admin):
    # U+2168 (ROMAN NUMERAL NINE) prepares to "IX", as pymongo's saslprep does on its side.
    admin.admin.command("createUser", "unicode", pwd="\u2168", roles=["read"],
                        mechanisms=["SCRAM-SHA-256"])
    with connect(auth_server, "unicode", "IX", mechanism="SCRAM-SHA-256") as c:
        c.admin.command("connectionStatus")
        assert c.admin.command("connectionStatus")["authInfo"]["authenticatedUsers"]


def test_unauthenticated_clients_may_only_run_the_open_commands(auth_server):
    with connect(auth_server) as anonymous:
        for command in ("ping", "buildInfo", "hello", "isMaster", "connectionStatus"):
            assert anonymous.admin.command(command)["ok"] == 1
        assert_unauthorized(lambda: anonymous.test.c.find_one(),
                            "command find requires authentication")
        assert_unauthorized(lambda: anonymous.admin.command("serverStatus"),
                            "command serverStatus requires authentication")
        assert_unauthorized(lambda: anonymous.list_database_names(), "requires authentication")


def test_the_localhost_exception_creates_only_the_first_user_and_only_on_admin(make_server):
    server = make_server("localhost-exception", extra_args=["--auth"])
    with connect(server) as anonymous:
        assert_unauthorized(lambda: anonymous.test.command("createUser", "u", pwd="p", roles=[]),
                            "requires authentication")
        assert_unauthorized(lambda: anonymous.test.c.insert_one({}), "requires authentication")
        anonymous.admin.command("createUser", "first", pwd="p", roles=["root"])
        assert_unauthorized(
            lambda: anonymous.admin.command("createUser", "second", pwd="p", roles=["root"]),
            "requires authentication")
    with connect(server, "first", "p") as first:
        first.admin.command("createUser", "second", pwd="p", roles=["read"])
        names = [u["user"] for u in first.admin.command("usersInfo")["users"]]
        assert names == ["first", "second"]


def test_users_are_stored_as_mongod_stores_them_without_the_password(auth_server, admin):
    admin.shop.command("createUser", "stored", pwd="sekrit", roles=["read"],
                       customData={"team": "a"})
    doc = admin.admin["system.users"].find_one({"_id": "shop.stored"})
    assert doc["user"] == "stored" and doc["db"] == "shop"
    assert isinstance(doc["userId"], uuid.UUID)  # BinData subtype 4, as pymongo decodes it
    assert doc["roles"] == [{"role": "read", "db": "shop"}]
    assert doc["customData"] == {"team": "a"}
    assert doc["credentials"]["SCRAM-SHA-1"]["iterationCount"] == 10000
    assert doc["credentials"]["SCRAM-SHA-256"]["iterationCount"] == 15000
    for mechanism in ("SCRAM-SHA-1", "SCRAM-SHA-256"):
        assert set(doc["credentials"][mechanism]) == {"iterationCount", "salt", "storedKey",
                                                      "serverKey"}
    assert "sekrit" not in repr(doc)


def test_logout_ends_the_connections_authentication(auth_server):
    with connect(auth_server, "admin", ADMIN_PASSWORD, maxPoolSize=1) as c:
        c.test.c.find_one()
        c.admin.command("logout")
        status = c.admin.command("connectionStatus")["authInfo"]
        assert status["authenticatedUsers"] == []
        assert_unauthorized(lambda: c.test.c.find_one(), "requires authentication")


def test_connection_status_shows_the_user_its_roles_and_privileges(auth_server, make_user):
    name, c = make_user([{"role": "read", "db": "shop"}, "clusterMonitor"])
    info = c.admin.command("connectionStatus", showPrivileges=True)["authInfo"]
    assert info["authenticatedUsers"] == [{"user": name, "db": "admin"}]
    roles = sorted((r["role"], r["db"]) for r in info["authenticatedUserRoles"])
    assert roles == [("clusterMonitor", "admin"), ("read", "shop")]
    by_resource = {repr(sorted(p["resource"].items())): p["actions"]
                   for p in info["authenticatedUserPrivileges"]}
    assert "find" in by_resource[repr([("collection", ""), ("db", "shop")])]
    assert "serverStatus" in by_resource[repr([("cluster", True)])]


def test_server_status_counts_authentications_and_the_log_records_failures(auth_server, admin):
    def counts():
        mechs = admin.admin.command("serverStatus")["security"]["authentication"]["mechanisms"]
        return mechs["SCRAM-SHA-256"]["authenticate"]
    before = counts()
    with connect(auth_server, "admin", "not-the-password", mechanism="SCRAM-SHA-256") as c:
        with pytest.raises(pymongo.errors.OperationFailure):
            c.admin.command("connectionStatus")
    with connect(auth_server, "admin", ADMIN_PASSWORD, mechanism="SCRAM-SHA-256") as c:
        c.admin.command("connectionStatus")
    after = counts()
    assert after["received"] >= before["received"] + 2
    assert after["successful"] >= before["successful"] + 1
    assert after["received"] - before["received"] > after["successful"] - before["successful"]
    with open(auth_server.log_path, encoding="utf-8") as log:
        failures = [line for line in log if "Authentication failed" in line]
    assert any('"principalName":"admin"' in line.replace(" ", "") for line in failures), failures


def test_hello_lists_the_users_mechanisms(auth_server, admin):
    admin.admin.command("createUser", "mechs", pwd="pw", roles=[], mechanisms=["SCRAM-SHA-256"])
    with connect(auth_server) as anonymous:
        reply = anonymous.admin.command("hello", saslSupportedMechs="admin.mechs")
        assert reply["saslSupportedMechs"] == ["SCRAM-SHA-256"]
        assert "saslSupportedMechs" not in anonymous.admin.command(
            "hello", saslSupportedMechs="admin.nobody")


def _scram_proof(password, server_first, client_first_bare):
    """client-final-message of SCRAM-SHA-256 (RFC 5802/7677) and the server signature expected
    back: what a driver computes."""
    fields = dict(part.split("=", 1) for part in server_first.split(","))
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), base64.b64decode(fields["s"]),
                                 int(fields["i"]))
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    stored_key = hashlib.sha256(client_key).digest()
    without_proof = f"c=biws,r={fields['r']}"
    auth_message = f"{client_first_bare},{server_first},{without_proof}".encode()
    signature = hmac.new(stored_key, auth_message, "sha256").digest()
    proof = bytes(a ^ b for a, b in zip(client_key, signature))
    server_key = hmac.new(salted, b"Server Key", "sha256").digest()
    server_signature = hmac.new(server_key, auth_message, "sha256").digest()
    expected = "v=" + base64.b64encode(server_signature).decode()
    return f"{without_proof},p={base64.b64encode(proof).decode()}", expected


def test_a_whole_scram_conversation_works_over_op_query(auth_server):
    # The legacy handshake's form: saslStart and saslContinue on admin.$cmd in OP_QUERY, answered
    # in OP_REPLY, never compressed; then the connection may read.
    client_first_bare = f"n=admin,r={os.urandom(18).hex()}"
    with RawConnection(auth_server.host, auth_server.port) as conn:
        conn.send(op_query({"saslStart": 1, "mechanism": "SCRAM-SHA-256",
                            "payload": bson.binary.Binary(b"n,," + client_first_bare.encode())}))
        reply = conn.recv()
        assert reply.doc["ok"] == 1, reply.doc
        assert reply.doc["done"] is False and reply.doc["conversationId"] == 1
        assert reply.compressor_id is None
        server_first = bytes(reply.doc["payload"]).decode()
        assert server_first.endswith(",i=15000")
        client_final, expected = _scram_proof(ADMIN_PASSWORD, server_first, client_first_bare)
        conn.send(op_query({"saslContinue": 1, "conversationId": 1,
                            "payload": bson.binary.Binary(client_final.encode())}))
        reply = conn.recv()
        assert reply.doc["ok"] == 1, reply.doc
        assert bytes(reply.doc["payload"]).decode() == expected  # the server knows the key
        conn.send(op_query({"saslContinue": 1, "conversationId": 1,
                            "payload": bson.binary.Binary(b"")}))
        assert conn.recv().doc["done"] is True
        status = conn.command({"connectionStatus": 1, "$db": "admin"}).doc
        assert status["authInfo"]["authenticatedUsers"] == [{"user": "admin", "db": "admin"}]
        assert conn.command({"find": "c", "$db": "test"}).doc["ok"] == 1

def test_the_config_file_turns_authorization_on(make_server, tmp_path):
    from quarry_server import free_port
    port = free_port()
    config = tmp_path / "quarryd.yaml"
    config.write_text(f"net:\n  port: {port}\n  bindIp: 127.0.0.1\n"
                      f"storage:\n  dbPath: {tmp_path / 'db'}\n"
                      "security:\n  authorization: enabled\n")
    server = make_server("config-auth", port=port, args=["--config", str(config)])
    with connect(server) as anonymous:
        assert_unauthorized(lambda: anonymous.test.c.find_one(), "requires authentication")
        anonymous.admin.command("createUser", "cfg", pwd="p", roles=["root"])
    with connect(server, "cfg", "p") as c:
        opts = c.admin.command("getCmdLineOpts")["parsed"]
    assert opts["security"] == {"authorization": "enabled"}


def _sign_in(conn, user, password, db="admin"):
    """SCRAM-SHA-256 as `user` of `db` over OP_MSG on `conn`; returns the last reply."""
    bare = f"n={user},r={os.urandom(18).hex()}"
    reply = conn.command({"saslStart": 1, "mechanism": "SCRAM-SHA-256",
                          "payload": bson.binary.Binary(b"n,," + bare.encode()), "$db": db}).doc
    if reply["ok"] != 1:
        return reply
    client_final, _ = _scram_proof(password, bytes(reply["payload"]).decode(), bare)
    reply = conn.command({"saslContinue": 1, "conversationId": 1,
                          "payload": bson.binary.Binary(client_final.encode()), "$db": db}).doc
    if reply["ok"] != 1 or reply["done"]:
        return reply
    return conn.command({"saslContinue": 1, "conversationId": 1,
                         "payload": bson.binary.Binary(b""), "$db": db}).doc


def _signed_in_as(conn):
    status = conn.command({"connectionStatus": 1, "$db": "admin"}).doc
    return status["authInfo"]["authenticatedUsers"]


def test_a_connection_is_signed_in_as_one_user_until_logout(auth_server, admin):
    admin.admin.command("createUser", "second", pwd="second-pw", roles=[])
    admin.shop.command("createUser", "elsewhere", pwd="elsewhere-pw", roles=[])
    with RawConnection(auth_server.host, auth_server.port) as conn:
        assert _sign_in(conn, "admin", ADMIN_PASSWORD)["done"] is True
        assert _sign_in(conn, "admin", ADMIN_PASSWORD)["done"] is True, "the same user again"
        # Another user of the same database, as mongod 7.0 words it.
        refused = _sign_in(conn, "second", "second-pw")
        assert (refused["ok"], refused["code"]) == (0, 5626701), refused
        assert refused["errmsg"] == ("Each client connection may only be authenticated once. "
                                     "Previously authenticated as: admin@admin")
        # A user of another database.
        refused = _sign_in(conn, "elsewhere", "elsewhere-pw", db="shop")
        assert (refused["ok"], refused["code"]) == (0, 5626702), refused
        assert refused["errmsg"] == ("Client has attempted to authenticate on multiple "
                                     "databases.Already authenticated as: admin@admin")
        assert _signed_in_as(conn) == [{"user": "admin", "db": "admin"}]
        # After logout, another user may sign in.
        assert conn.command({"logout": 1, "$db": "admin"}).doc["ok"] == 1
        assert _sign_in(conn, "second", "second-pw")["done"] is True
        assert _signed_in_as(conn) == [{"user": "second", "db": "admin"}]
