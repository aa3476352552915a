"""pytest fixtures: a real quarryd on 127.0.0.1, a free port and a fresh --dbpath.

- `server`: one quarryd for the whole session; yields a QuarryServer (`host, port, dbpath, pid =
  server`; `server.uri(...)`, `server.restart()`, `server.kill9()`, `server.alive()`).
- `own_server`: a quarryd for one test only, for tests that restart or crash it.
- `make_server`: a factory for tests that need more than one (e.g. a second one on a dbpath).
- `client`: a pymongo client of `server`; `db`: a database of `client`, unique to the test and
  dropped afterwards.
Every server is stopped by PID when its scope ends (and at exit, whatever happens).
"""

import os
import re
import signal
import shutil
import tempfile

import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS, QuarryServer, find_binary, find_tool


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config):
    # SIGTERM (e.g. from `timeout`) then unwinds like Ctrl-C: fixtures stop their servers.
    signal.signal(signal.SIGTERM, _interrupt)


def pytest_report_header(config):
    return f"quarryd: {find_binary() or 'NOT FOUND (set QUARRY_BINARY or build target quarryd)'}"


@pytest.fixture(scope="session")
def quarry_binary():
    binary = find_binary()
    if binary is None or not os.access(binary, os.X_OK):
        pytest.fail("no quarryd binary: set QUARRY_BINARY or build it "
                    "(cmake --build build --target quarryd)", pytrace=False)
    return binary


@pytest.fixture(scope="session")
def work_dir():
    path = tempfile.mkdtemp(prefix="quarry-it-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def make_server(quarry_binary, work_dir):
    """make_server(name, dbpath=None, extra_args=(), start=True, port=None, args=None) ->
    QuarryServer (started unless start=False; its temp dir is server.base_dir)."""
    servers = []

    def make(name, dbpath=None, extra_args=(), start=True, port=None, args=None):
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:80]
        base = tempfile.mkdtemp(prefix=f"{safe}-", dir=work_dir)
        server = QuarryServer(quarry_binary, dbpath or os.path.join(base, "db"), port=port,
                              extra_args=extra_args, log_path=os.path.join(base, "quarryd.log"),
                              args=args)
        server.base_dir = base
        servers.append(server)
        if start:
            server.start()
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def quarry_tool():
    """The `quarry` command-line tool (quarry_server.find_tool)."""
    tool = find_tool()
    if tool is None:
        pytest.fail("no quarry tool: set QUARRY_TOOL or build target quarry", pytrace=False)
    return tool


@pytest.fixture(scope="session")
def server(make_server):
    server = make_server("session")
    yield server
    status = server.stop()
    # A clean shutdown is part of the contract: SIGTERM must end the process with status 0.
    assert status == 0, f"quarryd exited with {status} on SIGTERM; log:\n{server.log_tail()}"


@pytest.fixture
def own_server(make_server, request):
    server = make_server(request.node.name)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def client(server):
    c = pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS)
    yield c
    c.close()


def _drop_database_quietly(client, name):
    # Database names are unique per test, so a failing dropDatabase only leaves data behind;
    # tests/integration/ddl checks dropDatabase itself.
    try:
        client.drop_database(name)
    except pymongo.errors.OperationFailure:
        pass


@pytest.fixture
def db(client, request):
    name = "t_" + re.sub(r"[^A-Za-z0-9_]+", "_", request.node.name)[:50]
    _drop_database_quietly(client, name)
    yield client[name]
    _drop_database_quietly(client, name)


@pytest.fixture(autouse=True)
def _server_still_alive(request):
    """After every test that used the shared server, it must still be running."""
    yield
    if "server" in request.fixturenames:
        server = request.getfixturevalue("server")
        assert server.alive(), (f"quarryd (pid {server.pid}) died during this test; log:\n"
                                f"{server.log_tail()}")
