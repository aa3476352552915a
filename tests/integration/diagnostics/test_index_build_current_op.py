"""An index build seen through currentOp (its scan's progress, as mongod shows it) and stopped by
killOp: createIndexes fails with Interrupted and leaves no index behind."""

import re

import pymongo
import pymongo.errors
import pytest

from current_op_helpers import Background, wait_for_op

# Two million keys make the build last most of a second: time to see it and to kill it.
DOCS = 100_000
INDEX = [("arr", 1), ("n", 1)]
INDEX_NAME = "arr_1_n_1"


@pytest.fixture
def build_coll(db):
    for start in range(0, DOCS, 20_000):
        db.build.insert_many([{"_id": i, "n": i, "arr": list(range(i % 50, i % 50 + 20))}
                              for i in range(start, start + 20_000)], ordered=False)
    return db.build


def start_build(server, coll, app_name):
    return Background(server, app_name,
                      lambda c: c[coll.database.name][coll.name].create_index(INDEX))


def wait_for_build(client, coll, **more):
    return wait_for_op(client, **{"command.createIndexes": coll.name, "ns": coll.full_name},
                       **more)


def test_a_running_build_shows_its_scan_progress(server, client, build_coll):
    work = start_build(server, build_coll, "progress-build")
    op = None
    try:
        op = wait_for_build(client, build_coll, **{"progress.done": {"$gt": 0}})
        assert op["op"] == "command"
        assert op["command"]["indexes"][0]["key"] == dict(INDEX)
        assert op["progress"]["total"] == DOCS
        assert 0 < op["progress"]["done"] <= DOCS
        assert re.fullmatch(r"Index Build: scanning collection Index Build: scanning collection: "
                            r"(\d+)/(\d+) (\d+)%", op["msg"]), op["msg"]
        done, total, percent = map(int, re.findall(r"(\d+)/(\d+) (\d+)%", op["msg"])[0])
        assert total == DOCS and percent == done * 100 // total
    finally:
        if op is not None:
            client.admin.command("killOp", op=op["opid"])
        with pytest.raises(pymongo.errors.OperationFailure):
            work.join()


def test_killop_fails_the_build_and_leaves_no_index(server, client, build_coll):
    work = start_build(server, build_coll, "killed-build")
    try:
        op = wait_for_build(client, build_coll)
        client.admin.command("killOp", op=op["opid"])
    finally:
        with pytest.raises(pymongo.errors.OperationFailure) as info:
            work.join()
    assert info.value.code == 11601
    assert "operation was interrupted" in str(info.value)
    assert [ix["name"] for ix in build_coll.list_indexes()] == ["_id_"]
    with pytest.raises(pymongo.errors.OperationFailure) as hinted:
        list(build_coll.find({"n": 1}).hint(INDEX_NAME))
    assert hinted.value.code == 2  # BadValue: no such index
    # The collection is as before, and the same index builds afterwards.
    assert build_coll.count_documents({}) == DOCS
    assert build_coll.create_index([("n", 1)]) == "n_1"
