"""Smoke tests of `quarry bench` against a real quarryd: each subcommand runs on tiny sizes and
prints the table the issue asks for (text, --json, --chart), and bad input ends with one clear
line and a non-zero exit.

The tool is the `quarry_tool` fixture (tests/integration/conftest.py).
"""

import json
import shutil
import subprocess

import pytest

from quarry_server import free_port

NETWORK_COLUMNS = ["compressor", "phase", "records", "seconds", "records/s", "MB/s",
                   "physicalBytesIn", "physicalBytesOut", "saving %"]
NETWORK_KEYS = ["compressor", "phase", "records", "seconds", "records_per_second",
                "megabytes_per_second", "physical_bytes_in", "physical_bytes_out",
                "saving_percent"]
BULK_KEYS = ["round", "write_concern", "documents", "seconds", "documents_per_second",
             "megabytes_per_second", "seen_after", "all_seen",
             "time_per_document_vs_acknowledged_bulk", "note"]
BULK_ROUNDS = ["acknowledged one-by-one", "acknowledged bulk", "unacknowledged bulk",
               "unacknowledged bulk + getLastError", "journaled bulk"]
RUN_TIMEOUT_S = 120





def run(tool, *args):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                          stdin=subprocess.DEVNULL)


def table_rows(stdout, columns):
    """The rows of a text table as lists of cells, found by its heading line."""
    lines = stdout.splitlines()
    heading = next(i for i, line in enumerate(lines) if line.startswith(columns[0] + " "))
    rule = lines[heading + 1]
    # Column boundaries come from the rule of dashes under the headings.
    spans, start = [], None
    for i, ch in enumerate(rule + " "):
        if ch == "-" and start is None:
            start = i
        elif ch != "-" and start is not None:
            spans.append((start, i))
            start = None
    headings = [lines[heading][a:b].strip() for a, b in spans]
    assert headings == columns, headings
    rows = []
    for line in lines[heading + 2:]:
        if not line.strip():  # a blank line ends the table; notes follow
            break
        rows.append([line[a:b].strip() for a, b in spans])
    return rows


# --- quarry bench network ---------------------------------------------------------------------

def test_network_prints_a_write_and_a_read_row_per_compressor(server, quarry_tool):
    result = run(quarry_tool, "bench", "network", "--uri", server.uri(), "--megabytes", "0.3",
                 "--batch-size", "20")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    rows = table_rows(result.stdout, NETWORK_COLUMNS)
    assert [(r[0], r[1]) for r in rows] == [(c, p) for c in ("none", "snappy", "zlib", "zstd")
                                            for p in ("write", "read")]
    records = {r[2] for r in rows}
    assert len(records) == 1 and int(records.pop()) > 10
    by_name = {(r[0], r[1]): r for r in rows}
    assert float(by_name[("none", "read")][8]) == 0.0
    # Generated listings compress: every compressor saves bytes in both directions.
    for name in ("snappy", "zlib", "zstd"):
        for phase in ("write", "read"):
            assert float(by_name[(name, phase)][8]) > 20, by_name[(name, phase)]
    # A write moves the data in, a read moves it out.
    none_write, none_read = by_name[("none", "write")], by_name[("none", "read")]
    assert int(none_write[6]) > 250_000 and int(none_read[7]) > 250_000


