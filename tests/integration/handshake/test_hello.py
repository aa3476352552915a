"""The handshake: what hello / isMaster report, and how each client shape is answered
(MongoDB's Handshake and Server Discovery and Monitoring specifications)."""

import datetime

import bson
import pymongo
import pymongo.errors
import pytest
from bson.int64 import Int64
from bson.objectid import ObjectId

from quarry_server import CLIENT_OPTIONS
from wire_client import OP_MSG, OP_REPLY, RawConnection, op_query, top_level_keys


def is_int32(value):
    # pymongo decodes BSON Int32 as int and Int64 as bson.int64.Int64.
    return type(value) is int


def test_ismaster_reports_primary_of_single_member_replica_set(client, server):
    reply = client.admin.command("ismaster")
    address = f"127.0.0.1:{server.port}"
    assert reply["ismaster"] is True
    assert reply["secondary"] is False
    assert reply["setName"] == "rs0"
    assert reply["hosts"] == [address]
    assert reply["primary"] == address
    assert reply["me"] == address
    assert isinstance(reply["electionId"], ObjectId)
    assert reply["ok"] == 1.0


def test_hello_limits_and_wire_versions_are_int32(client):
    reply = client.admin.command("hello")
    assert reply["isWritablePrimary"] is True
    expected = {"maxBsonObjectSize": 16777216, "maxMessageSizeBytes": 48000000,
                "maxWriteBatchSize": 100000, "minWireVersion": 0, "maxWireVersion": 21}
    for field, value in expected.items():
        assert reply.get(field) == value, f"{field}: {reply.get(field)!r}"
        assert is_int32(reply[field]), f"{field} must be BSON Int32, got {type(reply[field])}"
    assert reply["logicalSessionTimeoutMinutes"] == 30
    assert isinstance(reply["localTime"], datetime.datetime)
    assert isinstance(reply["connectionId"], int)
    assert reply["readOnly"] is False


def test_hello_leaves_out_topology_version_until_awaitable_hello_exists(client):
    # docs/DESIGN.md "Topology": advertising topologyVersion turns on streaming monitors.
    assert "topologyVersion" not in client.admin.command("hello")


def test_legacy_ismaster_over_op_query_is_answered_with_op_reply(server):
    with RawConnection(server.host, server.port) as conn:
        conn.send(op_query({"isMaster": 1, "helloOk": True, "client": {
            "driver": {"name": "quarry-test", "version": "0"}, "os": {"type": "Linux"}}},
            request_id=4242))
        reply = conn.recv()
    assert reply.op_code == OP_REPLY
    assert reply.response_to == 4242
    assert reply.doc["ismaster"] is True
    assert reply.doc["helloOk"] is True
    assert reply.doc["ok"] == 1.0
    keys = top_level_keys(reply.raw)
    assert len(keys) == len(set(keys)), f"duplicate keys in the handshake reply: {keys}"


def test_hello_over_op_msg_replies_with_one_body_section_and_no_flags(server):
    with RawConnection(server.host, server.port) as conn:
        reply = conn.command({"hello": 1, "$db": "admin"}, request_id=77)
    assert reply.op_code == OP_MSG
    assert reply.response_to == 77
    assert reply.flags == 0
    assert reply.sections == 1
    assert reply.doc["isWritablePrimary"] is True


@pytest.mark.parametrize("offered, expected", [
    (["zstd", "snappy", "zlib"], ["zstd", "snappy", "zlib"]),
    (["zlib", "zstd"], ["zlib", "zstd"]),
    (["snappy"], ["snappy"]),
])
def test_compression_negotiation_keeps_the_clients_order(server, offered, expected):
    with RawConnection(server.host, server.port) as conn:
        conn.send(op_query({"ismaster": 1, "compression": offered}))
        reply = conn.recv()
    assert reply.doc.get("compression") == expected


@pytest.mark.parametrize("offered", [[], ["lzma"], ["none"]])
def test_compression_field_is_left_out_when_nothing_matches(server, offered):
    with RawConnection(server.host, server.port) as conn:
        conn.send(op_query({"ismaster": 1, "compression": offered}))
        reply = conn.recv()
    assert reply.doc["ok"] == 1.0
    assert "compression" not in reply.doc, reply.doc


def test_op_query_refuses_non_handshake_commands_with_352(server):
    with RawConnection(server.host, server.port) as conn:
        conn.send(op_query({"find": "c", "filter": {}}, collection="test.$cmd"))
        reply = conn.recv()
    assert reply.op_code == OP_REPLY
    assert reply.doc["ok"] == 0
    assert reply.doc["code"] == 352
    assert reply.doc["codeName"] == "UnsupportedOpQueryCommand"


def test_replica_set_uri_finds_the_primary_and_writes(server):
    with pymongo.MongoClient(server.uri(replicaSet="rs0"), **CLIENT_OPTIONS) as c:
        coll = c.t_replica_set_uri.c
        coll.drop()
        coll.insert_one({"_id": 1, "x": "via replicaSet=rs0"})
        assert coll.find_one({"_id": 1})["x"] == "via replicaSet=rs0"
        assert c.primary == ("127.0.0.1", server.port)
        c.drop_database("t_replica_set_uri")


def test_wrong_replica_set_name_finds_no_server(server):
    options = dict(CLIENT_OPTIONS, serverSelectionTimeoutMS=1500)
    with pymongo.MongoClient(server.uri(replicaSet="not_rs0"), **options) as c:
        with pytest.raises(pymongo.errors.ServerSelectionTimeoutError):
            c.admin.command("ping")


def test_unknown_command_fails_with_59_command_not_found(client):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        client.admin.command("noSuchCommandInQuarry")
    assert info.value.code == 59
    assert info.value.details["codeName"] == "CommandNotFound"
    assert "noSuchCommandInQuarry" in info.value.details["errmsg"]


def test_atlas_version_is_not_a_command_so_mongosh_does_not_think_it_is_atlas(client):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        client.admin.command("atlasVersion")
    assert info.value.code == 59


def test_ping_and_build_info(client):
    assert client.admin.command("ping")["ok"] == 1.0
    info = client.server_info()  # sends the lower-case "buildinfo"
    assert info["version"].startswith("7.0"), info["version"]
    assert info["versionArray"][:2] == [7, 0]
    assert "ferretdb" not in {k.lower() for k in info}
    assert client.admin.command("buildInfo")["version"] == info["version"]


def test_end_sessions_is_accepted(client):
    session_id = {"id": bson.Binary(b"\x01" * 16, 4)}
    assert client.admin.command("endSessions", [session_id])["ok"] == 1.0


def test_every_command_accepts_the_generic_arguments_drivers_send(client, db):
    # lsid, $readPreference, $clusterTime-free: pymongo adds lsid and $readPreference itself;
    # comment and maxTimeMS must be tolerated on any command.
    db.c.insert_one({"_id": 1})
    reply = db.command("find", "c", filter={}, comment="generic args", maxTimeMS=10000)
    assert reply["cursor"]["firstBatch"] == [{"_id": 1}]
    assert isinstance(reply["cursor"]["id"], Int64), "cursor.id must be BSON Int64"
