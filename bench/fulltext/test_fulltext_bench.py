"""Runs bench/fulltext/run.sh in its quick mode against a fresh quarryd and PostgreSQL cluster
and checks its table: every part on both stores, in order, with operations; no failed checks;
Quarry's ratios following from the rows; match counts that agree; and that the server and the
cluster are gone afterwards.

  /usr/bin/python3 -m pytest bench/fulltext -q   [QUARRY_BUILD=build]
"""
import json
import os
import re
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("QUARRY_BUILD", os.path.join(REPO, "build"))
RUN = os.path.join(REPO, "bench", "fulltext", "run.sh")
POSTGRES_BIN = "/usr/lib/postgresql/15/bin"
DOCUMENTS = 5000  # --quick
SYSTEMS = ["Quarry", "PostgreSQL"]
TIMED_PARTS = ["load", "index build", "load + build"]
QUERY_PARTS = [
    "top 10: common word",
    "top 10: mid word",
    "top 10: rare word",
    "top 10: two mid words OR'd",
    "count: common word",
]
MEMORY_ROWS = [
    ("memory: index", "Quarry"),
    ("memory: index", "PostgreSQL"),
    ("memory: tsv column", "PostgreSQL"),
]

pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(POSTGRES_BIN, "initdb")),
    reason="PostgreSQL 15 is not installed (Debian's postgresql)")


@pytest.fixture(scope="module")
def run():
    result = subprocess.run([RUN, "--build", BUILD, "--quick", "--json"],
                            capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    return {"table": json.loads(lines[0]), "stderr": result.stderr}


def test_every_part_ran_on_both_stores_in_order(run):
    rows = run["table"]["rows"]
    assert [(r["part"], r["system"]) for r in rows] == [
        (part, system) for part in TIMED_PARTS + QUERY_PARTS for system in SYSTEMS
    ] + MEMORY_ROWS
    for row in rows[:len(TIMED_PARTS) * len(SYSTEMS)]:
        assert row["ops"] == DOCUMENTS, row
        assert row["seconds"] > 0 and row["ops_per_second"] > 0, row
        assert row["p50_micros"] is None and row["p99_micros"] is None, row
    for row in rows[len(TIMED_PARTS) * len(SYSTEMS):-len(MEMORY_ROWS)]:
        assert row["ops"] > 0 and row["ops_per_second"] > 0, row
        assert 0 < row["p50_micros"] <= row["p99_micros"], row
        assert row["matches_per_query"] > 0, row
        # run.sh passes both servers' PIDs.
        assert row["server_cpu_micros_per_op"] > 0, row


def test_queries_answered_correctly_on_both_stores(run):
    rows = run["table"]["rows"]
    queries = [r for r in rows if r["part"] in QUERY_PARTS]
    for row in queries:
        assert row["failed_checks"] == 0, row
    by_part = {}
    for row in queries:
        by_part.setdefault(row["part"], []).append(row["matches_per_query"])
    for part, matches in by_part.items():
        assert matches[0] == matches[1], part  # the same queries on both stores


def test_match_counts_agree(run):
    notes = run["table"]["notes"]
    verdicts = [note for note in notes if note.startswith("match counts: ")]
    assert len(verdicts) == 1, notes
    assert verdicts[0].endswith(" agree."), verdicts[0]
    assert "MISMATCH" not in verdicts[0]
    assert re.search(r"match counts agree for (\d+) of \1 queries", run["stderr"])


def test_quarry_rows_carry_their_ratio_to_postgres(run):
    rows = run["table"]["rows"]
    by_part = {(r["part"], r["system"]): r for r in rows}
    for part in TIMED_PARTS + QUERY_PARTS:
        quarry = by_part[(part, "Quarry")]
        postgres = by_part[(part, "PostgreSQL")]
        assert postgres["ratio_to_postgres"] is None
        assert quarry["ratio_to_postgres"] == pytest.approx(
            quarry["ops_per_second"] / postgres["ops_per_second"])
    for part, system in MEMORY_ROWS:
        row = by_part[(part, system)]
        assert row["megabytes"] > 0, row
        assert row["ratio_to_postgres"] is None, row


def test_load_plus_build_is_the_sum(run):
    by_part = {(r["part"], r["system"]): r for r in run["table"]["rows"]}
    for system in SYSTEMS:
        total = by_part[("load + build", system)]["seconds"]
        parts = by_part[("load", system)]["seconds"] + by_part[("index build", system)]["seconds"]
        assert total == pytest.approx(parts)


def running_server(pid):
    """The name of process `pid` if it is a live server process, else None: gone, a zombie
    waiting for its parent (pg_ctl's postmaster is reparented to init), or the PID reused."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            fields = stat.read()
    except FileNotFoundError:
        return None
    name = fields[fields.index("(") + 1:fields.rindex(")")]
    state = fields[fields.rindex(")") + 2]
    if state in "ZX" or not name.startswith(("quarryd", "postgres")):
        return None
    return name


def test_server_and_cluster_are_gone_afterwards(run):
    stderr = run["stderr"]
    pids = [int(pid) for pid in re.findall(r"\b(?:quarryd|postgres) pid (\d+)", stderr)]
    assert len(pids) == 2, stderr
    for pid in pids:
        assert running_server(pid) is None, (pid, running_server(pid))
    cluster = re.search(r"cluster in (\S+)", stderr).group(1)
    assert not os.path.exists(cluster)
