#!/usr/bin/python3
"""Writes the seed corpora for the fuzzers: a few valid messages and documents.

Run with Debian's interpreter (it has pymongo's bson, snappy and zstandard):
    /usr/bin/python3 tests/fuzz/make_corpus.py
The output is checked in under tests/fuzz/corpus/<fuzzer>/.
"""
import datetime
import os
import struct
import zlib

import bson
import snappy
import zstandard
from bson.binary import Binary
from bson.code import Code
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from bson.objectid import ObjectId
from bson.regex import Regex
from bson.son import SON
from bson.timestamp import Timestamp

HERE = os.path.dirname(os.path.abspath(__file__))


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def enc(doc):
    return bson.BSON.encode(SON(doc))


def frame(op_code, body, request_id=1):
    return struct.pack("<iiii", 16 + len(body), request_id, 0, op_code) + body


def op_msg(body, sequences=(), flags=0, request_id=1):
    out = struct.pack("<I", flags) + b"\x00" + enc(body)
    for identifier, docs in sequences:
        payload = identifier.encode() + b"\x00" + b"".join(enc(d) for d in docs)
        out += b"\x01" + struct.pack("<i", len(payload) + 4) + payload
    if flags & 1:
        message = frame(2013, out + b"\x00\x00\x00\x00", request_id)
        return message[:-4] + struct.pack("<I", crc32c(message[:-4]))
    return frame(2013, out, request_id)


def op_query(ns, query, request_id=1):
    body = struct.pack("<i", 0) + ns.encode() + b"\x00" + struct.pack("<ii", 0, -1) + enc(query)
    return frame(2004, body, request_id)


def compressed(message, compressor_id):
    original_op = struct.unpack("<i", message[12:16])[0]
    payload = message[16:]
    if compressor_id == 0:
        data = payload
    elif compressor_id == 1:
        data = snappy.compress(payload)
    elif compressor_id == 2:
        data = zlib.compress(payload)
    else:  # like the Node driver: no content size in the frame
        data = zstandard.ZstdCompressor(write_content_size=False).compress(payload)
    body = struct.pack("<iiB", original_op, len(payload), compressor_id) + data
    request_id = struct.unpack("<i", message[4:8])[0]
    return frame(2012, body, request_id)


def raw_doc(elements):
    """A document from raw element bytes, for types pymongo cannot encode."""
    return struct.pack("<i", len(elements) + 5) + elements + b"\x00"


