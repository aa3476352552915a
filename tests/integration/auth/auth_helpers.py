"""Helpers of the authentication tests: clients signed in as a user, and the check that a call
fails with 13 Unauthorized."""

import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS

ADMIN_PASSWORD = "admin-secret"


def connect(server, username=None, password=None, source="admin", mechanism=None, **options):
    """A pymongo client of `server`, signed in as `username` when given."""
    kwargs = dict(CLIENT_OPTIONS, **options)
    if username is not None:
        kwargs.update(username=username, password=password, authSource=source)
        if mechanism:
            kwargs["authMechanism"] = mechanism
    return pymongo.MongoClient(server.host, server.port, **kwargs)


def assert_unauthorized(call, fragment="not authorized on"):
    """`call()` fails with 13 Unauthorized, its message holding `fragment`."""
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        call()
    assert info.value.code == 13, info.value.details
    assert info.value.details["codeName"] == "Unauthorized"
    assert fragment in info.value.details["errmsg"], info.value.details
