"""--httpPort: /metrics in Prometheus's text format and /healthz, fetched with urllib as a
scraper or a load balancer's probe would."""

import os
import re
import urllib.error
import urllib.request

import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS, free_port

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"'
                    r'(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*)?\})? (\S+)$')


def _get(port, path, method="GET"):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=b"" if method == "POST" else None)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def _parse(text):
    """{(name, labels): value}, checking the exposition format as it goes."""
    samples = {}
    typed = {}
    helped = set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            helped.add(line.split(" ")[2])
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge"), line
            assert name not in typed, f"{name} typed twice"
            typed[name] = kind
            continue
        assert not line.startswith("#"), line
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        name, labels, value = m.group(1), m.group(3) or "", m.group(4)
        assert name.startswith("quarry_"), name
        assert name in typed and name in helped, f"{name} has no # TYPE / # HELP before it"
        if typed[name] == "counter":
            assert name.endswith("_total"), name
        samples[(name, labels)] = float(value)
    return samples


def _listening(pid):
    """(address, port) pairs the process listens on, from /proc."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = set()
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        if not os.path.exists(table):
            continue
        with open(table) as f:
            next(f)
            for row in f:
                fields = row.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state != "0A" or inode not in inodes:  # 0A: LISTEN
                    continue
                address, port = local.split(":")
                if v6:
                    address = "::1" if address == "0" * 31 + "1" else address
                    address = "::" if address == "0" * 32 else address
                else:
                    address = ".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0))
                found.add((address, int(port, 16)))
    return found


@pytest.fixture
def http_server(make_server, request):
    port = free_port()
    server = make_server(request.node.name, extra_args=["--httpPort", str(port)])
    server.http_port = port
    yield server
    server.stop()


def test_metrics_parse_and_move_with_operations(http_server):
    status, headers, text = _get(http_server.http_port, "/metrics")
    assert status == 200
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
    before = _parse(text)
    for name in ("quarry_uptime_seconds", "quarry_connections", "quarry_network_bytes_in_total",
                 "quarry_oplog_size_bytes", "quarry_rocksdb_block_cache_capacity_bytes"):
        assert (name, "") in before, name
    assert ('quarry_rocksdb_live_sst_bytes', 'family="docs"') in before

    client = pymongo.MongoClient(http_server.uri(compressors="zstd"), **CLIENT_OPTIONS)
    client.m.c.insert_many([{"_id": i, "text": "compressible " * 50} for i in range(20)])
    assert len(list(client.m.c.find())) == 20
    after = _parse(_get(http_server.http_port, "/metrics")[2])
    client.close()

    def grew(key, by=1):
        assert after[key] >= before.get(key, 0) + by, (key, before.get(key), after[key])

    grew(("quarry_opcounters_total", 'type="insert"'), 20)
    grew(("quarry_opcounters_total", 'type="query"'))
    grew(("quarry_commands_total", 'command="insert"'))
    grew(("quarry_network_bytes_in_total", ""), 20 * 600)
    grew(("quarry_network_requests_total", ""))
    grew(("quarry_connections_created_total", ""))
    saved = after[("quarry_network_compression_saved_bytes", 'compressor="zstd",direction="out"')]
    assert saved > 0


def test_healthz_answers_ok(http_server):
    status, headers, body = _get(http_server.http_port, "/healthz")
    assert (status, body) == (200, "ok\n")
    assert _get(http_server.http_port, "/healthz?verbose=1")[0] == 200


def test_unknown_paths_404_and_other_methods_405(http_server):
    assert _get(http_server.http_port, "/")[0] == 404
    assert _get(http_server.http_port, "/metricsx")[0] == 404
    status, headers, _ = _get(http_server.http_port, "/metrics", method="POST")
    assert status == 405 and headers["Allow"] == "GET"
    assert _get(http_server.http_port, "/healthz", method="DELETE")[0] == 405


def test_http_binds_loopback_only_by_default(http_server):
    listening = _listening(http_server.pid)
    assert ("127.0.0.1", http_server.http_port) in listening
    assert [a for a, p in listening if p == http_server.http_port] == ["127.0.0.1"]


def test_http_is_off_by_default(server):
    listening = _listening(server.pid)
    assert {p for _, p in listening} == {server.port}


def test_http_port_from_the_config_file(make_server, tmp_path):
    port = free_port()
    config = tmp_path / "quarryd.conf"
    config.write_text(f"net:\n  http:\n    port: {port}\n    bindIp: 127.0.0.1\n")
    server = make_server("http-config", extra_args=["--config", str(config)])
    assert _get(port, "/healthz")[0] == 200
    parsed = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS).admin.command("getCmdLineOpts")
    assert parsed["parsed"]["net"]["http"] == {"port": port, "bindIp": "127.0.0.1"}
    server.stop()


def test_http_port_must_differ_from_the_wire_port(make_server):
    port = free_port()
    server = make_server("http-same-port", port=port, extra_args=["--httpPort", str(port)],
                         start=False)
    with pytest.raises(RuntimeError):
        server.start()
