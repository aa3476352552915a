"""Runs bench/vector/run.sh on a tiny data set against a fresh quarryd and checks what its tables
say: every part is there, exact search agrees with the benchmark's own brute force, recall and
rates are sane, Quarry's VectorIndex in-process sits next to hnswlib, each quantization
shows its memory and recall, and the server started again from its snapshot and without one.

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
         "--min-seconds", "0", "--json"],
        capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    parsed = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return {table["benchmark"]: table for table in parsed}


def test_every_part_prints_its_table(tables):
    assert list(tables) == ["vector_search", "vector_search_filtered", "vector_search_exact",
                            "vector_build", "vector_quantization", "vector_startup"]


def test_search_rows_compare_the_server_and_the_index_with_hnswlib_at_the_same_candidates(tables):
    rows = tables["vector_search"]["rows"]
    engines = [row["engine"] for row in rows]
    assert engines[-2:] == ["Quarry $vectorSearch, reading the documents",
                            "Quarry ping (round-trip floor)"]
    reading = rows[-2]
    assert reading["threads"] == 1 and reading["queries_per_second"] > 0
    same_search = [row for row in rows if row["engine"] == "Quarry $vectorSearch"
                   and row["threads"] == 1 and row["num_candidates"] == reading["num_candidates"]]
    assert reading["recall"] == pytest.approx(same_search[0]["recall"], abs=0.02)
    triples = list(zip(rows[:-2:3], rows[1:-2:3], rows[2:-2:3]))
    assert triples and all(
        q["engine"] == "Quarry $vectorSearch" and i["engine"] == "Quarry VectorIndex in-process"
        and h["engine"] == "hnswlib 0.6.2" for q, i, h in triples)
    for quarry, index, hnswlib in triples:
        assert quarry["num_candidates"] == index["num_candidates"] == hnswlib["num_candidates"]
        assert quarry["threads"] == index["threads"] == hnswlib["threads"]
        for row in (quarry, index, hnswlib):
            assert 0 <= row["recall"] <= 1
        assert quarry["queries_per_second"] > 0
        for row in (quarry, index):
            assert row["ratio_to_hnswlib"] == pytest.approx(
                row["queries_per_second"] / hnswlib["queries_per_second"])
        # The server runs the same index: the wire costs time, not recall.
        assert quarry["recall"] == pytest.approx(index["recall"], abs=0.02)
    assert [q["threads"] for q, _, _ in triples][-1] == 4
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


def test_build_table_measures_memory_and_the_index_in_process(tables):
    rows = {row["measure"]: row for row in tables["vector_build"]["rows"]}
    assert rows["build seconds"]["quarry"] > 0
    assert rows["build seconds, Quarry VectorIndex in-process"]["quarry"] > 0
    assert rows["insert vectors/s, index in place"]["baseline"] > 0
    assert rows["bytes per vector (RSS growth)"]["quarry"] is not None  # run.sh passes the PID
    assert rows["start-up from a snapshot"]["note"] == "measured in the vector_startup table"


def test_each_quantization_shows_its_memory_and_recall(tables):
    rows = tables["vector_quantization"]["rows"]
    assert [(row["engine"], row["quantization"]) for row in rows] == [
        (engine, q) for engine in ("VectorIndex in-process", "server")
        for q in ("binary", "scalar", "none")]
    for row in rows:
        assert row["build_seconds"] > 0
        assert row["rss_bytes_per_vector"] is not None
        assert 0 < row["recall"] <= 1 and row["queries_per_second"] > 0
        if row["num_candidates"] is not None:
            assert row["recall"] >= 0.95


def test_the_server_starts_again_from_its_snapshot_and_without_one(tables):
    rows = tables["vector_startup"]["rows"]
    assert [row["startup"] for row in rows] == [
        "from the snapshot written at shutdown",
        "rebuilding from the collection (snapshots removed)"]
    snapshot, rebuild = rows
    assert snapshot["snapshot_mb"] > 0 and rebuild["snapshot_mb"] is None
    for row in rows:
        assert 0 < row["listen_seconds"] <= row["ready_seconds"]
    assert snapshot["ratio_to_rebuild"] == pytest.approx(
        snapshot["ready_seconds"] / rebuild["ready_seconds"])
