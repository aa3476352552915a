"""The one-member replica set as tools see it: replSetGetStatus, replSetGetConfig,
local.system.replset, and mongod's answers to initiate, reconfig and step-down."""

import datetime

import bson
import pymongo.errors
import pytest


def command_error(client, command, *args, **kwargs):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.admin.command(command, *args, **kwargs)
    return failure.value


def test_repl_set_get_status_shows_one_primary_member(client, db):
    written = db.c.insert_one({"x": 1})
    assert written.acknowledged
    me = client.admin.command("hello")["me"]
    status = client.admin.command("replSetGetStatus")
    assert status["set"] == "rs0"
    assert status["myState"] == 1
    assert status["term"] == 1
    assert isinstance(status["date"], datetime.datetime)
    applied = status["optimes"]["appliedOpTime"]
    assert isinstance(applied["ts"], bson.Timestamp) and applied["t"] == 1
    assert status["optimes"]["lastCommittedOpTime"] == applied
    assert status["optimes"]["durableOpTime"] == applied
    [member] = status["members"]
    assert member["_id"] == 0
    assert member["name"] == me
    assert member["health"] == 1
    assert member["state"] == 1
    assert member["stateStr"] == "PRIMARY"
    assert member["self"] is True
    assert member["uptime"] >= 0
    assert member["optime"] == applied
    assert isinstance(member["optimeDate"], datetime.datetime)


def test_applied_optime_moves_with_writes(client, db):
    before = client.admin.command("replSetGetStatus")["optimes"]["appliedOpTime"]["ts"]
    db.c.insert_one({"x": 2})
    after = client.admin.command("replSetGetStatus")["optimes"]["appliedOpTime"]["ts"]
    assert after > before


def test_repl_set_get_config_describes_the_set(client):
    me = client.admin.command("hello")["me"]
    config = client.admin.command("replSetGetConfig")["config"]
    assert config["_id"] == "rs0"
    assert config["version"] == 1
    assert config["protocolVersion"] == 1
    [member] = config["members"]
    assert member == {"_id": 0, "host": me, "arbiterOnly": False, "buildIndexes": True,
                      "hidden": False, "priority": 1, "tags": {}, "secondaryDelaySecs": 0,
                      "votes": 1}
    assert "replicaSetId" in config["settings"]


def test_repl_set_commands_are_admin_only(client):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.test.command("replSetGetStatus")
    assert failure.value.code == 13


def test_local_system_replset_holds_the_config(client):
    config = client.admin.command("replSetGetConfig")["config"]
    docs = list(client.local["system.replset"].find())
    assert docs == [config]
    assert client.local["system.replset"].count_documents({}) == 1
    assert list(client.local["system.replset"].find({"_id": "other"})) == []


def test_initiate_answers_already_initialized(client):
    error = command_error(client, "replSetInitiate", {})
    assert error.code == 23
    assert error.details["codeName"] == "AlreadyInitialized"


def test_step_down_has_no_electable_secondary(client):
    error = command_error(client, "replSetStepDown", 60)
    assert error.code == 262
    assert "No electable secondaries caught up" in str(error)
    assert client.admin.command("hello")["isWritablePrimary"] is True


def test_step_down_checks_its_periods(client):
    assert command_error(client, "replSetStepDown", -1).code == 2
    error = command_error(client, "replSetStepDown", 5)
    assert error.code == 2
    assert "longer than secondaryCatchUpPeriodSecs" in str(error)


def test_forced_step_down_is_refused_not_faked(client):
    error = command_error(client, "replSetStepDown", 60, force=True)
    assert error.code == 115
    assert client.admin.command("hello")["isWritablePrimary"] is True


def test_reconfig_with_another_set_name_is_incompatible(client):
    config = client.admin.command("replSetGetConfig")["config"]
    config["_id"] = "other"
    config["version"] += 1
    error = command_error(client, "replSetReconfig", config)
    assert error.code == 103


def test_reconfig_is_refused_clearly(client):
    config = client.admin.command("replSetGetConfig")["config"]
    config["version"] += 1
    error = command_error(client, "replSetReconfig", config)
    assert error.code == 115
    assert client.admin.command("replSetGetConfig")["config"]["version"] == 1


def test_standalone_has_no_replication(make_server):
    server = make_server("standalone", extra_args=["--replSet", ""])
    client = pymongo.MongoClient(server.uri(), directConnection=True)
    try:
        error = command_error(client, "replSetGetStatus")
        assert error.code == 76
        assert command_error(client, "replSetInitiate", {}).code == 76
    finally:
        client.close()
