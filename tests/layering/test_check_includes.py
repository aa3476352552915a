"""Tests of the layering checker itself, on small source trees made in a temp dir."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_includes.py")
LAYERS = os.path.join(HERE, "layers.txt")


def make_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return root


def run_checker(src, layers=LAYERS):
    proc = subprocess.run([sys.executable, CHECKER, str(src), "--layers", str(layers)],
                          capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout


def test_downward_and_transitive_includes_pass(tmp_path):
    src = make_tree(tmp_path / "src", {
        "base/status.h": "#pragma once\n",
        "bson/value.h": '#include "base/status.h"\n#include <bson/bson.h>\n',
        "storage/engine.cc": '#include "bson/value.h"\n#include "base/status.h"\n'
                             "#include <rocksdb/db.h>\n",
        "query/matcher.cc": '#include "storage/engine.h"\n#include "base/status.h"\n',
        "net/listener.cc": "#include <utility>\n#include <boost/asio.hpp>\n"
                           '#include "wire/message.h"\n#include "local.h"\n',
        "main/main.cc": '#include "net/listener.h"\n#include "server/dispatch.h"\n'
                        "#include <boost/asio/signal_set.hpp>\n",
    })
    rc, out = run_checker(src)
    assert rc == 0, out
    assert out.strip().endswith("1 passed, 0 failed")


def test_upward_include_is_reported_with_file_and_line(tmp_path):
    src = make_tree(tmp_path / "src", {
        "storage/engine.cc": '#include "bson/value.h"\n#include "query/matcher.h"\n',
    })
    rc, out = run_checker(src)
    assert rc == 1
    assert 'src/storage/engine.cc:2: storage/ includes "query/matcher.h"' in out
    assert out.strip().endswith("0 passed, 1 failed")


def test_net_and_server_may_not_include_each_other(tmp_path):
    src = make_tree(tmp_path / "src", {
        "net/conn.cc": '#include "server/dispatch.h"\n',
        "server/dispatch.cc": '#include "net/request_handler.h"\n',
    })
    rc, out = run_checker(src)
    assert rc == 1
    assert "src/net/conn.cc:1" in out and "src/server/dispatch.cc:1" in out


def test_third_party_headers_stay_in_their_layer(tmp_path):
    src = make_tree(tmp_path / "src", {
        "query/plan.cc": "#include <rocksdb/db.h>\n",
        "commands/find.cc": "#include <boost/asio.hpp>\n#include <bson/bson.h>\n",
        "storage/x.cc": "#include <mongoc/mongoc.h>\n",
    })
    rc, out = run_checker(src)
    assert rc == 1
    assert "src/query/plan.cc:1" in out
    assert "src/commands/find.cc:1" in out and "src/commands/find.cc:2" in out
    assert "src/storage/x.cc:1" in out


def test_folder_without_a_row_fails(tmp_path):
    src = make_tree(tmp_path / "src", {"gadgets/thing.cc": '#include "base/status.h"\n'})
    rc, out = run_checker(src)
    assert rc == 1
    assert "src/gadgets/: folder has no row" in out


def test_commented_and_unrelated_lines_are_ignored(tmp_path):
    src = make_tree(tmp_path / "src", {
        "base/a.cc": '// #include "server/x.h"\nconst char* s = "#include \\"server/x.h\\"";\n',
    })
    rc, out = run_checker(src)
    assert rc == 0, out

