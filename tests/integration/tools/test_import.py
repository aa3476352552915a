"""`quarry import` against a real quarryd, as mongoimport users run it: Extended JSON in its
canonical, relaxed and legacy spellings (written by pymongo's own json_util), --jsonArray and
pretty-printed input, CSV and TSV with header lines, field lists and typed columns, the four
modes, --drop, --stopOnError, parallel workers, stdin, errors that name file and line, the
closing "N documents imported, M failed" line, an import -> export round trip, and flat memory
when the server is slow.

The tool is the `quarry_tool` fixture (tests/integration/conftest.py).
"""

import datetime
import math
import uuid
import os
import pty
import re
import subprocess
import time

import pymongo
import pytest
from bson import json_util
from bson.decimal128 import Decimal128
from bson.binary import UuidRepresentation
from bson.int64 import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from bson.objectid import ObjectId
from bson.regex import Regex
from bson.timestamp import Timestamp
from bson.binary import Binary

from bson_samples import every_type_document
from quarry_server import free_port

RUN_TIMEOUT_S = 120


def run_import(tool, server, db, *args, coll="c", stdin_text=None):
    command = [tool, "import", "--uri", server.uri(), "--db", db.name]
    if coll is not None:
        command += ["-c", coll]
    return subprocess.run(command + list(args), capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, input=stdin_text,
                          stdin=None if stdin_text is not None else subprocess.DEVNULL)


