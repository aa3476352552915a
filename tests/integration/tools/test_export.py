"""`quarry export` against a real quarryd, as mongoexport users run it: every BSON type
round-trips through the default relaxed Extended JSON lines, canonical output, --query, --sort,
--skip, --limit, --fields, --jsonArray, --pretty, CSV with quoting and nested fields, -o, the
closing "exported N records" line, and the exit status of bad arguments (2) and failed runs (1).

The tool is the `quarry_tool` fixture (tests/integration/conftest.py).
"""

import csv
import datetime
import io
import json
import os
import subprocess
import time

import pytest
from bson import json_util
from bson.int64 import Int64
from bson.objectid import ObjectId

from bson_samples import every_type_document
from quarry_server import free_port

RUN_TIMEOUT_S = 120
# pymongo reads dates as naive UTC datetimes; parse the export the same way.
NAIVE_JSON = json_util.JSONOptions(tz_aware=False)



def export(tool, server, db, *args, coll="c"):
    return subprocess.run([tool, "export", "--uri", server.uri(), "--db", db.name, "-c", coll,
                           *args], capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                          stdin=subprocess.DEVNULL)


def export_ok(tool, server, db, *args, coll="c"):
    result = export(tool, server, db, *args, coll=coll)
    assert result.returncode == 0, result.stderr
    return result


def lines_of(result):
    assert result.stdout == "" or result.stdout.endswith("\n")
    return [json_util.loads(line, json_options=NAIVE_JSON) for line in result.stdout.splitlines()]


def last_stderr_line(result):
    return result.stderr.strip().splitlines()[-1]



def test_every_bson_type_round_trips_through_default_json(quarry_tool, server, db):
    db.c.insert_one(every_type_document())
    stored = db.c.find_one()
    result = export_ok(quarry_tool, server, db)
    (exported,) = lines_of(result)
    assert exported == stored
    assert list(exported) == list(stored)
    # Compact relaxed Extended JSON, as mongoexport writes it.
    line = result.stdout.splitlines()[0]
    assert line.startswith('{"_id":{"$oid":"')
    assert '"int32":42,' in line and '"int64":9007199254740993,' in line
    assert '"date":{"$date":"2024-01-02T03:04:05.678Z"}' in line


def test_canonical_json_keeps_every_number_type(quarry_tool, server, db):
    db.c.insert_one({"_id": 1, "i": 5, "l": Int64(5), "d": 5.0,
                     "t": datetime.datetime(2024, 1, 2, 3, 4, 5, 678000)})
    relaxed = export_ok(quarry_tool, server, db).stdout
    canonical = export_ok(quarry_tool, server, db, "--jsonFormat", "canonical").stdout
    assert relaxed == '{"_id":1,"i":5,"l":5,"d":5.0,"t":{"$date":"2024-01-02T03:04:05.678Z"}}\n'
    assert canonical == ('{"_id":{"$numberInt":"1"},"i":{"$numberInt":"5"},'
                         '"l":{"$numberLong":"5"},"d":{"$numberDouble":"5.0"},'
                         '"t":{"$date":{"$numberLong":"1704164645678"}}}\n')
    assert json_util.loads(canonical, json_options=NAIVE_JSON) == db.c.find_one()


def test_unknown_json_format_is_a_bad_argument(quarry_tool, server, db):
    result = export(quarry_tool, server, db, "--jsonFormat", "shell")
    assert result.returncode == 2
    assert "shell" in result.stderr


def test_query_sort_skip_and_limit_select_documents(quarry_tool, server, db):
    db.c.insert_many([{"_id": i, "n": i % 5, "even": i % 2 == 0} for i in range(20)])
    result = export_ok(quarry_tool, server, db, "--query", '{"even": true}',
                       "--sort", '{"n": -1, "_id": 1}', "--skip", "2", "--limit", "4")
    expected = list(db.c.find({"even": True}).sort([("n", -1), ("_id", 1)]).skip(2).limit(4))
    assert lines_of(result) == expected
    assert last_stderr_line(result) == "exported 4 records"


def test_query_takes_extended_json_values(quarry_tool, server, db):
    db.c.insert_many([{"_id": 1, "at": datetime.datetime(2023, 1, 1)},
                      {"_id": 2, "at": datetime.datetime(2024, 6, 1)},
                      {"_id": 3, "big": Int64(1 << 40)}])
    result = export_ok(quarry_tool, server, db, "-q",
                       '{"at": {"$gte": {"$date": "2024-01-01T00:00:00Z"}}}')
    assert [doc["_id"] for doc in lines_of(result)] == [2]
    result = export_ok(quarry_tool, server, db, "-q", '{"big": {"$numberLong": "1099511627776"}}')
    assert [doc["_id"] for doc in lines_of(result)] == [3]


