"""$out keeps its target's options and indexes and replaces its documents only when every new
one passes them; $merge checks the target's validator; both honour bypassDocumentValidation."""

import pymongo
import pytest


@pytest.fixture
def db(client):
    db = client.t_agg_output
    client.drop_database(db.name)
    yield db
    client.drop_database(db.name)


def test_out_keeps_the_targets_options_and_indexes(db):
    db.create_collection("target", validator={"a": {"$type": "int"}})
    db.target.create_index("a")
    db.target.create_index("u", unique=True)
    db.source.insert_many([{"_id": i, "a": i, "u": i} for i in range(3)])
    assert list(db.source.aggregate([{"$out": "target"}])) == []
    names = sorted(index["name"] for index in db.target.list_indexes())
    assert names == ["_id_", "a_1", "u_1"]
    options = db.command("listCollections", filter={"name": "target"})["cursor"]["firstBatch"][0]
    assert options["options"] == {"validator": {"a": {"$type": "int"}}}
    assert list(db.target.find({"a": 1}).hint("a_1")) == [{"_id": 1, "a": 1, "u": 1}]
    assert db.command("validate", "target")["valid"]
    assert [n for n in db.list_collection_names() if n.startswith("tmp.")] == []


def test_out_that_breaks_a_rule_of_its_target_leaves_it_as_it_was(db):
    db.create_collection("target", validator={"a": {"$type": "int"}})
    db.target.create_index("u", unique=True)
    db.target.insert_one({"_id": 1, "a": 1, "u": 1})
    db.invalid.insert_one({"_id": 2, "a": "text"})
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        list(db.invalid.aggregate([{"$out": "target"}]))
    assert failure.value.code == 121
    db.duplicates.insert_many([{"a": 1, "u": 7}, {"a": 2, "u": 7}])
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        list(db.duplicates.aggregate([{"$out": "target"}]))
    assert failure.value.code == 11000
    assert list(db.target.find()) == [{"_id": 1, "a": 1, "u": 1}]
    assert [n for n in db.list_collection_names() if n.startswith("tmp.")] == []
    # bypassDocumentValidation lets the invalid one through; the index still holds.
    list(db.invalid.aggregate([{"$out": "target"}], bypassDocumentValidation=True))
    assert list(db.target.find()) == [{"_id": 2, "a": "text"}]


def test_merge_checks_the_targets_validator(db):
    db.create_collection("target", validator={"a": {"$type": "int"}})
    db.target.insert_one({"_id": 1, "a": 1})
    db.source.insert_many([{"_id": 1, "a": "changed"}, {"_id": 2, "a": "new"}])
    for pipeline in ([{"$match": {"_id": 1}}, {"$merge": {"into": "target"}}],
                     [{"$match": {"_id": 2}}, {"$merge": {"into": "target"}}]):
        with pytest.raises(pymongo.errors.OperationFailure) as failure:
            list(db.source.aggregate(pipeline))
        assert failure.value.code == 121
    assert list(db.target.find()) == [{"_id": 1, "a": 1}]
    list(db.source.aggregate([{"$merge": {"into": "target"}}], bypassDocumentValidation=True))
    assert list(db.target.find().sort("_id", 1)) == [{"_id": 1, "a": "changed"},
                                                     {"_id": 2, "a": "new"}]