def import_file(tool, server, db, tmp_path, text, *args, name="input.json", coll="c"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return run_import(tool, server, db, "--file", str(path), *args, coll=coll), str(path)


def summary(result):
    return result.stderr.strip().splitlines()[-1]



@pytest.mark.parametrize("options", ["CANONICAL", "RELAXED", "LEGACY"])
def test_every_bson_type_written_by_json_util_imports_as_it_was(quarry_tool, server, db, tmp_path,
                                                                options):
    json_options = json_util.JSONOptions(json_mode=getattr(json_util.JSONMode, options),
                                         uuid_representation=UuidRepresentation.STANDARD)
    documents = [every_type_document(), {"_id": 2, "plain": "x"}]
    text = "".join(json_util.dumps(d, json_options=json_options) + "\n" for d in documents)
    result, _ = import_file(quarry_tool, server, db, tmp_path, text)
    assert result.returncode == 0, result.stderr
    assert summary(result) == "2 documents imported, 0 failed"
    # The oracle: the same documents inserted by pymongo, read back alike.
    db.reference.insert_many(documents)
    assert list(db.c.find().sort("_id", -1)) == list(db.reference.find().sort("_id", -1))
    # Integer types survive exactly where the JSON says which one.
    if options == "CANONICAL":
        doc = db.c.find_one({"_id": documents[0]["_id"]})
        assert isinstance(doc["int64"], Int64) and isinstance(doc["small_int64"], Int64)


def test_the_mongo_shell_syntax_imports_as_mongoimport_reads_it(quarry_tool, server, db, tmp_path):
    text = """{_id: 1, oid: ObjectId("5f1d7f3e9d1b2c3a4b5c6d7e"), 'when': ISODate("2024-02-29T12:00:00Z"),
  n: NumberLong("9007199254740993"), i: NumberInt(7), d: NumberDecimal("1.10"), r: /^a[/]b$/i,
  ts: Timestamp(1700000000, 3), u: UUID("0123456789abcdef0123456789abcdef"), nan: NaN,
  neg: -Infinity, bin: BinData(0, "AQID"), lo: MinKey, hi: MaxKey, // a comment
  old: new Date(0), hex: 0x10, list: [1, 'two',],}
{_id: 2, s: 'it\\'s {"quoted"}'}
{_id: 3, x: Foo(1)}
"""
    result, path = import_file(quarry_tool, server, db, tmp_path, text)
    assert result.returncode == 0, result.stderr
    errors = result.stderr.strip().splitlines()[:-1]
    assert summary(result) == "2 documents imported, 1 failed"
    assert len(errors) == 1 and errors[0].startswith(f"{path}:7: invalid JSON"), errors
    assert "unknown constructor 'Foo'" in errors[0]
    # The oracle: pymongo's own types for what the shell's constructors mean.
    doc = db.c.find_one({"_id": 1})
    assert doc["oid"] == ObjectId("5f1d7f3e9d1b2c3a4b5c6d7e")
    assert doc["when"] == datetime.datetime(2024, 2, 29, 12)
    assert doc["n"] == Int64(9007199254740993) and isinstance(doc["n"], Int64)
    assert doc["i"] == 7 and not isinstance(doc["i"], Int64)
    assert doc["d"] == Decimal128("1.10")
    assert doc["r"] == Regex("^a[/]b$", "i")
    assert doc["ts"] == Timestamp(1700000000, 3)
    assert doc["u"] in (uuid.UUID("01234567-89ab-cdef-0123-456789abcdef"),
                        Binary(bytes.fromhex("0123456789abcdef0123456789abcdef"), 4))
    assert math.isnan(doc["nan"]) and doc["neg"] == float("-inf")
    assert doc["bin"] == b"\x01\x02\x03" and doc["lo"] == MinKey() and doc["hi"] == MaxKey()
    assert doc["old"] == datetime.datetime(1970, 1, 1) and doc["hex"] == 16
    assert doc["list"] == [1, "two"]
    assert db.c.find_one({"_id": 2}) == {"_id": 2, "s": 'it\'s {"quoted"}'}


def test_json_array_and_pretty_printed_documents(quarry_tool, server, db, tmp_path):
    text = '[\n  {\n    "_id": 1,\n    "tags": ["a", "b"]\n  },\n  {"_id": 2, "s": "} ] {"}\n]\n'
    result, _ = import_file(quarry_tool, server, db, tmp_path, text, "--jsonArray")
    assert result.returncode == 0, result.stderr
    assert list(db.c.find().sort("_id", 1)) == [{"_id": 1, "tags": ["a", "b"]},
                                                {"_id": 2, "s": "} ] {"}]
    pretty = '{\n  "_id": 3,\n  "n": {"$numberLong": "7"}\n}\n{"_id": 4}'
    result, _ = import_file(quarry_tool, server, db, tmp_path, pretty, name="pretty.json")
    assert result.returncode == 0, result.stderr
    assert db.c.find_one({"_id": 3}) == {"_id": 3, "n": Int64(7)}
    assert db.c.count_documents({}) == 4


def test_bad_documents_are_reported_by_file_and_line_and_the_rest_imported(quarry_tool, server, db,
                                                                          tmp_path):
    text = ('{"_id": 1}\n{"_id": 2, "x": tru}\n{"_id": 1}\n'
            '{"_id": 4, "d": {"$date": "not a date"}}\n{"_id": 5, "s": "\xff"}\n{"_id": 6}\n')
    result, path = import_file(quarry_tool, server, db, tmp_path, text.encode("latin-1"))
    assert result.returncode == 0, result.stderr
    errors = result.stderr.strip().splitlines()[:-1]
    assert any(e.startswith(f"{path}:2: invalid JSON: a bad literal where true or false was "
                            "expected (nor the shell's syntax: line 1, column 17: unknown name "
                            "'tru')") for e in errors), errors
    assert any(e.startswith(f"{path}:3: ") and "E11000" in e for e in errors), errors
    assert f'{path}:4: invalid Extended JSON $date: not an ISO-8601 date: "not a date"' in errors
    assert any(e.startswith(f"{path}:5: invalid JSON") for e in errors), errors
    assert summary(result) == "2 documents imported, 4 failed"
    assert sorted(d["_id"] for d in db.c.find()) == [1, 6]


def test_stop_on_error_keeps_what_came_before_and_nothing_after(quarry_tool, server, db, tmp_path):
    text = "".join('{"_id": %d}\n' % i for i in range(1, 6)) + '{"_id": 3}\n{"_id": 100}\n'
    result, path = import_file(quarry_tool, server, db, tmp_path, text, "--stopOnError")
    assert result.returncode == 1
    assert any(line.startswith(f"{path}:6: ") and "E11000" in line
               for line in result.stderr.splitlines()), result.stderr
    assert "5 documents imported, 1 failed" in result.stderr
    assert sorted(d["_id"] for d in db.c.find()) == [1, 2, 3, 4, 5]

    db.d.drop()
    text = '{"_id": 1}\n{"_id": 2}\n{"_id": oops}\n{"_id": 4}\n'
    result, path = import_file(quarry_tool, server, db, tmp_path, text, "--stopOnError",
                               coll="d", name="d.json")
    assert result.returncode == 1
    assert sorted(d["_id"] for d in db.d.find()) == [1, 2]
    assert "2 documents imported, 1 failed" in result.stderr


def test_a_truncated_file_imports_what_precedes_the_damage_and_says_where(quarry_tool, server, db,
                                                                          tmp_path):
    text = '{"_id": 1}\n{"_id": 2}\n{"_id": 3, "a": [1,\n 2'
    result, path = import_file(quarry_tool, server, db, tmp_path, text)
    assert result.returncode == 1
    assert f"{path}: line 3: the input ends inside the document that starts here" in result.stderr
    assert sorted(d["_id"] for d in db.c.find()) == [1, 2]
    assert "2 documents imported, 1 failed" in result.stderr


def test_maintain_insertion_order_continues_after_a_failure(quarry_tool, server, db, tmp_path):
    text = '{"_id": 1, "n": 1}\n{"_id": 1, "n": 2}\n{"_id": 2, "n": 3}\n{"_id": 3, "n": 4}\n'
    result, _ = import_file(quarry_tool, server, db, tmp_path, text, "--maintainInsertionOrder")
    assert result.returncode == 0, result.stderr
    assert summary(result) == "3 documents imported, 1 failed"
    assert [d["n"] for d in db.c.find().sort("_id", 1)] == [1, 3, 4]


def test_modes_upsert_merge_and_delete(quarry_tool, server, db, tmp_path):
    db.c.insert_many([{"_id": 1, "a": 1, "b": 1}, {"_id": 2, "a": 2, "b": 2},
                      {"_id": 3, "key": "k3", "a": 3}])
    result, _ = import_file(quarry_tool, server, db, tmp_path,
                            '{"_id": 1, "a": 10}\n{"_id": 9, "a": 9}\n', "--mode", "upsert")
    assert result.returncode == 0, result.stderr
    assert db.c.find_one({"_id": 1}) == {"_id": 1, "a": 10}  # replaced
    assert db.c.find_one({"_id": 9}) == {"_id": 9, "a": 9}  # inserted

    result, _ = import_file(quarry_tool, server, db, tmp_path,
                            '{"_id": 2, "c": 20}\n{"_id": 8, "c": 8}\n', "--mode", "merge",
                            name="merge.json")
    assert result.returncode == 0, result.stderr
    assert db.c.find_one({"_id": 2}) == {"_id": 2, "a": 2, "b": 2, "c": 20}
    assert db.c.find_one({"_id": 8}) == {"_id": 8, "c": 8}

    # --upsertFields alone means upsert, matched by those fields.
    result, _ = import_file(quarry_tool, server, db, tmp_path, '{"key": "k3", "a": 30}\n',
                            "--upsertFields", "key", name="by_key.json")
    assert result.returncode == 0, result.stderr
    doc = db.c.find_one({"key": "k3"})
    assert doc["_id"] == 3 and doc["a"] == 30

    result, _ = import_file(quarry_tool, server, db, tmp_path,
                            '{"_id": 9}\n{"_id": 8}\n{"_id": 777}\n', "--mode", "delete",
                            name="delete.json")
    assert result.returncode == 0, result.stderr
    assert sorted(d["_id"] for d in db.c.find()) == [1, 2, 3]

    result = run_import(quarry_tool, server, db, "--mode", "insert", "--upsertFields", "key")
    assert result.returncode == 2
    assert "--upsertFields needs --mode upsert, merge or delete" in result.stderr


def test_drop_replaces_the_collection(quarry_tool, server, db, tmp_path):
    db.c.insert_many([{"_id": i} for i in range(5)])
    result, _ = import_file(quarry_tool, server, db, tmp_path, '{"_id": 100}\n', "--drop")
    assert result.returncode == 0, result.stderr
    assert [d["_id"] for d in db.c.find()] == [100]


def test_csv_with_header_line_quoting_nesting_and_inferred_types(quarry_tool, server, db, tmp_path):
    text = ('name,age,score,address.city,address.zip,note\r\n'
            'ann,30,1.5,"Paris, FR",75001,"said ""hi""\nand left"\r\n'
            '\r\n'
            'bob,4294967296,x,Rome,,\r\n')
    result, _ = import_file(quarry_tool, server, db, tmp_path, text, "--type", "csv",
                            "--headerline", name="people.csv", coll=None)
    assert result.returncode == 0, result.stderr
    assert summary(result) == "2 documents imported, 0 failed"
    # Without -c the collection is named after the file.
    people = {d["name"]: d for d in db.people.find({}, {"_id": 0})}
    assert people["ann"] == {"name": "ann", "age": 30, "score": 1.5,
                             "address": {"city": "Paris, FR", "zip": 75001},
                             "note": 'said "hi"\nand left'}
    assert people["bob"] == {"name": "bob", "age": Int64(4294967296), "score": "x",
                             "address": {"city": "Rome", "zip": ""}, "note": ""}

    result, _ = import_file(quarry_tool, server, db, tmp_path, "carl,,\n", "--type", "csv",
                            "--fields", "name,age,city", "--ignoreBlanks", name="more.csv",
                            coll="people")
    assert result.returncode == 0, result.stderr
    assert db.people.find_one({"name": "carl"}, {"_id": 0}) == {"name": "carl"}


def test_typed_columns_field_files_and_tsv(quarry_tool, server, db, tmp_path):
    fields = tmp_path / "fields.txt"
    fields.write_text("id.int64()\nwhen.date(2006-01-02 15:04:05)\nok.boolean()\n"
                      "price.decimal()\nraw.binary(hex)\nlabel.string()\n")
    text = "7\t2024-01-02 03:04:05\ttrue\t9.90\t0aff\t007\n"
    result, _ = import_file(quarry_tool, server, db, tmp_path, text, "--type", "tsv",
                            "--fieldFile", str(fields), "--columnsHaveTypes", name="t.tsv")
    assert result.returncode == 0, result.stderr
    assert db.c.find_one({}, {"_id": 0}) == {
        "id": Int64(7), "when": datetime.datetime(2024, 1, 2, 3, 4, 5), "ok": True,
        "price": Decimal128("9.90"), "raw": b"\x0a\xff", "label": "007"}

    result, path = import_file(quarry_tool, server, db, tmp_path, "x,1\n", "--type", "csv",
                               "--fields", "n.int32(),m.int32()", "--columnsHaveTypes",
                               name="bad.csv", coll="bad")
    assert result.returncode == 1
    assert f'{path}:1: column "n": cannot read "x" as its type' in result.stderr
    assert db.bad.count_documents({}) == 0


def test_ragged_and_malformed_csv_is_reported(quarry_tool, server, db, tmp_path):
    text = 'a,b\n1,2\n3,4,5\n6\n"7,8\n'
    result, path = import_file(quarry_tool, server, db, tmp_path, text, "--type", "csv",
                               "--headerline", name="ragged.csv")
    assert result.returncode == 1
    assert f"{path}:3: the record has 3 fields but only 2 columns are named" in result.stderr
    assert f"{path}: line 5: the input ends inside a quoted field" in result.stderr
    assert sorted(d["a"] for d in db.c.find()) == [1, 6]
    assert "2 documents imported, 2 failed" in result.stderr


def test_stdin_needs_a_collection_and_then_works(quarry_tool, server, db):
    result = run_import(quarry_tool, server, db, coll=None, stdin_text='{"a": 1}\n')
    assert result.returncode == 2
    assert "--collection is needed when the input is stdin" in result.stderr
    result = run_import(quarry_tool, server, db, stdin_text='{"a": 1}\n{"a": 2}\n')
    assert result.returncode == 0, result.stderr
    assert summary(result) == "2 documents imported, 0 failed"
    assert db.c.count_documents({}) == 2


def test_bad_arguments_exit_2_with_one_clear_line(quarry_tool, server, db, tmp_path):
    cases = [
        (["--type", "xml"], "unknown --type xml (json, csv or tsv)"),
        (["--type", "csv"], "CSV and TSV need the field names: --headerline, --fields or --fieldFile"),
        (["--headerline"], "--headerline, --fields and --fieldFile are for CSV and TSV"),
        (["--parseGrace", "skipRow"], "--parseGrace are for CSV and TSV"),
        (["--mode", "replace"], "unknown --mode replace (insert, upsert, merge or delete)"),
        (["--writeConcern", "{w: 1, x: 2}"], "--writeConcern: unknown option x (w, j, wtimeout)"),
        (["--file", str(tmp_path / "missing.json")], "cannot open"),
    ]
    for args, message in cases:
        result = run_import(quarry_tool, server, db, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, (args, result.stderr)
    result = subprocess.run([quarry_tool, "import", "--no-such-flag"], capture_output=True,
                            text=True, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 2


def test_an_unreachable_server_fails_quickly(quarry_tool, tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"a": 1}\n')
    uri = f"mongodb://127.0.0.1:{free_port()}/?serverSelectionTimeoutMS=500"
    started = time.monotonic()
    result = subprocess.run([quarry_tool, "import", "--uri", uri, "-c", "c", "--file", str(path)],
                            capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 1
    assert result.stderr.startswith("quarry import: ")
    assert time.monotonic() - started < 10


def test_parallel_workers_and_a_write_concern_import_everything(quarry_tool, server, db, tmp_path):
    text = "".join('{"_id": %d, "pad": "%s"}\n' % (i, "x" * 100) for i in range(20000))
    result, _ = import_file(quarry_tool, server, db, tmp_path, text, "--numInsertionWorkers", "4",
                            "--writeConcern", "{w: 'majority', j: true}", "--batchSize", "500")
    assert result.returncode == 0, result.stderr
    assert summary(result) == "20000 documents imported, 0 failed"
    assert db.c.count_documents({}) == 20000
    assert db.c.find_one({"_id": 19999})["pad"] == "x" * 100


def test_import_then_export_gives_back_the_same_documents(quarry_tool, server, db, tmp_path):
    documents = [every_type_document() for _ in range(3)]
    json_options = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL,
                                         uuid_representation=UuidRepresentation.STANDARD)
    text = "".join(json_util.dumps(d, json_options=json_options) + "\n" for d in documents)
    result, _ = import_file(quarry_tool, server, db, tmp_path, text)
    assert result.returncode == 0, result.stderr
    exported = tmp_path / "out.json"
    result = subprocess.run([quarry_tool, "export", "--uri", server.uri(), "--db", db.name,
                             "-c", "c", "--jsonFormat", "canonical", "-o", str(exported)],
                            capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    result = run_import(quarry_tool, server, db, "--file", str(exported), coll="copy")
    assert result.returncode == 0, result.stderr
    original = list(db.c.find().sort("_id", 1))
    db.reference.insert_many(documents)
    assert original == list(db.reference.find().sort("_id", 1))
    assert list(db.copy.find().sort("_id", 1)) == original


def peak_rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


@pytest.mark.slow
def test_memory_stays_flat_while_a_slow_server_holds_the_reader_back(quarry_tool, make_server,
                                                                    tmp_path):
    server = make_server("import_slow_server", extra_args=["--enableTestCommands"])
    client = pymongo.MongoClient(server.uri())
    db = client.slow
    # 60 MB of 1 KB documents; the server takes 20 ms more for every insert it receives, so the
    # reader must wait for the workers rather than read ahead.
    path = tmp_path / "big.json"
    pad = "y" * 1000
    with open(path, "w") as out:
        for i in range(60000):
            out.write('{"_id": %d, "pad": "%s"}\n' % (i, pad))
    client.admin.command("configureFailPoint", "failCommand", mode="alwaysOn",
                         data={"failCommands": ["insert"], "blockConnection": True,
                               "blockTimeMS": 20})
    try:
        proc = subprocess.Popen([quarry_tool, "import", "--uri", server.uri(), "--db", db.name,
                                 "-c", "c", "--file", str(path)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, peak_rss_kb(proc.pid))
            time.sleep(0.05)
        stderr = proc.stderr.read()
    finally:
        client.admin.command("configureFailPoint", "failCommand", mode="off")
    assert proc.returncode == 0, stderr
    assert stderr.strip().splitlines()[-1] == "60000 documents imported, 0 failed"
    assert db.c.count_documents({}) == 60000
    client.close()
    server.stop()
    # The whole file is 60 MB; a reader that does not wait would hold most of it. An
    # AddressSanitizer build keeps freed memory in quarantine, so its RSS says nothing here.
    if "ASAN_OPTIONS" not in os.environ:
        assert 0 < peak < 40 * 1024, f"peak RSS {peak} kB"


@pytest.mark.slow
def test_a_terminal_sees_a_progress_bar_with_counts_rate_and_eta(quarry_tool, make_server, tmp_path):
    # A slow server keeps the import running past the bar's one-second delay.
    server = make_server("import_progress", extra_args=["--enableTestCommands"])
    client = pymongo.MongoClient(server.uri())
    path = tmp_path / "progress.json"
    path.write_text("".join('{"_id": %d, "pad": "%s"}\n' % (i, "z" * 200) for i in range(30000)))
    client.admin.command("configureFailPoint", "failCommand", mode="alwaysOn",
                         data={"failCommands": ["insert"], "blockConnection": True,
                               "blockTimeMS": 60})
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([quarry_tool, "import", "--uri", server.uri(), "-d", "p", "-c", "c",
                                 "--file", str(path)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        output = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            output += chunk
        assert proc.wait(timeout=RUN_TIMEOUT_S) == 0
    finally:
        os.close(master)
        client.admin.command("configureFailPoint", "failCommand", mode="off")
        client.close()
        server.stop()
    text = output.decode(errors="replace")
    frames = [f for f in text.split("\r") if f.startswith("import [")]
    assert frames, text
    assert re.search(r"import \[[#.]+\] +\d+%  [\d.]+ s  \d+ docs [\d.]+ MB \d+/s ETA \d+s", frames[-1]), frames[-1]
    # The bar is erased at the end, and the closing line follows it.
    assert text.rstrip().endswith("30000 documents imported, 0 failed")
