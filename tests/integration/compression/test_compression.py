"""Wire compression with pymongo: each compressor is negotiated and really used, data survives the
round trip, and serverStatus's byte counters show the saving (the OP_COMPRESSED specification;
mongod's serverStatus output)."""

import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS
from wire_client import RawConnection, op_compressed, op_msg, op_query

COMPRESSORS = ["snappy", "zlib", "zstd"]


def network(client):
    return client.admin.command("serverStatus")["network"]


def compression_counters(net, name):
    section = net.get("compression", {}).get(name)
    assert section is not None, f"serverStatus network.compression has no {name!r}: {net}"
    return (section["compressor"]["bytesIn"], section["compressor"]["bytesOut"],
            section["decompressor"]["bytesIn"], section["decompressor"]["bytesOut"])


def sample_documents(n, prefix):
    return [{"_id": i, "name": f"{prefix}-{i}", "n": i, "f": i / 3, "tags": ["a", "b", prefix],
             "nested": {"text": "compressible " * 20, "i": i}} for i in range(n)]


@pytest.mark.parametrize("compressor", COMPRESSORS)
def test_negotiated_compressor_is_used_for_requests_and_replies(server, db, compressor):
    with pymongo.MongoClient(server.uri(compressors=compressor), **CLIENT_OPTIONS) as c:
        coll = c[db.name].docs
        before = compression_counters(network(c), compressor)
        coll.insert_many(sample_documents(300, compressor))
        got = list(coll.find({}, sort=[("_id", 1)]))
        after = compression_counters(network(c), compressor)
    assert got == sample_documents(300, compressor)
    names = ("compressor.bytesIn", "compressor.bytesOut", "decompressor.bytesIn",
             "decompressor.bytesOut")
    for name, b, a in zip(names, before, after):
        assert a > b, f"network.compression.{compressor}.{name} did not grow: {b} -> {a}"
    # The compressor's output is smaller than its input for these documents.
    assert after[1] - before[1] < after[0] - before[0]


def test_without_compressors_no_compressor_counter_moves(server, db):
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        net_before = network(c)
        c[db.name].docs.insert_many(sample_documents(100, "plain"))
        assert len(list(c[db.name].docs.find())) == 100
        net_after = network(c)
    for name in COMPRESSORS:
        if name in net_before.get("compression", {}):
            assert compression_counters(net_after, name) == compression_counters(net_before, name)
    assert net_after["bytesIn"] > net_before["bytesIn"]
    assert net_after["numRequests"] > net_before["numRequests"]


def test_zstd_physical_bytes_out_are_well_below_logical_bytes_out(server, db):
    docs = [{"_id": i, "text": "the quick brown fox jumps over the lazy dog " * 25}
            for i in range(2000)]
    db.big.insert_many(docs)
    with pymongo.MongoClient(server.uri(compressors="zstd"), **CLIENT_OPTIONS) as c:
        before = network(c)
        assert len(list(c[db.name].big.find())) == 2000
        after = network(c)
    logical = after["bytesOut"] - before["bytesOut"]
    physical = after["physicalBytesOut"] - before["physicalBytesOut"]
    assert logical > 2000 * 1000
    assert physical < logical / 4, f"{physical} physical bytes out for {logical} logical"


def test_a_reply_is_counted_in_physical_bytes_out_before_the_client_has_it(server, db):
    # Measured from a second connection right after each reply: the counter must already hold
    # the reply's bytes, or a benchmark's deltas come out short.
    blob = "x" * 1_000_000
    db.counted.insert_one({"_id": 1, "blob": blob})
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as reader, \
            pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as observer:
        reader.admin.command("ping")
        for _ in range(20):
            before = network(observer)["physicalBytesOut"]
            assert reader[db.name].counted.find_one({"_id": 1})["blob"] == blob
            after = network(observer)["physicalBytesOut"]
            assert after - before > len(blob), f"only {after - before} bytes counted"


@pytest.mark.parametrize("compressor", COMPRESSORS)
def test_large_documents_round_trip_compressed(server, db, compressor):
    blob = bytes(range(256)) * 4096  # 1 MiB that compresses poorly
    text = "x" * (4 * 1024 * 1024)   # 4 MiB that compresses very well
    with pymongo.MongoClient(server.uri(compressors=compressor), **CLIENT_OPTIONS) as c:
        coll = c[db.name].large
        coll.insert_one({"_id": "blob", "data": blob})
        coll.insert_one({"_id": "text", "data": text})
        assert coll.find_one({"_id": "blob"})["data"] == blob
        assert coll.find_one({"_id": "text"})["data"] == text


def test_client_preference_order_decides_the_compressor(server, db):
    with pymongo.MongoClient(server.uri(compressors="zlib,zstd"), **CLIENT_OPTIONS) as c:
        zlib_before = compression_counters(network(c), "zlib")
        zstd_before = compression_counters(network(c), "zstd")
        c[db.name].docs.insert_many(sample_documents(50, "order"))
        zlib_after = compression_counters(network(c), "zlib")
        zstd_after = compression_counters(network(c), "zstd")
    assert zlib_after[2] > zlib_before[2], "requests were not zlib-compressed"
    assert zstd_after == zstd_before, "zstd was used although the client preferred zlib"


@pytest.mark.parametrize("compressor", COMPRESSORS)
def test_reply_uses_the_compressor_of_the_request(server, compressor):
    with RawConnection(server.host, server.port) as conn:
        conn.send(op_query({"ismaster": 1, "compression": COMPRESSORS}))
        assert conn.recv().doc["compression"] == COMPRESSORS
        conn.send(op_compressed(op_msg({"ping": 1, "$db": "admin"}, request_id=9), compressor))
        reply = conn.recv()
        assert reply.doc["ok"] == 1.0
        assert reply.response_to == 9
        assert reply.compressor_id == {"snappy": 1, "zlib": 2, "zstd": 3}[compressor]
        # An uncompressed request on the same connection gets an uncompressed reply.
        reply = conn.command({"ping": 1, "$db": "admin"}, request_id=10)
        assert reply.compressor_id is None and reply.doc["ok"] == 1.0


def test_zstd_frame_without_content_size_is_accepted(server):
    # The Node driver's zstd frames carry no content size.
    import zstandard
    with RawConnection(server.host, server.port) as conn:
        conn.send(op_query({"ismaster": 1, "compression": ["zstd"]}))
        conn.recv()
        message = op_msg({"ping": 1, "$db": "admin"}, request_id=11)
        frame = zstandard.ZstdCompressor(write_content_size=False).compress(message[16:])
        conn.send(op_compressed(message, "zstd", payload=frame))
        assert conn.recv().doc["ok"] == 1.0