def test_query_and_sort_take_the_mongo_shell_syntax(quarry_tool, server, db):
    db.c.insert_many([{"_id": ObjectId("5f1d7f3e9d1b2c3a4b5c6d7e"), "n": 1, "at": datetime.datetime(2023, 1, 1)},
                      {"_id": ObjectId("5f1d7f3e9d1b2c3a4b5c6d7f"), "n": 2, "at": datetime.datetime(2024, 6, 1)},
                      {"_id": ObjectId("5f1d7f3e9d1b2c3a4b5c6d80"), "n": 3, "at": datetime.datetime(2024, 7, 1)}])
    result = export_ok(quarry_tool, server, db, "--query",
                       "{at: {$gte: ISODate('2024-01-01')}}", "--sort", "{n: -1}")
    assert [doc["n"] for doc in lines_of(result)] == [3, 2]
    result = export_ok(quarry_tool, server, db, "-q", '{_id: ObjectId("5f1d7f3e9d1b2c3a4b5c6d7e")}')
    assert [doc["n"] for doc in lines_of(result)] == [1]


def test_database_comes_from_the_uri_without_db(quarry_tool, server, db):
    db.c.insert_one({"_id": "from-uri"})
    uri = f"mongodb://{server.host}:{server.port}/{db.name}"
    result = subprocess.run([quarry_tool, "export", "--uri", uri, "-c", "c"], capture_output=True,
                            text=True, timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert result.stdout == '{"_id":"from-uri"}\n'


def test_fields_project_top_level_names_and_keep_id(quarry_tool, server, db):
    db.c.insert_one({"_id": 1, "a": 1, "b": {"c": 2, "d": 3}, "tags": ["x", "y"], "z": 9})
    result = export_ok(quarry_tool, server, db, "--fields", "a,b.c,tags.0")
    assert lines_of(result) == [{"_id": 1, "a": 1, "b": {"c": 2, "d": 3}, "tags": ["x", "y"]}]


def test_field_file_lists_fields_one_per_line(quarry_tool, server, db, tmp_path):
    db.c.insert_one({"_id": 1, "a": 1, "b": 2, "z": 9})
    field_file = tmp_path / "fields.txt"
    field_file.write_text("a\nb\n")
    result = export_ok(quarry_tool, server, db, "--fieldFile", str(field_file))
    assert lines_of(result) == [{"_id": 1, "a": 1, "b": 2}]


def test_json_array_is_one_valid_json_array(quarry_tool, server, db):
    docs = [{"_id": i, "s": f"doc,{i}]"} for i in range(3)]
    db.c.insert_many(docs)
    result = export_ok(quarry_tool, server, db, "--jsonArray")
    assert json.loads(result.stdout) == docs
    assert result.stdout.count("\n") == 1
    empty = export_ok(quarry_tool, server, db, "--jsonArray", coll="empty")
    assert json.loads(empty.stdout) == []
    assert last_stderr_line(empty) == "exported 0 records"


def test_pretty_output_parses_back(quarry_tool, server, db):
    docs = [{"_id": 1, "s": "{braces} [brackets], \"quotes\": \\", "o": {}, "a": [],
             "n": {"deep": [1, {"x": "y"}]}},
            {"_id": 2}]
    db.c.insert_many(docs)
    pretty_array = export_ok(quarry_tool, server, db, "--jsonArray", "--pretty")
    assert json.loads(pretty_array.stdout) == docs
    assert "\n\t\"s\": " in pretty_array.stdout
    pretty = export_ok(quarry_tool, server, db, "--pretty").stdout
    decoder = json.JSONDecoder()
    parsed, pos = [], 0
    while pos < len(pretty.rstrip()):
        doc, pos = decoder.raw_decode(pretty, pos)
        parsed.append(doc)
        while pos < len(pretty) and pretty[pos].isspace():
            pos += 1
    assert parsed == docs
    assert len(pretty.splitlines()) > 10


def test_csv_has_header_quoting_and_nested_fields(quarry_tool, server, db):
    db.c.insert_many([
        {"_id": ObjectId("65a1b2c3d4e5f60718293a4b"), "name": 'Ann "Jr", Smith',
         "address": {"city": "Oslo\nNorway", "zip": 150}, "tags": ["red", "blue"],
         "active": True, "score": 2.5, "joined": datetime.datetime(2024, 1, 2, 3, 4, 5, 678000)},
        {"_id": 2, "name": "Bob", "tags": [], "active": False, "score": 10, "n": None},
    ])
    result = export_ok(quarry_tool, server, db, "--type", "csv", "--sort", '{"name": 1}',
                       "--fields", "_id,name,address.city,address,tags.1,active,score,joined,"
                       "missing")
    rows = list(csv.reader(io.StringIO(result.stdout, newline="")))
    assert rows == [
        ["_id", "name", "address.city", "address", "tags.1", "active", "score", "joined",
         "missing"],
        ["ObjectId(65a1b2c3d4e5f60718293a4b)", 'Ann "Jr", Smith', "Oslo\nNorway",
         '{"city":"Oslo\\nNorway","zip":150}', "blue", "true", "2.5",
         "2024-01-02T03:04:05.678Z", ""],
        ["2", "Bob", "", "", "", "false", "10", "", ""],
    ]
    assert result.stdout.startswith("_id,name,address.city,address,tags.1,")
    assert '"Ann ""Jr"", Smith"' in result.stdout
    assert last_stderr_line(result) == "exported 2 records"


def test_csv_without_header_line(quarry_tool, server, db):
    db.c.insert_one({"_id": 1, "a": "x"})
    result = export_ok(quarry_tool, server, db, "--type=csv", "-f", "a,_id", "--noHeaderLine")
    assert result.stdout == "x,1\n"
    assert last_stderr_line(result) == "exported 1 record"


def test_csv_without_fields_is_a_bad_argument(quarry_tool, server, db):
    result = export(quarry_tool, server, db, "--type", "csv")
    assert result.returncode == 2
    assert result.stderr.strip() == "quarry export: CSV mode requires a field list"
    assert result.stdout == ""


def test_unknown_type_is_a_bad_argument(quarry_tool, server, db):
    result = export(quarry_tool, server, db, "--type", "xml")
    assert result.returncode == 2
    assert "xml" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_bad_query_is_a_bad_argument(quarry_tool, server, db):
    result = export(quarry_tool, server, db, "--query", "{x: ")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quarry export: --query")


def test_missing_collection_is_a_bad_argument(quarry_tool, server):
    result = subprocess.run([quarry_tool, "export", "--uri", server.uri()], capture_output=True,
                            text=True, timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert "collection" in result.stderr


def test_server_error_is_one_line_and_exit_1(quarry_tool, server, db, tmp_path):
    db.c.insert_one({"_id": 1})
    out = tmp_path / "keep.json"
    out.write_text("previous export\n")
    result = export(quarry_tool, server, db, "--query", '{"$notAnOperator": 1}', "-o", str(out))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quarry export: ")
    assert "$notAnOperator" in lines[0]
    assert out.read_text() == "previous export\n"


def test_unreachable_server_fails_quickly(quarry_tool):
    uri = f"mongodb://127.0.0.1:{free_port()}/?serverSelectionTimeoutMS=1000"
    started = time.monotonic()
    result = subprocess.run([quarry_tool, "export", "--uri", uri, "-c", "c"], capture_output=True,
                            text=True, timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert result.returncode == 1
    assert time.monotonic() - started < 10
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quarry export: ") and "127.0.0.1" in lines[0]


def test_out_writes_a_file(quarry_tool, server, db, tmp_path):
    docs = [{"_id": i, "v": "x" * i} for i in range(5)]
    db.c.insert_many(docs)
    out = tmp_path / "sub" / "dir" / "c.json"
    result = export_ok(quarry_tool, server, db, "-o", str(out))
    assert result.stdout == ""
    assert [json_util.loads(line) for line in out.read_text().splitlines()] == docs
    assert last_stderr_line(result) == "exported 5 records"


def test_full_disk_is_a_run_failure(quarry_tool, server, db):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    db.c.insert_one({"_id": 1})
    result = export(quarry_tool, server, db, "-o", "/dev/full")
    assert result.returncode == 1
    assert result.stderr.strip() == ("quarry export: cannot write to /dev/full: "
                                     "No space left on device")


def insert_many_documents(db, count):
    batch = [{"_id": i, "name": f"user{i}", "n": i, "tags": ["a", "b"]} for i in range(count)]
    db.c.insert_many(batch, ordered=False)


def test_twenty_thousand_documents_stream_out(quarry_tool, server, db):
    insert_many_documents(db, 20000)
    result = export_ok(quarry_tool, server, db)
    lines = result.stdout.splitlines()
    assert len(lines) == 20000
    assert sorted(json.loads(line)["_id"] for line in lines) == list(range(20000))
    assert last_stderr_line(result) == "exported 20000 records"
    csv_result = export_ok(quarry_tool, server, db, "--type", "csv", "-f", "_id,name")
    assert len(csv_result.stdout.splitlines()) == 20001


def test_closed_pipe_is_a_run_failure(quarry_tool, server, db):
    insert_many_documents(db, 20000)
    proc = subprocess.Popen([quarry_tool, "export", "--uri", server.uri(), "--db", db.name,
                             "-c", "c"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    proc.stdout.readline()
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=RUN_TIMEOUT_S) == 1
    assert stderr.strip() == "quarry export: cannot write to standard output: Broken pipe"
