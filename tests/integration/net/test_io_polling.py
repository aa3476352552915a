"""io threads that poll for the next request before sleeping (setParameter ioThreadPollMicros):
the server answers, closes and sees clients leave the same with polling on and off."""
import subprocess
import threading
import time

import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS
from wire_client import OP_MSG, RawConnection, header


@pytest.mark.parametrize("micros", ["0", "100"])
def test_requests_from_several_clients_are_answered(make_server, micros):
    server = make_server(f"poll-{micros}", extra_args=["--setParameter", f"ioThreadPollMicros={micros}"])
    errors = []

    def client(n):
        try:
            with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
                coll = c.t[f"c{n}"]
                for i in range(300):
                    coll.insert_one({"_id": i, "v": "x" * 100})
                    assert coll.find_one({"_id": i})["v"] == "x" * 100
                # A long command runs on a worker; its reply comes back through the io thread.
                assert coll.count_documents({"v": {"$regex": "^x"}}) == 300
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert not any(t.is_alive() for t in threads)


def test_a_connection_the_server_closes_is_closed_for_the_client(make_server):
    """A polled socket is held by the io thread's ring: the close must still reach the peer."""
    server = make_server("poll-close", extra_args=["--setParameter", "ioThreadPollMicros=100"])
    with RawConnection(server.host, server.port) as conn:
        # A message longer than any allowed: the server closes the connection.
        conn.send(header(100_000_000, 1, 0, OP_MSG))
        assert conn.rejected()[0] == "closed"

    # Clients that leave free their connections: the count goes back down.
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        before = c.admin.command("serverStatus")["connections"]["current"]
        for _ in range(20):
            with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as other:
                other.admin.command("ping")
        deadline = time.monotonic() + 10
        while c.admin.command("serverStatus")["connections"]["current"] > before + 1:
            assert time.monotonic() < deadline, "closed clients still counted"
            time.sleep(0.05)


@pytest.mark.parametrize("value,message", [
    ("-1", "ioThreadPollMicros must be a whole number of microseconds >= 0"),
    ("10001", "ioThreadPollMicros must be at most 10000 microseconds"),
    ("soon", "ioThreadPollMicros must be a whole number"),
])
def test_a_bad_value_stops_the_server_with_a_clear_message(quarry_binary, tmp_path, value, message):
    proc = subprocess.run([quarry_binary, "--dbpath", str(tmp_path / "db"), "--port", "1",
                           "--setParameter", f"ioThreadPollMicros={value}"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0
    assert message in proc.stderr
