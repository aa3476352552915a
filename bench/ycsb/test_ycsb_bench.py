"""Runs bench/ycsb/run.sh in its quick mode against a fresh quarryd, redis-server and
PostgreSQL cluster and checks its table: every workload x store x thread-count cell with
operations, whole records from every read and scan, ratios and verdicts that follow from the
rows, a chart; and that the servers and the cluster are gone afterwards.

  /usr/bin/python3 -m pytest bench/ycsb -q   [QUARRY_BUILD=build]
"""
import json
import os
import re
import shutil
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("QUARRY_BUILD", os.path.join(REPO, "build"))
RUN = os.path.join(REPO, "bench", "ycsb", "run.sh")
POSTGRES_BIN = "/usr/lib/postgresql/15/bin"
WORKLOADS = ["A", "B", "C", "F", "D", "E"]  # YCSB's order
SYSTEMS = ["Quarry", "PostgreSQL-JSONB", "Redis"]
THREADS = [1, 4, 16]
RECORDS = 2000  # --quick

pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None,
                       reason="redis-server is not installed (Debian's redis-server)"),
    pytest.mark.skipif(not os.path.exists(os.path.join(POSTGRES_BIN, "initdb")),
                       reason="PostgreSQL 15 is not installed (Debian's postgresql)"),
]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    chart = tmp_path_factory.mktemp("ycsb") / "ycsb.svg"
    result = subprocess.run([RUN, "--build", BUILD, "--quick", "--seconds", "0.2", "--json",
                             "--chart", str(chart)],
                            capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    return {"table": json.loads(lines[0]), "stderr": result.stderr, "chart": chart}


def test_every_cell_ran_with_operations_in_ycsb_order(run):
    rows = run["table"]["rows"]
    loads = [(r["system"], r["ops"]) for r in rows if r["workload"] == "load"]
    assert loads == [(system, RECORDS) for system in SYSTEMS]
    warm_ups = [(r["system"], r["ops"]) for r in rows if r["workload"] == "warm-up"]
    assert warm_ups == [(system, RECORDS) for system in SYSTEMS]
    assert [r["workload"] for r in rows[: 2 * len(SYSTEMS)]] == ["load"] * len(SYSTEMS) + [
        "warm-up"
    ] * len(SYSTEMS)
    cells = [
        (r["workload"], r["threads"], r["system"])
        for r in rows
        if r["workload"] not in ("load", "warm-up")
    ]
    assert cells == [(w, t, s) for w in WORKLOADS for t in THREADS for s in SYSTEMS]
    for row in rows:
        assert row["ops"] > 0 and row["ops_per_second"] > 0, row
        assert 0 < row["p50_micros"] <= row["p99_micros"], row


def test_reads_and_scans_returned_whole_records(run):
    for row in run["table"]["rows"]:
        assert row["failed_checks"] == 0, row


def test_quarry_rows_carry_ratios_and_the_goals_their_verdicts(run):
    table = run["table"]
    rows = table["rows"]
    by_cell = {(r["workload"], r["threads"], r["system"]): r for r in rows}
    ahead_of_postgres = True
    near_redis = True
    for (workload, threads, system), row in by_cell.items():
        if system != "Quarry":
            assert row["ratio_to_postgres"] is None and row["ratio_to_redis"] is None
            continue
        postgres = by_cell[(workload, threads, "PostgreSQL-JSONB")]["ops_per_second"]
        redis = by_cell[(workload, threads, "Redis")]["ops_per_second"]
        assert row["ratio_to_postgres"] == pytest.approx(row["ops_per_second"] / postgres)
        assert row["ratio_to_redis"] == pytest.approx(row["ops_per_second"] / redis)
        if workload not in ("load", "warm-up"):
            ahead_of_postgres &= row["ops_per_second"] > postgres
            if workload in "ABCDF":
                near_redis &= row["ops_per_second"] >= 0.6 * redis
    goals = [note for note in table["notes"] if note.startswith("goal: ")]
    assert len(goals) == 2
    assert goals[0].endswith(": met") == ahead_of_postgres
    assert goals[1].endswith(": met") == near_redis
    for goal in goals:
        assert goal.endswith(": met") or ": MISSED (" in goal
    assert any("synchronous_commit = off" in note for note in table["notes"])


def test_the_chart_draws_every_row(run):
    svg = run["chart"].read_text()
    assert svg.startswith("<?xml") and "</svg>" in svg
    assert svg.count('class="bar"') == 2 * len(run["table"]["rows"])


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
    if state in "ZX" or not name.startswith(("quarryd", "redis-server", "postgres")):
        return None
    return name


def test_servers_and_cluster_are_gone_afterwards(run):
    stderr = run["stderr"]
    pids = [int(pid) for pid in re.findall(r"\b(?:quarryd|redis-server|postgres) pid (\d+)", stderr)]
    assert len(pids) == 3, stderr
    for pid in pids:
        assert running_server(pid) is None, (pid, running_server(pid))
    cluster = re.search(r"cluster in (\S+)", stderr).group(1)
    assert not os.path.exists(cluster)
