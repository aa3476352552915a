"""Tests of the layering checker itself, on small source trees made in a temp dir.

Most tests bring their own small layer table, so they test the rules rather than today's rows;
the ones about rules the real table exists to enforce (net/ and server/, third-party headers)
read tests/layering/layers.txt.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_includes.py")
LAYERS = os.path.join(HERE, "layers.txt")

# A three-layer chain with a tool and a benchmark on top.
SMALL_TABLE = """
base: -
bson: base
storage: base bson
main: *
tools/client: base
tools/bench: base tools/client
tools/watch: tools/client
bench/store: storage
external rocksdb/: storage
external mongoc/: tools/client
"""


def make_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    os.makedirs(os.path.join(root, "src"), exist_ok=True)
    return root


def write_table(tmp_path, text):
    path = tmp_path / "layers.txt"
    path.write_text(text, encoding="utf-8")
    return path


def run_checker(root, layers=LAYERS):
    proc = subprocess.run([sys.executable, CHECKER, str(root), "--layers", str(layers)],
                          capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout


def check_tree(tmp_path, files, table=SMALL_TABLE):
    """Runs the checker on a tree of `files` against `table` (None: the real layers.txt)."""
    layers = LAYERS if table is None else write_table(tmp_path, table)
    return run_checker(make_tree(tmp_path / "repo", files), layers)


def test_direct_dependencies_pass(tmp_path):
    rc, out = check_tree(tmp_path, {
        "src/base/status.h": "#pragma once\n",
        "src/bson/value.h": '#include "base/status.h"\n#include <bson/bson.h>\n',
        "src/storage/engine.cc": '#include "bson/value.h"\n#include "base/status.h"\n'
                                 '#include "storage/engine.h"\n#include <rocksdb/db.h>\n'
                                 '#include "local.h"\n#include <utility>\n',
        "src/main/main.cc": '#include "storage/engine.h"\n#include "bson/value.h"\n',
    })
    assert rc == 0, out
    assert out.strip().endswith("1 passed, 0 failed")


def test_a_dependency_of_a_dependency_is_not_included_for_free(tmp_path):
    rc, out = check_tree(tmp_path, {
        "src/storage/engine.cc": '#include "bson/value.h"\n#include "base/status.h"\n',
    }, table="base: -\nbson: base\nstorage: bson\n")
    assert rc == 1
    assert ('src/storage/engine.cc:2: storage/ includes "base/status.h", but storage/ may '
            "include only: bson, storage") in out
    assert out.strip().endswith("0 passed, 1 failed")


def test_upward_include_is_reported_with_file_and_line(tmp_path):
    rc, out = check_tree(tmp_path, {
        "src/bson/value.cc": '#include "base/status.h"\n#include "storage/engine.h"\n',
    })
    assert rc == 1
    assert 'src/bson/value.cc:2: bson/ includes "storage/engine.h"' in out
    assert out.strip().endswith("0 passed, 1 failed")


def test_net_and_server_may_not_include_each_other(tmp_path):
    rc, out = check_tree(tmp_path, {
        "src/net/conn.cc": '#include "server/dispatch.h"\n',
        "src/server/dispatch.cc": '#include "net/request_handler.h"\n',
    }, table=None)
    assert rc == 1
    assert "src/net/conn.cc:1" in out and "src/server/dispatch.cc:1" in out


def test_third_party_headers_stay_in_their_layer(tmp_path):
    rc, out = check_tree(tmp_path, {
        "src/query/plan.cc": "#include <rocksdb/db.h>\n",
        "src/commands/find.cc": "#include <boost/asio.hpp>\n#include <bson/bson.h>\n",
        "src/storage/x.cc": "#include <mongoc/mongoc.h>\n",
        "tools/client/mongo_client.h": "#include <mongoc/mongoc.h>\n",
        "tools/watch/watcher.cc": "#include <mongoc/mongoc.h>\n",
    }, table=None)
    assert rc == 1
    assert "src/query/plan.cc:1" in out
    assert "src/commands/find.cc:1" in out and "src/commands/find.cc:2" in out
    assert "src/storage/x.cc:1" in out
    assert "tools/watch/watcher.cc:1: tools/watch/ includes <mongoc/mongoc.h>" in out
    assert "tools/client/mongo_client.h:" not in out


def test_folder_without_a_row_fails(tmp_path):
    rc, out = check_tree(tmp_path, {"src/gadgets/thing.cc": '#include "base/status.h"\n'})
    assert rc == 1
    assert "src/gadgets/: folder has no row" in out


def test_tools_and_bench_folders_without_a_row_fail_unless_they_hold_no_code(tmp_path):
    rc, out = check_tree(tmp_path, {
        "tools/import/importer.cc": '#include "tools/client/mongo_client.h"\n',
        "bench/latency/latency.cc": "int main() {}\n",
        "bench/node_only/bench.js": "// a Node.js benchmark: no includes to check\n",
    })
    assert rc == 1
    assert "tools/import/: folder has no row" in out
    assert "bench/latency/: folder has no row" in out
    assert "node_only" not in out


def test_tools_subcommands_share_only_the_client_folder(tmp_path):
    rc, out = check_tree(tmp_path, {
        "tools/client/mongo_client.h": '#include "base/status.h"\n',
        "tools/bench/runner.cc": '#include "tools/client/mongo_client.h"\n'
                                 '#include "base/status.h"\n',
        "tools/watch/watcher.cc": '#include "tools/client/mongo_client.h"\n'
                                  '#include "tools/bench/runner.h"\n#include "base/status.h"\n',
    })
    assert rc == 1
    assert ('tools/watch/watcher.cc:2: tools/watch/ includes "tools/bench/runner.h", but '
            "tools/watch/ may include only: tools/client, tools/watch") in out
    assert "tools/watch/watcher.cc:3" in out  # base/ is tools/client's, not tools/watch's
    assert "tools/bench/runner.cc" not in out


def test_bench_programs_include_only_the_layers_their_row_lists(tmp_path):
    rc, out = check_tree(tmp_path, {
        "bench/store/store_bench.cc": '#include "storage/engine.h"\n#include "bson/value.h"\n'
                                      '#include "bench/store/store_bench.h"\n',
    })
    assert rc == 1
    assert 'bench/store/store_bench.cc:2: bench/store/ includes "bson/value.h"' in out
    assert "store_bench.cc:1" not in out and "store_bench.cc:3" not in out


def test_quoted_include_outside_the_project_fails(tmp_path):
    rc, out = check_tree(tmp_path, {"src/base/a.cc": '#include "fmt/format.h"\n'})
    assert rc == 1
    assert 'src/base/a.cc:1: "fmt/format.h" is not in a folder of src/, tools/ or bench/' in out


def test_library_links_must_match_the_row(tmp_path):
    rc, out = check_tree(tmp_path, {
        "src/storage/CMakeLists.txt": "quarry_library(storage DEPS quarry_bson quarry_query\n"
                                      "               RocksDB::rocksdb)  # quarry_base\n",
        "src/bson/CMakeLists.txt": "quarry_library(bson DEPS quarry_base mongo::bson_shared)\n",
    })
    assert rc == 1
    assert ("src/storage/CMakeLists.txt: layers.txt lets storage/ include base/, but "
            "quarry_storage does not link quarry_base") in out
    assert ("src/storage/CMakeLists.txt: quarry_storage links quarry_query, but layers.txt "
            "does not list query for storage") in out
    assert "src/bson/" not in out


def test_a_second_row_for_a_folder_is_refused(tmp_path):
    rc, out = check_tree(tmp_path, {}, table="base: -\nbson: base\nbson: -\n")
    assert rc == 1
    assert "a second row for bson" in out
    assert out.strip().endswith("0 passed, 1 failed")


def test_commented_and_unrelated_lines_are_ignored(tmp_path):
    rc, out = check_tree(tmp_path, {
        "src/base/a.cc": '// #include "storage/x.h"\nconst char* s = "#include \\"storage/x.h\\"";\n',
    })
    assert rc == 0, out


def test_the_real_table_parses_and_names_a_row_for_every_dependency(tmp_path):
    rc, out = check_tree(tmp_path, {}, table=None)
    assert rc == 0, out
