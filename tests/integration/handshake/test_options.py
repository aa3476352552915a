"""quarryd's flags and YAML config file, seen from a client."""

import json
import os
import socket
import subprocess

import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS, free_port
from wire_client import RawConnection, op_query


def offered_compression(server, offered=("zstd", "snappy", "zlib")):
    with RawConnection(server.host, server.port) as conn:
        conn.send(op_query({"ismaster": 1, "compression": list(offered)}))
        return conn.recv().doc.get("compression")


def run_quarryd(binary, *args, timeout=20):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def test_help_and_version_exit_zero(quarry_binary):
    help_out = run_quarryd(quarry_binary, "--help")
    assert help_out.returncode == 0
    for flag in ("--port", "--bind_ip", "--dbpath", "--config", "--replSet", "--advertise-host",
                 "--networkMessageCompressors", "--logpath", "--quiet"):
        assert flag in help_out.stdout, flag
    version = run_quarryd(quarry_binary, "--version")
    assert version.returncode == 0 and version.stdout.strip()


def test_unknown_flag_exits_non_zero_with_a_message(quarry_binary):
    proc = run_quarryd(quarry_binary, "--no-such-flag")
    assert proc.returncode != 0
    assert "no-such-flag" in proc.stderr + proc.stdout


def test_port_in_use_exits_non_zero_with_a_clear_message(quarry_binary, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_quarryd(quarry_binary, "--port", str(port), "--bind_ip", "127.0.0.1",
                           "--dbpath", str(tmp_path / "db"))
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert str(port) in output, f"the message should name the port:\n{output}"


def test_config_file_sets_port_dbpath_replica_set_and_compressors(make_server, tmp_path):
    port = free_port()
    dbpath = tmp_path / "config-db"
    config = tmp_path / "quarry.conf"
    config.write_text(
        "net:\n"
        f"  port: {port}\n"
        "  bindIp: 127.0.0.1\n"
        "  compression:\n"
        "    compressors: zstd\n"
        "storage:\n"
        f"  dbPath: {dbpath}\n"
        "replication:\n"
        "  replSetName: fromconfig\n")
    server = make_server("config", port=port, args=["--config", str(config),
                                                    "--advertise-host", "127.0.0.1"])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        assert c.admin.command("hello")["setName"] == "fromconfig"
        c.t_config.c.insert_one({"_id": 1})
    assert offered_compression(server) == ["zstd"]
    assert os.listdir(dbpath), "nothing was written to storage.dbPath"
    server.stop()


def test_flags_win_over_the_config_file(make_server, tmp_path):
    port = free_port()
    config = tmp_path / "quarry.conf"
    config.write_text(f"net:\n  port: {free_port()}\nreplication:\n  replSetName: fromfile\n")
    server = make_server("flags-win", port=port,
                         args=["--config", str(config), "--port", str(port), "--bind_ip",
                               "127.0.0.1", "--dbpath", str(tmp_path / "db"), "--replSet",
                               "fromflag"])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        assert c.admin.command("hello")["setName"] == "fromflag"
    server.stop()


def test_a_stock_mongod_conf_starts_with_its_settled_keys(make_server, tmp_path):
    port = free_port()
    config = tmp_path / "mongod.conf"
    config.write_text(
        "storage:\n"
        f"  dbPath: {tmp_path / 'stock-db'}\n"
        "  journal:\n"
        "    enabled: true\n"
        "systemLog:\n"
        "  destination: file\n"
        "  logAppend: true\n"
        f"  path: {tmp_path / 'mongod.log'}\n"
        "net:\n"
        f"  port: {port}\n"
        "  bindIp: 127.0.0.1\n"
        "processManagement:\n"
        "  fork: false\n")
    server = make_server("stock-conf", port=port, args=["--config", str(config)])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        c.t_stock.c.insert_one({"_id": 1})
    assert server.stop() == 0
    assert "Waiting for connections" in (tmp_path / "mongod.log").read_text()


@pytest.mark.parametrize("text, key", [
    ("processManagement:\n  timeZoneInfo: /usr/share/zoneinfo\n",
     "processManagement.timeZoneInfo is not supported"),
    ("net:\n  port: 1\n  unixDomainSocket:\n    enabled: false\n",
     "net.unixDomainSocket is not supported"),
    ("operationProfiling:\n  mode: slowOp\n", "operationProfiling is not supported"),
    ("storage:\n  journal:\n    enabled: false\n",
     "storage.journal.enabled is not supported by quarryd except as true"),
    ("systemLog:\n  destination: syslog\n",
     "systemLog.destination is not supported by quarryd except as file"),
    ("security:\n  authorization: enabled\n  keyFile: /k\n", "security.keyFile is not supported"),
    ("- just\n- a list\n", "must hold a YAML mapping"),
])
def test_a_config_key_quarryd_does_not_read_stops_it_naming_the_key(quarry_binary, tmp_path,
                                                                       text, key):
    config = tmp_path / "mongod.conf"
    config.write_text(text)
    proc = run_quarryd(quarry_binary, "--config", str(config), "--dbpath", str(tmp_path / "db"))
    assert proc.returncode == 2, proc.stderr
    assert key in proc.stderr
    assert not (tmp_path / "db").exists()


def test_compression_disabled_negotiates_nothing(make_server):
    server = make_server("no-compression", extra_args=["--networkMessageCompressors", "disabled"])
    assert offered_compression(server) is None
    with pymongo.MongoClient(server.uri(compressors="zstd"), **CLIENT_OPTIONS) as c:
        c.t_nocomp.c.insert_one({"_id": 1})
        assert c.t_nocomp.c.count_documents({}) == 1
    server.stop()


def test_only_the_enabled_compressors_are_offered(make_server):
    server = make_server("snappy-only", extra_args=["--networkMessageCompressors", "snappy"])
    assert offered_compression(server) == ["snappy"]
    server.stop()


def test_empty_repl_set_presents_a_standalone(make_server):
    server = make_server("standalone", extra_args=["--replSet", ""])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        hello = c.admin.command("hello")
        assert "setName" not in hello and hello["isWritablePrimary"] is True
        c.t_standalone.c.insert_one({"_id": 1})
    server.stop()


@pytest.mark.parametrize("advertise, expected", [
    ("db.example.test", "db.example.test:{port}"),
    ("db.example.test:4000", "db.example.test:4000"),
    (None, "localhost:{port}"),
])
def test_hello_lists_the_advertised_host(make_server, tmp_path, advertise, expected):
    port = free_port()
    args = ["--port", str(port), "--bind_ip", "127.0.0.1", "--dbpath", str(tmp_path / "db")]
    if advertise:
        args += ["--advertise-host", advertise]
    server = make_server("advertise", port=port, args=args)
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        hello = c.admin.command("hello")
    want = expected.format(port=port)
    assert (hello.get("me"), hello.get("hosts"), hello.get("primary")) == (want, [want], want)
    server.stop()


def test_logpath_writes_json_lines(make_server, tmp_path):
    log_file = tmp_path / "quarryd.log.json"
    server = make_server("logpath", extra_args=["--logpath", str(log_file)])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        c.admin.command("ping")
    server.stop()
    lines = [line for line in log_file.read_text().splitlines() if line.strip()]
    assert lines, "the log file is empty"
    first = json.loads(lines[0])
    assert {"t", "s", "c", "msg"} <= set(first), first


@pytest.mark.parametrize("bad", [["--port", "0"], ["--port", "70000"],
                                 ["--networkMessageCompressors", "lzma"]])
def test_bad_flag_values_exit_non_zero(quarry_binary, tmp_path, bad):
    proc = run_quarryd(quarry_binary, "--bind_ip", "127.0.0.1", "--dbpath",
                       str(tmp_path / "db"), *bad)
    assert proc.returncode != 0
    assert (proc.stderr + proc.stdout).strip(), "no message"


def rocksdb_log_events(dbpath):
    """Lines of RocksDB's LOG in `dbpath` that only its info level writes (open, flush events)."""
    log = dbpath / "LOG"
    text = log.read_text(errors="replace") if log.exists() else ""
    return [line for line in text.splitlines()
            if "EVENT_LOG_v1" in line or "Recovering from manifest" in line]


@pytest.mark.parametrize("level, traced", [(None, False), ("info", True), ("error", False)])
def test_rocksdb_log_level_decides_what_rocksdb_writes_to_its_log(make_server, tmp_path, level,
                                                                  traced):
    dbpath = tmp_path / "db"
    extra = ["--setParameter", f"rocksdbLogLevel={level}"] if level else []
    server = make_server(f"rocksdb-log-{level}", dbpath=str(dbpath), extra_args=extra)
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        c.db.items.insert_many([{"n": n} for n in range(100)])
    server.stop()
    assert bool(rocksdb_log_events(dbpath)) == traced


def test_a_rocksdb_log_level_it_does_not_know_stops_quarryd(quarry_binary, tmp_path):
    proc = run_quarryd(quarry_binary, "--bind_ip", "127.0.0.1", "--port", str(free_port()),
                       "--dbpath", str(tmp_path / "db"), "--setParameter",
                       "rocksdbLogLevel=verbose")
    assert proc.returncode != 0
    assert "rocksdbLogLevel must be debug, info, warn or error, not 'verbose'" in proc.stderr
