"""Retryable writes across kill -9: a write that the driver sends again after the server crashed and
came back is applied exactly once, and no acknowledged write is lost (docs/DESIGN.md "Topology":
drivers retry writes because Quarry presents itself as a replica-set primary)."""

import collections
import dataclasses
import random
import threading
import time

import pymongo
import pymongo.errors
import pymongo.monitoring
import pytest
from pymongo import ReturnDocument, WriteConcern

pytestmark = pytest.mark.slow

SEED = 20250101
CLIENT_THREADS = 4
COUNTERS_PER_THREAD = 3
UPDATES_PER_COUNTER = 50
KILLS = 45
KILL_INTERVAL_S = (0.3, 1.5)
# A retry waits in server selection until the restarted server answers, so the timeout must
# outlast a restart on a loaded 2-core machine; socketTimeoutMS ends the test if the server hangs.
CLIENT_OPTIONS = dict(retryWrites=True, serverSelectionTimeoutMS=20000, connectTimeoutMS=5000,
                      socketTimeoutMS=20000)
DUPLICATE_KEY = 11000
MAX_PROBLEMS_SHOWN = 40
WRITE_COMMANDS = {"insert", "update", "delete", "findAndModify"}

ACKNOWLEDGED, UNKNOWN, FAILED = "acknowledged", "unknown", "failed"
# What each problem means for the application; the failure message counts them first.
APPLIED_TWICE = "applied twice"
RERAN = "retry ran again instead of returning the first reply"
LOST = "acknowledged write lost"
INCONSISTENT = "inconsistent document"
UNEXPECTED = "unexpected error"


@dataclasses.dataclass
class Op:
    kind: str  # "inc", "find_and_inc", "insert" or "delete"
    doc_id: str
    seq: int
    journaled: bool
    outcome: str = ""
    error: str = ""
    code: int = None
    result: object = None
    sent: int = 0

    def describe(self):
        concern = "j:true" if self.journaled else "w:1"
        return (f"{self.kind} seq {self.seq} on {self.doc_id} ({concern}, sent {self.sent}x, "
                f"{self.outcome})")


def outcome_unknown(exc):
    # What escapes pymongo 3.11 after its one retry: a network error or a retryable code (the
    # RetryableWriteError label) leaves the write possibly applied; anything else is the server's
    # answer, a real failure.
    return (isinstance(exc, pymongo.errors.ConnectionFailure)
            or exc.has_error_label("RetryableWriteError"))


class SentCounter(pymongo.monitoring.CommandListener):
    """Counts the write commands that reached a socket. A client thread owns its MongoClient,
    and pymongo calls `started` on the thread that sends, so the difference around one
    operation is how many times the driver sent it: 2 means it retried."""

    def __init__(self):
        self.sent = 0
        self.without_txn_number = 0

    def started(self, event):
        if event.command_name in WRITE_COMMANDS:
            self.sent += 1
            self.without_txn_number += "txnNumber" not in event.command

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


