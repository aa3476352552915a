"""Limits that keep quarryd serving under hostile or exhausted conditions: a message that stops
arriving is dropped after incomingMessageTimeoutMillis, memory follows the bytes a client has
sent rather than the size it declared, a server-wide budget bounds what partly received
messages hold, --maxConns refuses connections at accept, and a low descriptor limit is shared
between connections and storage."""

import os
import re
import resource
import socket
import struct
import time

import bson
import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS, QuarryServer, free_port

DECLARED = 48_000_000  # the largest message a client may declare
SENT = 1_100_000  # what each stalled client actually sends of it


def _log(server):
    with open(server.log_path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _wait(predicate, timeout=60, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


def _rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _stalled_client(server, declared=DECLARED, sent=SENT):
    """A raw socket that declares a `declared`-byte OP_MSG, sends `sent` bytes of it and stops."""
    sock = socket.create_connection((server.host, server.port), timeout=10)
    header = struct.pack("<iiii", declared, 1, 0, 2013)
    sock.sendall(header + b"\0" * (sent - len(header)))
    return sock


def _closed_by_server(sock, timeout):
    """True once the server has closed `sock` (recv sees EOF or a reset) within `timeout`."""
    sock.settimeout(timeout)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def _physical_bytes_in(client):
    return client.admin.command("serverStatus")["network"]["physicalBytesIn"]


def test_a_stalled_message_is_dropped_after_the_timeout(make_server):
    server = make_server("stall", extra_args=["--setParameter",
                                               "incomingMessageTimeoutMillis=1000"])
    big = _stalled_client(server)
    header_only = socket.create_connection((server.host, server.port), timeout=10)
    header_only.sendall(b"\x10\x00")  # two bytes of a header, then nothing
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as client:
        assert client.admin.command("ping")["ok"] == 1  # others are served meanwhile
        assert _closed_by_server(big, timeout=30)
        assert _closed_by_server(header_only, timeout=30)
        assert client.admin.command("ping")["ok"] == 1
    assert "Closing a connection whose message stopped arriving" in _log(server)
    # An idle connection between messages is not a stalled message: it stays open.
    idle = socket.create_connection((server.host, server.port), timeout=10)
    assert not _closed_by_server(idle, timeout=3)
    idle.close()


def test_memory_follows_the_bytes_sent_not_the_size_declared(make_server):
    server = make_server("declared-size")
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as client:
        client.admin.command("ping")
        before_rss = _rss_bytes(server.pid)
        before_in = _physical_bytes_in(client)
        clients = [_stalled_client(server) for _ in range(40)]
        try:
            # Every byte the clients sent has reached the server before RSS is read.
            assert _wait(lambda: _physical_bytes_in(client) - before_in >= 40 * SENT)
            grown = _rss_bytes(server.pid) - before_rss
            # Declared: 40 x 48 MB = 1.92 GB. Received: 44 MB, held in buffers of at most
            # twice that. A generous bound, far below the declared total.
            assert grown < 400 * 1024 * 1024, f"RSS grew by {grown} bytes"
            assert client.admin.command("ping")["ok"] == 1
            client.limits.c.insert_one({"_id": 1})
            assert client.limits.c.find_one({"_id": 1}) == {"_id": 1}
        finally:
            for sock in clients:
                sock.close()


def test_the_incoming_message_budget_makes_messages_wait_and_never_stops_the_server(make_server):
    server = make_server("budget", extra_args=[
        "--setParameter", "incomingMessageMemoryLimitMB=50",
        "--setParameter", "incomingMessageTimeoutMillis=2000"])
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as client:
        stalled = [_stalled_client(server) for _ in range(40)]
        try:
            assert _wait(lambda: "Waiting for memory" in _log(server))
            # Small requests need no budget: they are served while it is spent.
            assert client.admin.command("ping")["ok"] == 1
            for sock in stalled:
                assert _closed_by_server(sock, timeout=60)
        finally:
            for sock in stalled:
                sock.close()
        # With the stalled messages gone, a large message gets its memory again.
        doc = {"_id": "big", "blob": b"\x01" * (12 * 1024 * 1024)}
        client.limits.big.insert_one(doc)
        assert len(client.limits.big.find_one({"_id": "big"})["blob"]) == 12 * 1024 * 1024
    assert server.alive()


def _raw_ping(sock):
    body = bson.BSON.encode({"ping": 1, "$db": "admin"})
    payload = struct.pack("<I", 0) + b"\0" + body
    sock.sendall(struct.pack("<iiii", 16 + len(payload), 7, 0, 2013) + payload)
    data = b""
    while len(data) < 4 or len(data) < struct.unpack("<i", data[:4])[0]:
        chunk = sock.recv(65536)
        if not chunk:
            return False
        data += chunk
    return True


def test_max_conns_refuses_connections_at_accept_and_reports_them(make_server):
    server = make_server("maxconns", extra_args=["--maxConns", "6"])
    with pymongo.MongoClient(server.uri(), maxPoolSize=1, **CLIENT_OPTIONS) as client:
        client.admin.command("ping")  # the monitor and one pooled connection: 2 of 6
        status = client.admin.command("serverStatus")["connections"]
        held = [socket.create_connection((server.host, server.port), timeout=10)
                for _ in range(6 - status["current"])]
        for sock in held:
            assert _raw_ping(sock)
        refused = socket.create_connection((server.host, server.port), timeout=10)
        assert _closed_by_server(refused, timeout=10)
        status = client.admin.command("serverStatus")["connections"]
        assert status["current"] == 6
        assert status["available"] == 0
        assert status["rejected"] >= 1
        assert "too many open connections" in _log(server)
        for sock in held:
            sock.close()
        assert _wait(lambda: client.admin.command("serverStatus")["connections"]["current"] < 6)
        again = socket.create_connection((server.host, server.port), timeout=10)
        assert _raw_ping(again)
        again.close()
        parsed = client.admin.command("getCmdLineOpts")["parsed"]["net"]
        assert parsed["maxIncomingConnections"] == 6


def test_low_descriptor_limit_refuses_connections_and_storage_keeps_working(quarry_binary,
                                                                           tmp_path):
    # The test process needs more descriptors than the server gets.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    port = free_port()
    dbpath = tmp_path / "db"
    server = QuarryServer("/usr/bin/prlimit", str(dbpath), port=port,
                          log_path=str(tmp_path / "quarryd.log"),
                          args=["--nofile=256:256", "--", quarry_binary, "--port", str(port),
                                "--bind_ip", "127.0.0.1", "--dbpath", str(dbpath),
                                "--maxConns", "1000"])
    server.start()
    held = []
    try:
        with pymongo.MongoClient(server.uri(), maxPoolSize=2, **CLIENT_OPTIONS) as client:
            limit = client.admin.command("serverStatus")["connections"]
            capacity = limit["current"] + limit["available"]
            # --maxConns 1000 is lowered to what 256 descriptors leave after storage.
            assert 0 < capacity < 256
            assert "is more than the descriptor limit" in _log(server)
            # Fill every connection slot, and then some: the extra ones are refused at accept.
            for _ in range(capacity + 20):
                sock = socket.create_connection((server.host, server.port), timeout=10)
                held.append(sock)
            refused = sum(1 for sock in held[-40:] if _closed_by_server(sock, timeout=0.5))
            assert refused >= 20
            assert "too many open connections" in _log(server)
            # Writes that make RocksDB flush new files while every connection slot is taken.
            payload = os.urandom(1024 * 1024)
            coll = client.limits.files
            for i in range(150):
                coll.insert_one({"_id": i, "blob": payload})
            assert coll.count_documents({}) == 150
            assert client.admin.command("ping")["ok"] == 1
        for sock in held:
            sock.close()
        held.clear()
        assert server.alive()
        with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as client:
            assert client.limits.files.count_documents({}) == 150
            assert client.limits.files.find_one({"_id": 149})["blob"] == payload
    finally:
        for sock in held:
            sock.close()
        status = server.stop()
    assert status == 0, _log(server)


def test_the_block_cache_is_sized_as_mongod_sizes_its_cache(make_server, tmp_path):
    default = make_server("cache-default")
    assert re.search(r'"Block cache","attr":\{"bytes":(\d+)\}', _log(default))
    given = make_server("cache-flag", extra_args=["--wiredTigerCacheSizeGB", "0.5"])
    assert '"Block cache","attr":{"bytes":536870912}' in _log(given)
    with pymongo.MongoClient(given.uri(), **CLIENT_OPTIONS) as client:
        parsed = client.admin.command("getCmdLineOpts")["parsed"]["storage"]
        assert parsed["wiredTiger"]["engineConfig"]["cacheSizeGB"] == 0.5
    config = tmp_path / "quarryd.conf"
    config.write_text("storage:\n  wiredTiger:\n    engineConfig:\n      cacheSizeGB: 2\n")
    from_file = make_server("cache-config", extra_args=["--config", str(config)])
    assert '"Block cache","attr":{"bytes":2147483648}' in _log(from_file)
    unknown = tmp_path / "unknown.conf"
    unknown.write_text("storage:\n  wiredTiger:\n    engineConfig:\n      journalCompressor: zstd\n")
    ignored = make_server("cache-unknown", extra_args=["--config", str(unknown)], start=False)
    with pytest.raises(RuntimeError, match="exited with status"):
        ignored.start()
    assert "storage.wiredTiger.engineConfig.journalCompressor is not supported" in _log(ignored)
    refused = make_server("cache-small", extra_args=["--wiredTigerCacheSizeGB", "0.1"],
                          start=False)
    with pytest.raises(RuntimeError, match="exited with status"):
        refused.start()
    assert "--wiredTigerCacheSizeGB must be between 0.25 and 10000" in _log(refused)
