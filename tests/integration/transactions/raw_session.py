"""A logical session driven over a raw connection, for tests that send exact lsids, transaction
numbers and readConcerns (drivers choose those themselves)."""

import uuid

import pymongo.errors
from bson.binary import Binary
from bson.int64 import Int64

from wire_client import RawConnection


class RawSession:
    """A logical session of its own, driven over a raw connection: drivers pick the lsid and
    the transaction numbers themselves, and these tests send exact ones."""

    def __init__(self, client):
        host, port = client.address
        self.connection = RawConnection(host, port)
        self.session_id = {"id": Binary(uuid.uuid4().bytes, 4)}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.connection.close()
        return False

    def command(self, db_name, body):
        """Runs `body` on `db_name`; raises OperationFailure as pymongo would."""
        reply = self.connection.command(dict(body, **{"$db": db_name})).doc
        if reply.get("ok") != 1:
            raise pymongo.errors.OperationFailure(reply.get("errmsg"), reply.get("code"), reply)
        return reply


def raw(command, session, txn_number, **fields):
    """`command` with the session's lsid and the given transaction fields."""
    body = dict(command)
    body.update(lsid=session.session_id, txnNumber=Int64(txn_number), autocommit=False)
    body.update(fields)
    return body