class ClientThread(threading.Thread):
    """One application: writes only its own documents, and records each operation's outcome."""

    def __init__(self, index, server, stop):
        super().__init__(name=f"client-{index}", daemon=True)
        self.index = index
        self.server = server
        self.stop = stop
        self.rng = random.Random(SEED * 100 + index)
        self.listener = SentCounter()
        self.ops = []
        self.crash = None
        self.counter_ids = []
        self._active = [self._new_counter() for _ in range(COUNTERS_PER_THREAD)]
        self._sent_to = collections.Counter()
        self._deletable = []  # acknowledged inserts not yet picked for a delete

    def _new_counter(self):
        self.counter_ids.append(f"c{self.index}-{len(self.counter_ids)}")
        return self.counter_ids[-1]

    def _pick_counter(self):
        # Retiring a counter after a few updates keeps documents small: a log that grew for the
        # whole run would make every update rewrite kilobytes, and each restart replay them.
        slot = self.rng.randrange(len(self._active))
        if self._sent_to[self._active[slot]] >= UPDATES_PER_COUNTER:
            self._active[slot] = self._new_counter()
        self._sent_to[self._active[slot]] += 1
        return self._active[slot]

    def _next_op(self, seq):
        # Both write concerns take different paths to disk: a w:1 write returns before any sync,
        # a j:true one waits for it, which leaves a crash more time between the write and
        # whatever else the server stores for it.
        journaled = self.rng.random() < 0.5
        roll = self.rng.random()
        if roll < 0.1 and self._deletable:
            doc_id = self._deletable.pop(self.rng.randrange(len(self._deletable)))
            return Op("delete", doc_id, seq, journaled)
        if roll < 0.45:
            return Op("insert", f"i{self.index}-{seq}", seq, journaled)
        kind = "find_and_inc" if roll < 0.6 else "inc"
        return Op(kind, self._pick_counter(), seq, journaled)

    def _apply(self, db, op):
        concern = WriteConcern(w=1, j=True) if op.journaled else WriteConcern(w=1)
        if op.kind == "insert":
            db.inserts.with_options(write_concern=concern).insert_one(
                {"_id": op.doc_id, "thread": self.index, "seq": op.seq})
            return None
        if op.kind == "delete":
            return db.inserts.with_options(write_concern=concern).delete_one(
                {"_id": op.doc_id}).deleted_count
        counters = db.counters.with_options(write_concern=concern)
        change = {"$inc": {"n": 1}, "$push": {"log": op.seq}}
        if op.kind == "inc":
            counters.update_one({"_id": op.doc_id}, change, upsert=True)
            return None
        return counters.find_one_and_update({"_id": op.doc_id}, change, upsert=True,
                                            return_document=ReturnDocument.AFTER)

    def run(self):
        try:
            with pymongo.MongoClient(self.server.uri(), event_listeners=[self.listener],
                                     **CLIENT_OPTIONS) as client:
                db = client.t_retry_crash
                seq = 0
                while not self.stop.is_set():
                    seq += 1
                    op = self._next_op(seq)
                    sent_before = self.listener.sent
                    try:
                        op.result = self._apply(db, op)
                        op.outcome = ACKNOWLEDGED
                        if op.kind == "insert":
                            self._deletable.append(op.doc_id)
                    except pymongo.errors.PyMongoError as exc:
                        op.outcome = UNKNOWN if outcome_unknown(exc) else FAILED
                        op.error = f"{type(exc).__name__}: {exc}"
                        op.code = getattr(exc, "code", None)
                    op.sent = self.listener.sent - sent_before
                    self.ops.append(op)
        except Exception as exc:  # reported by the test, which cannot see a thread's exception
            self.crash = f"{type(exc).__name__}: {exc}"


def duplicate_own_insert(op):
    # Each id is inserted once, so only the driver's own retry can collide with it.
    return op.kind == "insert" and op.outcome == FAILED and op.code == DUPLICATE_KEY


def check_counters(clients, counters):
    problems = []
    for client in clients:
        ops_by_doc = collections.defaultdict(list)
        for op in client.ops:
            if op.kind in ("inc", "find_and_inc"):
                ops_by_doc[op.doc_id].append(op)
        for doc_id in client.counter_ids:
            ops = ops_by_doc[doc_id]
            by_seq = {op.seq: op for op in ops}
            doc = counters.get(doc_id)
            log = doc["log"] if doc else []
            for seq in sorted(set(log) - set(by_seq)):
                problems.append((INCONSISTENT, f"{doc_id} holds seq {seq}, which its thread "
                                               f"never sent to it: log {log}"))
            for seq, times in sorted(collections.Counter(log).items()):
                if times > 1 and seq in by_seq:
                    problems.append((APPLIED_TWICE, f"{by_seq[seq].describe()}: applied {times} "
                                                    f"times"))
            if doc is not None and doc["n"] != len(log):
                problems.append((INCONSISTENT, f"{doc_id}: n is {doc['n']} but its log holds "
                                               f"{len(log)} seqs"))
            for op in ops:
                if op.outcome == ACKNOWLEDGED and op.seq not in log:
                    problems.append((LOST, f"{op.describe()}: not in {doc_id}'s log {log}"))
                if op.kind == "find_and_inc" and op.outcome == ACKNOWLEDGED:
                    returned = op.result["log"].count(op.seq) if op.result else 0
                    if returned != 1:
                        problems.append((RERAN, f"{op.describe()}: the document it returned "
                                                f"holds the seq {returned} times"))
    return problems


