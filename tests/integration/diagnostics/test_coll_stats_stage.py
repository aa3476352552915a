"""$collStats answers what its argument asks for, as mongod does, and the rest of the pipeline
reads its document: storage figures, the count, the latencies of the commands that named the
collection (reads, writes, other commands) and its collection scans."""

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
        ([{"$collStats": {"latencyStats": 1}}], 14),
        ([{"$collStats": {"latencyStats": {"histograms": 1}}}], 14),
        ([{"$collStats": {"latencyStats": {"bogus": True}}}], 40415),
        ([{"$collStats": {"queryExecStats": {"bogus": 1}}}], 40415),
    ]:
        with pytest.raises(pymongo.errors.OperationFailure) as failure:
            list(db.c.aggregate(pipeline))
        assert failure.value.code == code, (pipeline, failure.value.details)


def latency(db, coll="c", histograms=False):
    return only(db, [{"$collStats": {"latencyStats": {"histograms": histograms}}}],
                coll)["latencyStats"]


def test_latency_stats_count_reads_writes_and_commands_of_the_collection(db):
    before = latency(db)
    assert list(before) == ["reads", "writes", "commands", "transactions"]
    assert list(before["reads"]) == ["latency", "ops", "queryableEncryptionLatencyMicros"]
    assert list(before["commands"]) == ["latency", "ops"]
    db.c.find_one({"_id": 1})
    db.c.count_documents({})
    list(db.c.aggregate([{"$match": {"_id": {"$lt": 3}}}]))
    db.c.insert_one({"_id": 100})
    db.c.update_one({"_id": 100}, {"$set": {"a": 1}})
    db.c.find_one_and_delete({"_id": 100})
    db.command("collStats", "c")
    db.c.index_information()
    db.other.insert_one({"_id": 1})  # another collection's write counts there
    after = latency(db)
    # The $collStats that reads `before` is an aggregate too: one more read.
    assert after["reads"]["ops"] - before["reads"]["ops"] == 4
    assert after["writes"]["ops"] - before["writes"]["ops"] == 3
    assert after["commands"]["ops"] - before["commands"]["ops"] == 2
    assert after["reads"]["latency"] > before["reads"]["latency"]
    assert after["transactions"] == {"latency": 0, "ops": 0}
    db.other.drop()


def test_latency_histograms_put_each_operation_in_one_bucket(db):
    for i in range(20):
        db.c.find_one({"_id": i})
    stats = latency(db, histograms=True)
    reads = stats["reads"]
    assert list(reads)[0] == "histogram"
    assert sum(bucket["count"] for bucket in reads["histogram"]) == reads["ops"]
    bounds = [bucket["micros"] for bucket in reads["histogram"]]
    assert bounds == sorted(bounds) and all(b == 0 or b >= 2 for b in bounds)
    # Each bucket starts at a power of two, or, from 2048 to 2^20, halfway to the next one.
    for bound in bounds:
        assert bound == 0 or bound & (bound - 1) == 0 or (bound // 3) & (bound // 3 - 1) == 0


def test_a_dropped_collection_starts_its_latencies_again(db):
    db.c.find_one({"_id": 1})
    assert latency(db)["reads"]["ops"] >= 1
    db.c.drop()
    assert latency(db, "c")["reads"]["ops"] == 0
    assert latency(db, "never_there")["writes"]["ops"] == 0


def test_query_exec_stats_count_the_commands_that_scanned_the_collection(db):
    db.c.create_index("s")
    def scans():
        return only(db, [{"$collStats": {"queryExecStats": {}}}])["queryExecStats"]
    before = scans()["collectionScans"]
    list(db.c.find({"nope": 1}))                      # a collection scan
    list(db.c.find({"_id": 3}))                       # by _id: no scan
    list(db.c.find({"s": "x" * 100}).hint("s_1"))     # an index scan
    list(db.c.find({"nope": 2}).batch_size(1))        # one scan, whatever its getMores
    db.c.count_documents({"nope": 3})                 # a scan inside an aggregate
    after = scans()["collectionScans"]
    assert after["total"] - before["total"] == 3
    assert after["nonTailable"] - before["nonTailable"] == 3
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        list(db.missing.aggregate([{"$collStats": {"queryExecStats": {}}}]))
    assert failure.value.code == 26
