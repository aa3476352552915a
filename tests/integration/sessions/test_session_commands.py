"""Logical sessions with pymongo: $listLocalSessions shows the sessions clients use,
endSessions (also sent by MongoClient.close()) ends them, refreshSessions renews them."""

import datetime
import hashlib
import time
import uuid

import pymongo
import pymongo.errors
import pytest
from bson.binary import Binary, UUID_SUBTYPE

from quarry_server import CLIENT_OPTIONS


def id_bytes(value):
    return value.bytes if isinstance(value, uuid.UUID) else bytes(value)


def local_sessions(client):
    """{session id bytes: lastUse} of every session $listLocalSessions reports."""
    return {id_bytes(s["_id"]["id"]): s["lastUse"]
            for s in client.admin.aggregate([{"$listLocalSessions": {}}])}


def used_session(server):
    """A client of its own and the id of a session it ran a query in."""
    other = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    with other.start_session() as session:
        other.t_session_commands.c.find_one({}, session=session)
        return other, session.session_id


def test_a_session_a_client_used_is_listed_until_end_sessions(server, client):
    other, lsid = used_session(server)
    try:
        assert id_bytes(lsid["id"]) in local_sessions(client)
        assert client.admin.command("endSessions", [lsid])["ok"] == 1
        assert id_bytes(lsid["id"]) not in local_sessions(client)
    finally:
        other.close()


def test_closing_a_client_ends_its_sessions(server, client):
    other, lsid = used_session(server)
    assert id_bytes(lsid["id"]) in local_sessions(client)
    other.close()  # pymongo sends endSessions for the sessions in its pool
    assert id_bytes(lsid["id"]) not in local_sessions(client)


def test_list_local_sessions_reports_each_sessions_id_uid_and_last_use(server, client):
    other, lsid = used_session(server)
    try:
        entry = next(s for s in client.admin.aggregate([{"$listLocalSessions": {}}])
                     if id_bytes(s["_id"]["id"]) == id_bytes(lsid["id"]))
        assert set(entry["_id"]) == {"id", "uid"}
        # Without users, mongod's uid is the SHA-256 of the empty user name.
        assert bytes(entry["_id"]["uid"]) == hashlib.sha256(b"").digest()
        last_use = entry["lastUse"].replace(tzinfo=datetime.timezone.utc)  # pymongo: naive UTC
        assert abs(last_use.timestamp() - time.time()) < 600
    finally:
        other.close()


def test_refresh_sessions_is_accepted_and_renews_last_use(server, client):
    other, lsid = used_session(server)
    try:
        before = local_sessions(client)[id_bytes(lsid["id"])]
        time.sleep(0.05)  # lastUse has millisecond resolution: let the clock move on
        assert client.admin.command("refreshSessions", [lsid])["ok"] == 1
        after = local_sessions(client)[id_bytes(lsid["id"])]
        assert after > before
    finally:
        other.close()


@pytest.mark.parametrize("command", ["endSessions", "refreshSessions", "killSessions"])
def test_session_commands_accept_unknown_sessions(client, command):
    unknown = {"id": Binary(uuid.uuid4().bytes, UUID_SUBTYPE)}
    assert client.admin.command(command, [unknown])["ok"] == 1


@pytest.mark.parametrize("command", ["endSessions", "refreshSessions", "killSessions",
                                     "killAllSessions"])
def test_session_commands_need_an_array(client, command):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        client.admin.command(command, {"id": Binary(uuid.uuid4().bytes, UUID_SUBTYPE)})
    assert info.value.code == 14  # TypeMismatch
