"""Runs bench/vector/run.sh on a tiny data set against a fresh quarryd and checks what its tables
say: every part is there, exact search agrees with the benchmark's own brute force, recall and
rates are sane, and the options the server lacks are shown with its NotImplemented answer.

  /usr/bin/python3 -m pytest bench/vector/test_vector_bench.py -q   [QUARRY_BUILD=build]
"""
import json
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("QUARRY_BUILD", os.path.join(REPO, "build"))


@pytest.fixture(scope="module")
def tables():
    bench = os.path.join(BUILD, "bench", "vector_bench")
    if not os.path.exists(bench):
        pytest.skip("vector_bench is not built (it needs libhnswlib-dev)")
    result = subprocess.run(
        [os.path.join(REPO, "bench", "vector", "run.sh"), "--build", BUILD, "--vectors", "2000",
         "--dimensions", "16", "--queries", "60", "--exact-queries", "20", "--repeat", "1",
         "--json"],
        capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    parsed = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return {table["benchmark"]: table for table in parsed}


def test_every_part_prints_its_table(tables):
    assert list(tables) == ["vector_search", "vector_search_filtered", "vector_search_exact",
                            "vector_build"]


def test_search_rows_compare_the_server_with_hnswlib_at_the_same_candidates(tables):
    rows = tables["vector_search"]["rows"]
    engines = [row["engine"] for row in rows]
    assert engines[-1] == "Quarry ping (round-trip floor)"
    pairs = list(zip(rows[:-1:2], rows[1:-1:2]))
    assert pairs and all(q["engine"] == "Quarry $vectorSearch" and h["engine"] == "hnswlib 0.6.2"
                         for q, h in pairs)
    for quarry, hnswlib in pairs:
        assert quarry["num_candidates"] == hnswlib["num_candidates"]
        assert quarry["threads"] == hnswlib["threads"]
        assert 0 <= quarry["recall"] <= 1 and 0 <= hnswlib["recall"] <= 1
        assert quarry["queries_per_second"] > 0
        assert quarry["ratio_to_hnswlib"] == pytest.approx(
            quarry["queries_per_second"] / hnswlib["queries_per_second"])
    assert [q["threads"] for q, _ in pairs][-1] == 4
    notes = " ".join(tables["vector_search"]["notes"])
    assert "target: >= 0.50 of hnswlib's queries/s" in notes
    assert ("met" in notes) or ("MISSED" in notes)


def test_filtered_rows_cover_the_three_selectivities(tables):
    rows = tables["vector_search_filtered"]["rows"]
    assert [row["selectivity_percent"] for row in rows] == [1, 10, 50]
    for row in rows:
        assert 0 < row["matching"] < 2000
        assert row["target"] == ("met" if row["recall"] >= 0.95 else "MISSED")


def test_exact_search_finds_what_brute_force_finds(tables):
    rows = {row["engine"]: row for row in tables["vector_search_exact"]["rows"]}
    assert rows["Quarry exact: true"]["recall"] == 1.0
    assert rows["flat scan in-process"]["recall"] == 1.0


def test_build_table_measures_memory_and_shows_what_is_not_implemented(tables):
    rows = {row["measure"]: row for row in tables["vector_build"]["rows"]}
    assert rows["build seconds"]["quarry"] > 0
    assert rows["insert vectors/s, index in place"]["baseline"] > 0
    assert rows["bytes per vector (RSS growth)"]["quarry"] is not None  # run.sh passes the PID
    for option in ("scalar", "binary"):
        note = rows["quantization: " + option]["note"]
        assert note.startswith("not implemented") and "NotImplemented" in note
    assert rows["start-up from a snapshot"]["note"].startswith("not measured")
