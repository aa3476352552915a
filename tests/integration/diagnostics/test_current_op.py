"""currentOp and the $currentOp stage with pymongo: the operations running now, seen from another
client, in mongod's shape; filters; idle connections; killOp of a long scan and of an unknown
opid."""

import re

import pymongo.errors
import pytest
from bson.son import SON

from current_op_helpers import SLOW_FILTER, Background, current_op, wait_for_op

SLOW_DOCS = 30000


@pytest.fixture
def slow_coll(db):
    db.slow.insert_many([{"_id": i, "n": i} for i in range(SLOW_DOCS)], ordered=False)
    return db.slow


def test_current_op_lists_itself_with_mongods_fields(client):
    ops = current_op(client, **{"command.currentOp": 1})
    assert len(ops) == 1, ops
    op = ops[0]
    assert op["type"] == "op"
    assert op["active"] is True
    assert re.fullmatch(r"conn\d+", op["desc"])
    assert op["desc"] == f"conn{op['connectionId']}"
    assert re.fullmatch(r"127\.0\.0\.1:\d+", op["client"])
    assert "driver" in op["clientMetadata"]
    assert isinstance(op["opid"], int) and op["opid"] > 0
    assert isinstance(op["secs_running"], int)
    assert isinstance(op["microsecs_running"], int)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d", op["currentOpTime"])
    assert op["op"] == "command"
    assert op["ns"] == "admin.$cmd"
    assert op["numYields"] == 0
    assert op["locks"] == {}
    assert op["waitingForLock"] is False


def test_current_op_is_only_for_the_admin_database(client, db):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("currentOp")
    assert info.value.code == 13  # Unauthorized, as mongod


def test_a_second_client_sees_a_running_find_and_kills_it(server, client, slow_coll):
    name = slow_coll.name
    work = Background(server, "slow-finder",
                      lambda c: list(c[slow_coll.database.name][name].find(SLOW_FILTER)))
    try:
        op = wait_for_op(client, **{"command.find": name, "ns": slow_coll.full_name})
        assert op["op"] == "query"
        assert op["active"] is True
        assert op["appName"] == "slow-finder"
        assert op["clientMetadata"]["application"]["name"] == "slow-finder"
        assert op["command"]["filter"] == SLOW_FILTER
        reply = client.admin.command("killOp", op=op["opid"])
        assert reply["info"] == "attempting to kill op"
    finally:
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            work.join()
    assert info.value.code == 11601
    assert "operation was interrupted" in str(info.value)


def test_killop_stops_a_long_aggregation(server, client, slow_coll):
    name = slow_coll.name
    work = Background(server, "slow-aggregator",
                      lambda c: list(c[slow_coll.database.name][name].aggregate(
                          [{"$match": SLOW_FILTER}, {"$count": "n"}])))
    try:
        op = wait_for_op(client, **{"command.aggregate": name})
        assert op["op"] == "command"
        client.admin.command("killOp", op=op["opid"])
    finally:
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            work.join()
    assert info.value.code == 11601


def test_filters_select_among_running_operations(server, client, slow_coll):
    name = slow_coll.name
    work = Background(server, "filtered",
                      lambda c: list(c[slow_coll.database.name][name].find(SLOW_FILTER)))
    try:
        op = wait_for_op(client, appName="filtered")
        assert [o["opid"] for o in current_op(client, op="query", ns=slow_coll.full_name)] == \
            [op["opid"]]
        assert current_op(client, op="insert", ns=slow_coll.full_name) == []
        assert current_op(client, ns="no.such") == []
        assert [o["opid"] for o in current_op(client, **{"$or": [{"opid": op["opid"]}],
                                                        "$ownOps": True})] == [op["opid"]]
        assert current_op(client, secs_running={"$lt": 0}) == []
        client.admin.command("killOp", op=op["opid"])
    finally:
        with pytest.raises(pymongo.errors.OperationFailure):
            work.join()


def test_all_lists_idle_connections_as_inactive(server, client):
    idle = pymongo.MongoClient(server.uri(), appname="idle-one")
    try:
        idle.admin.command("ping")
        assert current_op(client, appName="idle-one") == []
        listed = current_op(client, **{"$all": True, "appName": "idle-one"})
        assert listed, "the idle connection is not listed with $all"
        for op in listed:
            assert op["active"] is False
            assert "opid" not in op
            assert re.fullmatch(r"conn\d+", op["desc"])
    finally:
        idle.close()


def test_killop_of_an_unknown_opid_answers_ok(client):
    reply = client.admin.command("killOp", op=2_000_000_000)
    assert reply["ok"] == 1
    assert reply["info"] == "attempting to kill op"


@pytest.mark.parametrize("op, code", [(None, 4), ("x", 14), (1.5, 2), (2 ** 40, 26823)])
def test_killop_checks_its_opid_as_mongod(client, op, code):
    command = SON([("killOp", 1)] + ([] if op is None else [("op", op)]))
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        client.admin.command(command)
    assert info.value.code == code


def test_killop_is_only_for_the_admin_database(db):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        db.command("killOp", op=1)
    assert info.value.code == 13


def test_current_op_stage_lists_the_aggregation_itself(client):
    docs = list(client.admin.aggregate([{"$currentOp": {"allUsers": True, "truncateOps": False}},
                                        {"$match": {"command.aggregate": 1}}]))
    assert len(docs) == 1, docs
    assert docs[0]["ns"] == "admin.$cmd.aggregate"
    assert docs[0]["command"]["pipeline"][0] == {"$currentOp": {"allUsers": True,
                                                                "truncateOps": False}}


def test_current_op_stage_with_idle_connections(server, client):
    idle = pymongo.MongoClient(server.uri(), appname="idle-stage")
    try:
        idle.admin.command("ping")
        docs = list(client.admin.aggregate([{"$currentOp": {"idleConnections": True}},
                                            {"$match": {"appName": "idle-stage"}}]))
        assert docs and all(d["active"] is False for d in docs)
    finally:
        idle.close()


@pytest.mark.parametrize("pipeline, code", [
    ([{"$match": {}}, {"$currentOp": {}}], 40602),      # only as the first stage
    ([{"$currentOp": {"bogus": True}}], 9),              # FailedToParse: unknown option
    ([{"$currentOp": {"idleConnections": 1}}], 9),       # FailedToParse: not a bool
    ([{"$currentOp": {"allUsers": 1}}], 14),             # TypeMismatch, checked first
    ([{"$currentOp": 1}], 14),
    ([{"$currentOp": {"idleCursors": True}}], 238),    # not listed: refused, not ignored
])
def test_current_op_stage_errors_as_mongod(client, pipeline, code):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(client.admin.aggregate(pipeline))
    assert info.value.code == code


def test_current_op_stage_needs_admin_and_aggregate_1(client, db):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(db.aggregate([{"$currentOp": {}}]))
    assert info.value.code == 73  # InvalidNamespace
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(client.admin.some_coll.aggregate([{"$currentOp": {}}]))
    assert info.value.code == 73