def check_inserts(clients, inserted):
    problems = []
    for client in clients:
        deletes = {op.doc_id: op for op in client.ops if op.kind == "delete"}
        for op in client.ops:
            if duplicate_own_insert(op):
                problems.append((APPLIED_TWICE, f"{op.describe()}: DuplicateKeyError on its own "
                                                f"document"))
            elif op.kind == "insert" and op.outcome == ACKNOWLEDGED:
                if op.doc_id not in deletes and op.doc_id not in inserted:
                    problems.append((LOST, f"{op.describe()}: the document is missing"))
            elif op.kind == "delete" and op.outcome == ACKNOWLEDGED:
                # Deletes only target acknowledged inserts, so the first attempt deletes one.
                if op.result != 1:
                    problems.append((RERAN, f"{op.describe()}: reported {op.result} deleted "
                                            f"documents instead of 1"))
                if op.doc_id in inserted:
                    problems.append((LOST, f"{op.describe()}: the document is still there"))
        sent = {op.doc_id for op in client.ops if op.kind == "insert"}
        for doc_id, doc in inserted.items():
            if doc["thread"] == client.index and doc_id not in sent:
                problems.append((INCONSISTENT, f"{doc_id} exists, but its thread never "
                                               f"inserted it"))
    return problems


def test_retried_writes_after_kill_9_apply_exactly_once(own_server):
    stop = threading.Event()
    clients = [ClientThread(index, own_server, stop) for index in range(CLIENT_THREADS)]
    rng = random.Random(SEED)
    kills = 0
    started = time.monotonic()
    try:
        for client in clients:
            client.start()
        for _ in range(KILLS):
            time.sleep(rng.uniform(*KILL_INTERVAL_S))
            own_server.restart(crash=True)
            kills += 1
        # The last incarnation also takes new writes on top of what it recovered, as the others.
        time.sleep(KILL_INTERVAL_S[1])
    finally:
        stop.set()
        for client in clients:
            # An operation in flight may wait out a whole server selection and its retry.
            client.join(timeout=2 * CLIENT_OPTIONS["serverSelectionTimeoutMS"] / 1000 + 5)
    elapsed = time.monotonic() - started

    hung = [client.name for client in clients if client.is_alive()]
    assert not hung, f"client threads still running: {hung}; log:\n{own_server.log_tail()}"
    crashed = [f"{client.name}: {client.crash}" for client in clients if client.crash]
    assert not crashed, "client threads failed:\n" + "\n".join(crashed)
    # Without txnNumber the driver never retries and the test would prove nothing.
    untracked = sum(client.listener.without_txn_number for client in clients)
    assert untracked == 0, f"{untracked} writes were sent without a txnNumber (no retryWrites?)"

    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as checker:
        db = checker.t_retry_crash
        counters = {doc["_id"]: doc for doc in db.counters.find()}
        inserted = {doc["_id"]: doc for doc in db.inserts.find()}

    ops = [op for client in clients for op in client.ops]
    outcomes = collections.Counter(op.outcome for op in ops)
    retried = sum(1 for op in ops if op.sent > 1)
    print(f"\nretryable writes under kill -9: {kills} kills in {elapsed:.0f} s, {len(ops)} "
          f"operations, {outcomes[ACKNOWLEDGED]} acknowledged, {outcomes[UNKNOWN]} "
          f"unknown-outcome, {outcomes[FAILED]} failed, {retried} sent twice by the driver "
          f"(seed {SEED})")

    problems = check_counters(clients, counters) + check_inserts(clients, inserted)
    problems += [(UNEXPECTED, f"{op.describe()}: {op.error}") for op in ops
                 if op.outcome == FAILED and not duplicate_own_insert(op)]
    if problems:
        counts = collections.Counter(kind for kind, _ in problems)
        headline = ", ".join(f"{n} {kind}" for kind, n in counts.most_common())
        shown = "\n".join(f"{kind}: {message}" for kind, message in problems[:MAX_PROBLEMS_SHOWN])
        more = len(problems) - MAX_PROBLEMS_SHOWN
        pytest.fail(f"after {kills} kills: {headline}\n{shown}"
                    + (f"\n... and {more} more" if more > 0 else ""), pytrace=False)