def write(fuzzer, name, data):
    directory = os.path.join(HERE, "corpus", fuzzer)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main():
    insert = {"insert": "people", "ordered": True, "$db": "test"}
    people = [{"_id": ObjectId(), "name": "Ada", "age": 36}, {"_id": 2, "tags": ["x", "y"]}]
    messages = {
        "op_msg_ping": op_msg({"ping": 1, "$db": "admin"}),
        "op_msg_insert_sequence": op_msg(insert, [("documents", people)]),
        "op_msg_update_two_sequences": op_msg(
            {"update": "c", "$db": "test"},
            [("updates", [{"q": {"a": 1}, "u": {"$set": {"b": 2}}}]), ("extra", [])]),
        "op_msg_checksum": op_msg({"find": "c", "filter": {"a": {"$gt": 1}}, "$db": "t"},
                                  flags=1),
        "op_msg_more_to_come": op_msg(insert, [("documents", people)], flags=2),
        "op_query_ismaster": op_query("admin.$cmd", {"ismaster": 1, "helloOk": True,
                                                     "client": {"driver": {"name": "x"}},
                                                     "compression": ["zstd", "snappy"]}),
        "op_query_wrapped": op_query("admin.$cmd", {"$query": {"isMaster": 1},
                                                    "$readPreference": {"mode": "primary"}}),
    }
    for name, message in messages.items():
        write("wire_request_fuzzer", name, message)
    for compressor_id, label in ((0, "noop"), (1, "snappy"), (2, "zlib"), (3, "zstd")):
        write("wire_request_fuzzer", "op_compressed_" + label,
              compressed(messages["op_msg_insert_sequence"], compressor_id))
    write("wire_request_fuzzer", "op_compressed_zstd_query",
          compressed(messages["op_query_ismaster"], 3))

    every_type = {
        "double": 1.5, "string": "héllo", "doc": {"a": {"b": [1, 2, {"c": None}]}},
        "array": [1, "two", 3.0], "binary": Binary(b"\x00\x01\x02", 4), "oid": ObjectId(),
        "bool": True, "date": datetime.datetime(2020, 1, 1), "null": None,
        "regex": Regex("^a.*b$", "im"), "code": Code("function(){}"),
        "codews": Code("x", {"s": 1}), "int32": 7, "ts": Timestamp(5, 6),
        "int64": Int64(1 << 40), "dec": Decimal128("1.25E-3"), "min": MinKey(), "max": MaxKey(),
    }
    write("bson_validate_fuzzer", "every_type", enc(every_type))
    write("bson_validate_fuzzer", "empty", enc({}))
    write("bson_validate_fuzzer", "nested", enc({"a": {"a": {"a": {"a": [[[{"x": 1}]]]}}}}))
    write("bson_validate_fuzzer", "legacy_types", raw_doc(
        b"\x06u\x00"                                         # undefined
        + b"\x0cp\x00" + struct.pack("<i", 3) + b"db\x00" + bytes(12)  # DBPointer
        + b"\x0es\x00" + struct.pack("<i", 4) + b"sym\x00"))           # symbol
    write("bson_validate_fuzzer", "command", enc(insert))

    # search_query_fuzzer: an even first byte, then a queryString query; an odd one, then an
    # operator document.
    for name, query in {
            "query_string_words": 'captain AND (kirk OR "new york"~2) -chess^2',
            "query_string_terms": "capt* /k.r./ kirk~1 title:[a TO m} meta.title:voyage",
    }.items():
        write("search_query_fuzzer", name, b"\x00" + query.encode())
    for name, operator in {
            "compound": {"compound": {"must": [{"text": {"query": "apple",
                                                         "path": {"value": "title",
                                                                  "multi": "english"}}}],
                                      "should": [{"range": {"path": "year", "gte": 1990}}]}},
            "embedded": {"embeddedDocument": {"path": "items", "operator": {
                "phrase": {"query": "red apple", "path": "items.name"}},
                "score": {"embedded": {"aggregate": "mean"}}}},
            "geo": {"compound": {"should": [
                {"geoWithin": {"path": "loc", "geometry": {"type": "Polygon", "coordinates": [
                    [[0, 40], [10, 40], [10, 50], [0, 50], [0, 40]]]}}},
                {"geoWithin": {"path": "loc", "box": {
                    "bottomLeft": {"type": "Point", "coordinates": [170, -30]},
                    "topRight": {"type": "Point", "coordinates": [-170, 0]}}}},
                {"near": {"path": "loc", "pivot": 1000,
                          "origin": {"type": "Point", "coordinates": [2, 48]}}}]}},
            "patterns": {"compound": {"should": [
                {"wildcard": {"query": "ru?n*", "path": "title", "allowAnalyzedField": True}},
                {"regex": {"query": "st.*", "path": "plot", "allowAnalyzedField": True}},
                {"equals": {"path": "code", "value": "A1"}}]}},
            "scores": {"compound": {"should": [
                {"text": {"query": "apple", "path": "title", "score": {"function": {"add": [
                    {"multiply": [{"score": "relevance"}, {"log1p": {"path": "year"}}]},
                    {"gauss": {"path": {"value": "year", "undefined": 1990}, "origin": 2000,
                               "scale": 10, "offset": 1, "decay": 0.3}}]}}}},
                {"text": {"query": "red", "path": "plot",
                          "score": {"boost": {"path": "year", "undefined": 2}}}}],
                "score": {"dismax": {"tieBreakerScore": 0.3}}}},
            "synonyms": {"compound": {"should": [
                {"text": {"query": "the captain of new york", "path": "plot", "synonyms": "s"}},
                {"text": {"query": "skipper ship", "path": ["plot", "title"], "synonyms": "s",
                          "matchCriteria": "any"}},
                {"text": {"query": "nyc captain", "path": "plot", "synonyms": "s",
                          "matchCriteria": "all"}}]}},
            "phrase_synonyms": {"compound": {"should": [
                {"phrase": {"query": "captain of new york", "path": "plot", "synonyms": "s",
                            "slop": 2}},
                {"phrase": {"query": "ship master", "path": ["plot", "title"],
                            "synonyms": "s"}}]}},
            "graphs": {"compound": {"should": [
                {"text": {"query": "captain kirk plays chess",
                          "path": {"value": "title", "multi": "shingles"},
                          "matchCriteria": "all"}},
                {"phrase": {"query": "running men", "slop": 1,
                            "path": {"value": "title", "multi": "shingles"}}},
                {"text": {"query": "chess captian", "path": "title",
                          "fuzzy": {"maxEdits": 1}, "matchCriteria": "all"}}]}},
            "more_like_this": {"moreLikeThis": {"like": [
                {"title": "Captain of chess", "plot": ["a ship", "New York life"]},
                {"meta": {"title": "voyage"}, "items": {"name": "apple"}}]}},
    }.items():
        write("search_query_fuzzer", name, b"\x01" + enc(operator))


if __name__ == "__main__":
    main()
