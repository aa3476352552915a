"""Runs bench/import/run.sh on a small file against a fresh quarryd and checks its table: the
simdjson and converter rows read every document of the file, each import row imported all of
them with a peak RSS, and the ratios follow from the rows.

  /usr/bin/python3 -m pytest bench/import -q   [QUARRY_BUILD=build]
"""
import json
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("QUARRY_BUILD", os.path.join(REPO, "build"))
RUN = os.path.join(REPO, "bench", "import", "run.sh")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("import") / "input.ndjson"
    result = subprocess.run([RUN, "--build", BUILD, "--size", "5mb", "--file", str(path),
                             "--workers", "1,2", "--json"],
                            capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr
    assert not path.exists()  # removed unless --keep-file
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def test_every_row_handled_every_document(table):
    rows = table["rows"]
    assert [r["row"] for r in rows] == ["simdjson iterate_many, every value",
                                        "quarry import's reader + JSON to BSON",
                                        "quarry import, 1 worker", "quarry import, 2 workers"]
    documents = {r["documents"] for r in rows}
    assert len(documents) == 1 and documents.pop() > 4000  # ~1 KB each
    for row in rows[2:]:
        assert 0 < row["peak_rss_megabytes"] < 200
        assert row["server_cpu_seconds"] is not None


def test_ratios_follow_from_the_rows(table):
    simd = table["rows"][0]["documents_per_second"]
    for row in table["rows"]:
        assert row["vs_simdjson"] == pytest.approx(row["documents_per_second"] / simd, rel=1e-6)
    assert any("target: >= 100,000 documents/s" in note for note in table["notes"])
