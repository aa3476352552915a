"""Helpers for currentOp/killOp tests: a slow operation run on its own thread and client, and
polling currentOp from another client until that operation shows."""

import threading
import time

import pymongo
from bson.son import SON

from quarry_server import CLIENT_OPTIONS

# A filter every document fails, slowly: summing 300 numbers per document makes a scan of a few
# tens of thousands of documents last seconds, with the scan's interrupt checks in between.
SLOW_FILTER = {"$expr": {"$lt": [{"$reduce": {"input": {"$range": [0, 300]}, "initialValue": 0,
                                              "in": {"$add": ["$$value", "$$this"]}}}, 0]}}


def current_op(client, **filters):
    """The inprog list of {currentOp: 1, <filters>} on admin."""
    command = SON([("currentOp", 1)] + list(filters.items()))
    return client.admin.command(command)["inprog"]


def wait_for_op(client, timeout=30.0, **filters):
    """Polls currentOp with `filters` until one operation matches; returns it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ops = current_op(client, **filters)
        if ops:
            return ops[0]
        time.sleep(0.01)
    raise AssertionError(f"no operation matching {filters} appeared within {timeout} s")


class Background:
    """Runs `work(client)` on a thread with a client of its own (appname `app_name`); `join()`
    returns its result or raises what it raised."""

    def __init__(self, server, app_name, work):
        self.client = pymongo.MongoClient(server.uri(), appname=app_name, **CLIENT_OPTIONS)
        self.result = None
        self.error = None

        def run():
            try:
                self.result = work(self.client)
            except Exception as e:  # handed to join()
                self.error = e

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def join(self, timeout=120.0):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the background operation did not finish"
        self.client.close()
        if self.error is not None:
            raise self.error
        return self.result