def test_network_json_has_the_same_columns_and_one_object_per_row(server, quarry_tool):
    result = run(quarry_tool, "bench", "network", "--uri", server.uri(), "--megabytes", "0.1",
                 "--compressors", "none,zstd", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["benchmark"] == "network"
    assert [c["key"] for c in report["columns"]] == NETWORK_KEYS
    assert [c["heading"] for c in report["columns"]] == NETWORK_COLUMNS
    assert [(r["compressor"], r["phase"]) for r in report["rows"]] == [
        ("none", "write"), ("none", "read"), ("zstd", "write"), ("zstd", "read")]
    zstd_read = report["rows"][3]
    assert zstd_read["saving_percent"] > 50
    assert zstd_read["physical_bytes_out"] > 0 and zstd_read["records_per_second"] > 0
    assert report["parameters"]["uri"] == server.uri()


def test_network_chart_writes_an_svg_bar_chart(server, quarry_tool, tmp_path):
    chart = tmp_path / "network.svg"
    result = run(quarry_tool, "bench", "network", "--uri", server.uri(), "--megabytes", "0.1",
                 "--compressors", "none,snappy", "--chart", str(chart))
    assert result.returncode == 0, result.stderr
    svg = chart.read_text()
    assert svg.startswith("<?xml") and "<svg" in svg and svg.rstrip().endswith("</svg>")
    assert svg.count('class="bar"') == 2 * 4  # two panels, four rows
    assert ">none write</text>" in svg


def test_network_zlib_level_is_accepted(server, quarry_tool):
    result = run(quarry_tool, "bench", "network", "--uri", server.uri(), "--megabytes", "0.05",
                 "--compressors", "zlib", "--zlib-level", "1", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["parameters"]["zlib level"] == 1


# --- quarry bench bulk ------------------------------------------------------------------------

def test_bulk_runs_every_round_and_each_read_sees_every_document(server, quarry_tool):
    result = run(quarry_tool, "bench", "bulk", "--uri", server.uri(), "--documents", "400",
                 "--one-by-one-documents", "50", "--size", "500")
    assert result.returncode == 0, result.stderr
    rows = table_rows(result.stdout, ["round", "write concern", "documents", "seconds",
                                      "documents/s", "MB/s", "seen after", "all seen",
                                      "time/doc vs w:1 bulk", "note"])
    assert [r[0] for r in rows] == BULK_ROUNDS
    assert [r[1] for r in rows] == ["w:1", "w:1", "w:0", "w:0", "j:true"]
    assert [int(r[2]) for r in rows] == [50, 400, 400, 400, 400]
    assert all(r[7] == "yes" and r[6] == r[2] for r in rows), rows
    assert all(float(r[4]) > 0 for r in rows)
    assert rows[1][8] == "1.00"
    assert rows[3][9] == "-"  # getLastError reported no error


def test_bulk_json_with_listing_documents(server, quarry_tool):
    result = run(quarry_tool, "bench", "bulk", "--uri", server.uri(), "--documents", "200",
                 "--size", "2kb", "--shape", "listing", "--rounds", "bulk,journaled", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [c["key"] for c in report["columns"]] == BULK_KEYS
    assert [r["round"] for r in report["rows"]] == ["acknowledged bulk", "journaled bulk"]
    for row in report["rows"]:
        assert row["documents"] == 200 and row["seen_after"] == 200 and row["all_seen"] == "yes"
        # 200 documents of exactly 2,000 bytes
        assert row["megabytes_per_second"] == pytest.approx(
            0.4 / row["seconds"], rel=1e-6)
    assert report["parameters"]["shape"] == "listing"


def test_bulk_chart_has_a_bar_per_round(server, quarry_tool, tmp_path):
    chart = tmp_path / "bulk.svg"
    result = run(quarry_tool, "bench", "bulk", "--uri", server.uri(), "--documents", "100",
                 "--rounds", "bulk,unack", "--chart", str(chart))
    assert result.returncode == 0, result.stderr
    svg = chart.read_text()
    assert svg.count('class="bar"') == 2
    assert ">unacknowledged bulk</text>" in svg


# --- bad input: one line on stderr, non-zero exit ----------------------------------------------

def assert_one_line_error(result, code, *fragments):
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


# --- quarry bench large-docs ------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
def test_large_docs_compares_every_codec_and_compressor(server, quarry_tool, tmp_path):
    chart = tmp_path / "large.svg"
    result = run(quarry_tool, "bench", "large-docs", "--uri", server.uri(), "--sizes", "0.2,0.5",
                 "--repeat", "1", "--gridfs-mb", "3", "--server-pid", str(server.pid), "--json",
                 "--chart", str(chart))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["benchmark"] == "large-docs"
    rows = [(r["megabytes"], r["system"], r["codec"]) for r in report["rows"]]
    codecs = ["none", "brotli-1", "gzip-3", "deflate-3", "msgpack"]
    wire = ["wire none", "wire snappy", "wire zstd"]
    assert rows == [(mb, "Redis", c) for c in codecs for mb in [0.2]] + \
        [(0.2, "Quarry", w) for w in wire] + [(0.5, "Redis", c) for c in codecs] + \
        [(0.5, "Quarry", w) for w in wire] + [(3, "Quarry", "GridFS")]
    for row in report["rows"]:
        assert row["put_get_ms"] > 0 and row["wire_up_kilobytes"] > 0
        assert row["server_cpu_ms"] is not None
        # Redis's value size is known; Quarry's storage is not a per-document figure.
        assert (row["stored_kilobytes"] is None) == (row["system"] == "Quarry")
    # The GridFS file moved once each way (random bytes: no compression to hide behind).
    gridfs = report["rows"][-1]
    assert 3000 <= gridfs["wire_up_kilobytes"] < 3300 and 3000 <= gridfs["wire_down_kilobytes"] < 3300
    assert any(n.startswith("GridFS") and "MB/s" in n for n in report["notes"])
    by_codec = {(r["megabytes"], r["codec"]): r for r in report["rows"]}
    # Compression shows in the bytes that crossed the wire.
    assert by_codec[(0.5, "brotli-1")]["wire_up_kilobytes"] < by_codec[(0.5, "none")]["wire_up_kilobytes"] / 3
    assert by_codec[(0.5, "wire zstd")]["wire_down_kilobytes"] < \
        by_codec[(0.5, "wire none")]["wire_down_kilobytes"] / 3
    assert "<svg" in chart.read_text() and chart.read_text().count("class=\"bar\"") == 2 * len(rows)


def test_large_docs_refuses_a_redis_address_without_a_port(server, quarry_tool):
    result = run(quarry_tool, "bench", "large-docs", "--uri", server.uri(), "--redis", "localhost")
    assert_one_line_error(result, 2, "--redis takes HOST:PORT")
    result = run(quarry_tool, "bench", "large-docs", "--uri", server.uri(), "--redis-pid", "5")
    assert_one_line_error(result, 2, "--redis-pid is for a Redis given with --redis")


@pytest.mark.parametrize("command", ["network", "bulk"])
def test_unreachable_uri_fails_with_one_line(quarry_tool, command):
    uri = f"mongodb://127.0.0.1:{free_port()}/?serverSelectionTimeoutMS=2000"
    result = run(quarry_tool, "bench", command, "--uri", uri)
    assert_one_line_error(result, 1, f"quarry bench {command}:", "cannot reach", uri)


def test_malformed_uri_fails_with_one_line(quarry_tool):
    result = run(quarry_tool, "bench", "bulk", "--uri", "http://nowhere")
    assert_one_line_error(result, 1, "invalid URI")


def test_a_compressor_the_server_refuses_fails_before_any_data_moves(make_server, quarry_tool):
    snappy_only = make_server("snappy-only",
                              extra_args=["--networkMessageCompressors", "snappy"])
    result = run(quarry_tool, "bench", "network", "--uri", snappy_only.uri(),
                 "--compressors", "none,snappy,zstd", "--megabytes", "0.05")
    assert_one_line_error(result, 1, "refused compressor zstd")


@pytest.mark.parametrize("args, fragment", [
    (["bench", "network", "--no-such-option"], "--no-such-option"),
    (["bench", "bulk", "--documents", "many"], "--documents"),
    (["bench"], "subcommand"),
    (["bench", "network", "--compressors", "lz4"], "unknown compressor 'lz4'"),
    (["bench", "network", "--zlib-level", "12"], "--zlib-level"),
    (["bench", "bulk", "--size", "big"], "invalid size 'big'"),
    (["bench", "bulk", "--rounds", "bulk,fast"], "unknown round 'fast'"),
    (["bench", "bulk", "--shape", "cube"], "unknown shape 'cube'"),
])
def test_bad_arguments_fail_with_one_line_and_status_2(quarry_tool, args, fragment):
    result = run(quarry_tool, *args, "--uri", "mongodb://127.0.0.1:1") if args != ["bench"] \
        else run(quarry_tool, *args)
    assert_one_line_error(result, 2, fragment)


def test_help_lists_the_options(quarry_tool):
    result = run(quarry_tool, "bench", "network", "--help")
    assert result.returncode == 0
    for option in ("--uri", "--compressors", "--zlib-level", "--megabytes", "--batch-size",
                   "--json", "--chart"):
        assert option in result.stdout
