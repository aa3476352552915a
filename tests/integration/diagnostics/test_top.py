"""top: per collection, the time and number of the commands that named it, in mongod's sections
(the figures mongotop shows); a dropped collection leaves it."""

import pymongo
import pytest

SECTIONS = ["total", "readLock", "writeLock", "queries", "getmore", "insert", "update", "remove",
            "commands"]


def figures(client, ns):
    totals = client.admin.command("top")["totals"]
    assert totals["note"] == "all times in microseconds"
    return totals.get(ns)


def counts(client, ns):
    row = figures(client, ns)
    return {section: row[section]["count"] for section in SECTIONS}


def test_each_command_counts_in_its_sections(client):
    db = client.t_top
    db.c.drop()
    db.c.insert_many([{"_id": i} for i in range(30)])
    before = counts(client, "t_top.c")
    list(db.c.find().batch_size(10))  # a find and two getMores, the last of which closes it
    db.c.insert_one({"_id": 100})
    db.c.update_one({"_id": 1}, {"$set": {"a": 1}})
    db.c.delete_one({"_id": 2})
    db.c.count_documents({})
    after = counts(client, "t_top.c")
    delta = {section: after[section] - before[section] for section in SECTIONS}
    assert delta == {"total": 7, "readLock": 4, "writeLock": 3, "queries": 1, "getmore": 2,
                     "insert": 1, "update": 1, "remove": 1, "commands": 1}, delta
    row = figures(client, "t_top.c")
    assert row["total"]["time"] == row["readLock"]["time"] + row["writeLock"]["time"]
    assert row["total"]["time"] > 0
    # Other collections are counted apart.
    db.other.insert_one({})
    assert counts(client, "t_top.other")["insert"] == 1


def test_a_dropped_collection_leaves_top(client):
    db = client.t_top_drop
    db.gone.insert_one({})
    assert figures(client, "t_top_drop.gone") is not None
    db.gone.drop()
    assert figures(client, "t_top_drop.gone") is None
    db.kept.insert_one({})
    client.drop_database("t_top_drop")
    assert figures(client, "t_top_drop.kept") is None


def test_top_runs_on_admin_only(client):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        client.t_top.command("top")
    assert failure.value.code == 13
