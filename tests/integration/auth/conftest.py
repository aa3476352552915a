"""Fixtures for servers started with --auth: `auth_server` (shared by a module, with an `admin`
root user created through the localhost exception), `admin` (a pymongo client signed in as it)
and `make_user` (creates a user and returns a client signed in as it)."""

import itertools

import pytest

from auth_helpers import ADMIN_PASSWORD, connect

_counter = itertools.count()


@pytest.fixture(scope="module")
def auth_server(make_server, request):
    server = make_server(f"auth-{request.module.__name__}", extra_args=["--auth"])
    with connect(server) as anonymous:
        anonymous.admin.command("createUser", "admin", pwd=ADMIN_PASSWORD, roles=["root"])
    return server


@pytest.fixture(scope="module")
def admin(auth_server):
    client = connect(auth_server, "admin", ADMIN_PASSWORD)
    yield client
    client.close()


@pytest.fixture
def make_user(auth_server, admin):
    """make_user(roles, db="admin", mechanisms=None) -> (name, client signed in as it)."""
    clients = []

    def make(roles, db="admin", mechanisms=None, password="pw-" + "x" * 8):
        name = f"user{next(_counter)}"
        extra = {"mechanisms": mechanisms} if mechanisms else {}
        admin[db].command("createUser", name, pwd=password, roles=roles, **extra)
        client = connect(auth_server, name, password, source=db)
        clients.append(client)
        return name, client

    yield make
    for client in clients:
        client.close()
