"""$collStats answers what its argument asks for, as mongod does, and the rest of the pipeline
reads its document; what Quarry does not keep (latencyStats, queryExecStats) answers
NotImplemented."""

import pymongo
import pytest


@pytest.fixture
def db(client):
    db = client.t_coll_stats
    db.c.drop()
    db.c.insert_many([{"_id": i, "s": "x" * 100} for i in range(50)])
    yield db
    db.c.drop()


def only(db, pipeline, coll="c"):
    docs = list(db[coll].aggregate(pipeline))
    assert len(docs) == 1, docs
    return docs[0]


def test_each_section_is_there_only_when_asked_for(db):
    bare = only(db, [{"$collStats": {}}])
    assert set(bare) == {"ns", "host", "localTime"}
    assert bare["ns"] == "t_coll_stats.c"
    counted = only(db, [{"$collStats": {"count": {}}}])
    assert counted["count"] == 50 and "storageStats" not in counted
    both = only(db, [{"$collStats": {"storageStats": {}, "count": {}}}])
    assert list(both)[3:] == ["storageStats", "count"]
    assert both["storageStats"]["count"] == 50
    assert both["storageStats"]["size"] == db.command("collStats", "c")["size"]


def test_the_rest_of_the_pipeline_reads_its_document(db):
    doc = only(db, [{"$collStats": {"storageStats": {}}},
                    {"$project": {"_id": 0, "n": "$storageStats.count", "ns": 1}}])
    assert doc == {"ns": "t_coll_stats.c", "n": 50}


def test_storage_stats_scale_divides_the_sizes(db):
    plain = only(db, [{"$collStats": {"storageStats": {}}}])["storageStats"]
    scaled = only(db, [{"$collStats": {"storageStats": {"scale": 1024}}}])["storageStats"]
    assert scaled["scaleFactor"] == 1024
    assert scaled["size"] == plain["size"] // 1024
    assert scaled["avgObjSize"] == plain["avgObjSize"]  # bytes whatever the scale, as in mongod


def test_a_missing_collection(db):
    assert set(only(db, [{"$collStats": {}}], "missing")) == {"ns", "host", "localTime"}
    for section in ("storageStats", "count"):
        with pytest.raises(pymongo.errors.OperationFailure) as failure:
            list(db.missing.aggregate([{"$collStats": {section: {}}}]))
        assert failure.value.code == 26


def test_bad_arguments_answer_mongods_codes(db):
    for pipeline, code in [
        ([{"$collStats": {"bogus": {}}}], 40415),
        ([{"$collStats": {"storageStats": {"bogus": True}}}], 40415),
        ([{"$collStats": {"storageStats": {"scale": 0}}}], 51024),
        ([{"$collStats": 5}], 5447000),
        ([{"$match": {}}, {"$collStats": {}}], 40602),
        ([{"$collStats": {"latencyStats": {}}}], 238),
        ([{"$collStats": {"queryExecStats": {}}}], 238),
    ]:
        with pytest.raises(pymongo.errors.OperationFailure) as failure:
            list(db.c.aggregate(pipeline))
        assert failure.value.code == code, (pipeline, failure.value.details)
