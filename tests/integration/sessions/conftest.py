"""For session test modules that need a quarryd of their own: killAllSessions kills every
session's cursors, and fail points act on any client's writes."""

import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS


@pytest.fixture(scope="module")
def module_server(make_server, request):
    """A quarryd for one test module, started with the module's SERVER_ARGS (a list) if any."""
    server = make_server(request.module.__name__,
                         extra_args=getattr(request.module, "SERVER_ARGS", ()))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def module_client(module_server):
    with pymongo.MongoClient(module_server.uri(), **CLIENT_OPTIONS) as c:
        yield c
