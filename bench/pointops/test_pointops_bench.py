"""Runs bench/pointops/run.sh in its quick mode against a fresh quarryd and redis-server and
checks what its tables say: every row is there, the numbers are sane, ratios and verdicts
follow from the rows; and, in a second short run, that --strace counts the server's system
calls per request.

  /usr/bin/python3 -m pytest bench/pointops/test_pointops_bench.py -q   [QUARRY_BUILD=build]
"""
import json
import os
import shutil
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("QUARRY_BUILD", os.path.join(REPO, "build"))
RUN = os.path.join(REPO, "bench", "pointops", "run.sh")
THREADS = [1, 3]
SECONDS = 0.25

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None,
                                reason="redis-server is not installed (Debian's redis-server)")


def run_bench(*args):
    result = subprocess.run([RUN, "--build", BUILD, *args, "--json"], capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    parsed = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return {table["benchmark"]: table for table in parsed}


@pytest.fixture(scope="module")
def tables():
    return run_bench("--quick", "--seconds", str(SECONDS),
                     "--threads", ",".join(str(t) for t in THREADS))


def assert_sane(row):
    assert row["ops"] > 0
    assert row["ops_per_second"] > 0
    assert 0 < row["p50_micros"] <= row["p99_micros"]


def test_quick_mode_prints_every_table_but_the_strace_one(tables):
    assert list(tables) == ["pointops_key_value", "pointops_many_clients",
                            "pointops_after_bulk", "pointops_beside_slow"]


def test_each_quarry_row_follows_its_redis_row_with_the_ratio_and_verdict(tables):
    table = tables["pointops_key_value"]
    assert table["parameters"]["seconds per row"] == SECONDS
    rows = table["rows"]
    expected = [(store, op, size, threads)
                for size in (100, 1000)
                for redis_op, quarry_op in (("SET", "insert_one"), ("GET", "find {_id}"))
                for threads in THREADS
                for store, op in (("Redis", redis_op), ("Quarry", quarry_op))]
    assert [(r["store"], r["operation"], r["value_bytes"], r["threads"]) for r in rows] == expected
    for redis, quarry in zip(rows[::2], rows[1::2]):
        assert_sane(redis)
        assert_sane(quarry)
        assert quarry["server_cpu_micros_per_op"] > 0  # run.sh passes both PIDs
        assert redis["server_cpu_micros_per_op"] is not None
        ratio = quarry["ops_per_second"] / redis["ops_per_second"]
        assert quarry["ratio_to_redis"] == pytest.approx(ratio)
        assert quarry["target"] == ("met" if ratio >= 0.60 else "MISSED")
        assert redis["target"] is None


def test_many_clients_rows_compare_64_clients_with_4(tables):
    table = tables["pointops_many_clients"]
    rows = table["rows"]
    assert [(r["store"], r["clients"]) for r in rows] == [
        ("Redis", 4), ("Quarry", 4), ("Redis", 64), ("Quarry", 64)]
    for row in rows:
        assert_sane(row)
    quarry_4, quarry_64 = rows[1], rows[3]
    ratio = quarry_64["ops_per_second"] / quarry_4["ops_per_second"]
    assert quarry_64["ratio_to_4_clients"] == pytest.approx(ratio)
    verdict = "met" if ratio >= 1.0 else "MISSED"
    assert any(note.startswith("target:") and note.endswith(verdict) for note in table["notes"])


def test_insert_one_is_timed_before_and_after_one_bulk_load(tables):
    table = tables["pointops_after_bulk"]
    bulk = table["parameters"]["bulk documents"]
    assert bulk == 5000  # --quick's size
    rows = table["rows"]
    assert [r["operation"] for r in rows] == [
        "insert_one, before the bulk load", "insert_many, one call",
        "insert_one, after the bulk load"]
    before, load, after = rows
    assert load["documents"] == bulk
    assert load["documents_per_second"] == pytest.approx(bulk / load["seconds"])
    for row in (before, after):
        assert row["documents"] > 0
        assert 0 < row["p50_micros"] <= row["p99_micros"]
        assert row["server_cpu_micros_per_document"] > 0
    ratio = after["documents_per_second"] / before["documents_per_second"]
    assert after["ratio_to_before"] == pytest.approx(ratio)
    assert before["ratio_to_before"] is None
    verdict = "met" if ratio >= 0.90 else "MISSED"
    assert any(note.startswith("target:") and note.endswith(verdict) for note in table["notes"])


def test_short_requests_are_timed_alone_and_beside_the_slow_commands(tables):
    table = tables["pointops_beside_slow"]
    assert table["parameters"]["documents"] == 2000
    rows = {row["command"]: row for row in table["rows"]}
    short = ["ping, alone", "find {_id}, alone", "ping, beside the slow commands",
             "find {_id}, beside the slow commands"]
    slow = [name for name in rows if name not in short]
    assert set(short) <= set(rows) and len(slow) == 2
    assert any(name.startswith("aggregate [$group") for name in slow)
    assert any("$regex" in name for name in slow)
    for name, row in rows.items():
        assert row["runs"] > 0
        assert 0 < row["p50_ms"] <= row["p99_ms"] <= row["max_ms"]
    for name in short[2:]:
        assert rows[name]["target"] == ("met" if rows[name]["p99_ms"] < 10 else "MISSED")
    for name in slow:
        assert rows[name]["clients"] == 2
    notes = " ".join(table["notes"])
    # 2,000 documents scan in far less than half a second: the table must say so.
    assert "took >= 0.5 s each (median): no" in notes


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_strace_counts_the_servers_system_calls_per_find():
    tables = run_bench("--seconds", "0.2", "--threads", "1", "--value-bytes", "100",
                       "--max-keys", "500", "--many-clients", "8", "--big-documents", "500",
                       "--strace", "--strace-seconds", "1")
    table = tables["pointops_syscalls"]
    assert not table["notes"][0].startswith("not measured"), table["notes"]
    rows = table["rows"]
    assert rows[0]["syscall"] == "all"
    requests = table["parameters"]["requests"]
    assert requests > 0
    listed = sum(row["calls"] for row in rows[1:])
    # The total covers every call; the rows list the most frequent ones.
    assert listed <= rows[0]["calls"]
    assert listed == rows[0]["calls"] or len(rows) == 9
    assert rows[0]["per_request"] == pytest.approx(rows[0]["calls"] / requests)
    # Each request needs at least a receive and a send.
    assert rows[0]["per_request"] >= 2
    assert all(0 <= row["errors"] <= row["calls"] for row in rows)
    calls = [row["calls"] for row in rows[1:]]
    assert calls == sorted(calls, reverse=True)
