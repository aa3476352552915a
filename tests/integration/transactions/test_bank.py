"""The bank: accounts, clients moving money between them in transactions, snapshot readers that
check the total never changes, a change stream that must see every committed transfer whole and
once, for a minute; then kill -9 of the server at random moments: no acknowledged commit lost,
no partial one."""

import random
import threading
import time

import pymongo
import pymongo.errors

from quarry_server import CLIENT_OPTIONS

ACCOUNTS = 100
START_BALANCE = 1000
WRITERS = 8
READERS = 2


def open_bank(client):
    db = client.bank
    db.accounts.drop()
    db.ledger.drop()
    db.accounts.insert_many([{"_id": i, "balance": START_BALANCE} for i in range(ACCOUNTS)])
    db.create_collection("ledger")
    return db


def transfer_forever(uri, writer, stop, acknowledged, errors):
    """Moves money in transactions until `stop`; each transfer also writes its ledger entry.
    Appends the ledger ids the server acknowledged."""
    rng = random.Random(writer)
    try:
        with pymongo.MongoClient(uri, **CLIENT_OPTIONS) as client:
            db = client.bank
            n = 0
            while not stop.is_set():
                a, b = rng.sample(range(ACCOUNTS), 2)
                amount = rng.randint(1, 50)
                ledger_id = f"{writer}-{n}"
                n += 1

                def body(session):
                    db.accounts.update_one({"_id": a}, {"$inc": {"balance": -amount}},
                                           session=session)
                    db.accounts.update_one({"_id": b}, {"$inc": {"balance": amount}},
                                           session=session)
                    db.ledger.insert_one({"_id": ledger_id, "from": a, "to": b,
                                          "amount": amount}, session=session)

                try:
                    with client.start_session() as session:
                        session.with_transaction(body)
                    acknowledged.append(ledger_id)
                except (pymongo.errors.ConnectionFailure, pymongo.errors.OperationFailure):
                    if not stop.is_set():
                        time.sleep(0.05)  # the server is restarting, or the commit timed out
    except Exception as error:  # noqa: BLE001 - reported by the test
        errors.append(repr(error))


def read_sums_forever(uri, stop, sums, errors):
    """Sums every balance in one snapshot, again and again."""
    try:
        with pymongo.MongoClient(uri, **CLIENT_OPTIONS) as client:
            db = client.bank
            while not stop.is_set():
                try:
                    with client.start_session() as session:
                        with session.start_transaction():
                            total = sum(d["balance"] for d in
                                        db.accounts.find({}, session=session))
                    sums.append(total)
                except (pymongo.errors.ConnectionFailure, pymongo.errors.OperationFailure):
                    time.sleep(0.05)
    except Exception as error:  # noqa: BLE001
        errors.append(repr(error))


def run_bank(uri, seconds, during=None):
    stop = threading.Event()
    acknowledged, sums, errors = [], [], []
    threads = [threading.Thread(target=transfer_forever, args=(uri, w, stop, acknowledged, errors))
               for w in range(WRITERS)]
    threads += [threading.Thread(target=read_sums_forever, args=(uri, stop, sums, errors))
                for _ in range(READERS)]
    for t in threads:
        t.start()
    if during is not None:
        during()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return acknowledged, sums


def check_books(db, acknowledged):
    """Every acknowledged transfer is in the ledger, and the balances are exactly what the
    ledger's transfers make of the starting balances: nothing partial, nothing lost."""
    ledger = {d["_id"]: d for d in db.ledger.find()}
    missing = [i for i in acknowledged if i not in ledger]
    assert not missing, f"{len(missing)} acknowledged transfers lost, e.g. {missing[:5]}"
    expected = {i: START_BALANCE for i in range(ACCOUNTS)}
    for entry in ledger.values():
        expected[entry["from"]] -= entry["amount"]
        expected[entry["to"]] += entry["amount"]
    balances = {d["_id"]: d["balance"] for d in db.accounts.find()}
    assert balances == expected
    assert sum(balances.values()) == ACCOUNTS * START_BALANCE
    return ledger


def test_concurrent_transfers_keep_the_books_and_the_stream_sees_each_whole(own_server):
    uri = own_server.uri()
    with pymongo.MongoClient(uri, **CLIENT_OPTIONS) as client:
        db = open_bank(client)
        with db.watch(max_await_time_ms=200) as stream:
            acknowledged, sums = run_bank(uri, seconds=60)
            assert len(acknowledged) > 50, "too few transfers to tell anything"
            assert sums and set(sums) == {ACCOUNTS * START_BALANCE}, set(sums)
            ledger = check_books(db, acknowledged)
            # The change stream: each transfer's three changes, together and once.
            by_transaction = {}
            seen_ledger = []
            deadline = time.time() + 60
            while len(seen_ledger) < len(ledger) and time.time() < deadline:
                event = stream.try_next()
                if event is None:
                    continue
                key = (bytes(event["lsid"]["id"].bytes if hasattr(event["lsid"]["id"], "bytes")
                             else event["lsid"]["id"]), event["txnNumber"])
                by_transaction.setdefault(key, []).append(event)
                if event["ns"]["coll"] == "ledger":
                    seen_ledger.append(event["documentKey"]["_id"])
    assert sorted(seen_ledger) == sorted(ledger), "the stream missed or repeated transfers"
    for key, events in by_transaction.items():
        kinds = [(e["ns"]["coll"], e["operationType"]) for e in events]
        assert kinds == [("accounts", "update"), ("accounts", "update"), ("ledger", "insert")], \
            kinds
        times = [e["clusterTime"] for e in events]
        assert times == sorted(times)


def test_kill9_in_the_middle_loses_no_acknowledged_transfer_and_shows_no_partial_one(own_server):
    uri = own_server.uri()
    with pymongo.MongoClient(uri, **CLIENT_OPTIONS) as client:
        open_bank(client)

    def kill_and_restart_three_times():
        for _ in range(3):
            time.sleep(random.uniform(1.5, 5.0))
            own_server.kill9()
            own_server.start()

    acknowledged, sums = run_bank(uri, seconds=3, during=kill_and_restart_three_times)
    assert sums and set(sums) == {ACCOUNTS * START_BALANCE}, set(sums)
    with pymongo.MongoClient(uri, **CLIENT_OPTIONS) as client:
        check_books(client.bank, acknowledged)
