#!/usr/bin/python3
"""Transfers per second between random accounts at 1, 4 and 8 clients: each transfer is two
updates in one transaction (pymongo's with_transaction), against the same pair of updates
without a transaction in the same run, on the same server. Prints a table; the ratio column is
transaction / plain.

Usage: bench/transactions/run.sh [--seconds N] [--accounts N]   (starts its own quarryd)
       bench/transactions/transfers.py --uri mongodb://... [--seconds N] [--accounts N]
"""

import argparse
import random
import threading
import time

import pymongo


def run_clients(uri, clients, seconds, accounts, transfer):
    """Runs `clients` threads calling transfer(client, session, a, b) for `seconds`; returns
    (transfers done, transient retries seen)."""
    done = [0] * clients
    stop = time.monotonic() + seconds

    def worker(k):
        rng = random.Random(k)
        with pymongo.MongoClient(uri) as client:
            with client.start_session() as session:
                while time.monotonic() < stop:
                    a, b = rng.sample(range(accounts), 2)
                    transfer(client, session, a, b)
                    done[k] += 1

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.monotonic() - started)


def plain(client, session, a, b):
    coll = client.bench_txn.accounts
    coll.update_one({"_id": a}, {"$inc": {"balance": -1}})
    coll.update_one({"_id": b}, {"$inc": {"balance": 1}})


def in_transaction(client, session, a, b):
    coll = client.bench_txn.accounts

    def body(s):
        coll.update_one({"_id": a}, {"$inc": {"balance": -1}}, session=s)
        coll.update_one({"_id": b}, {"$inc": {"balance": 1}}, session=s)

    session.with_transaction(body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uri", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--accounts", type=int, default=100)
    args = parser.parse_args()
    with pymongo.MongoClient(args.uri) as client:
        coll = client.bench_txn.accounts
        coll.drop()
        coll.insert_many([{"_id": i, "balance": 1000} for i in range(args.accounts)])
    print(f"transfers/s between {args.accounts} accounts, {args.seconds:g} s per cell "
          "(pymongo clients in one Python process)")
    print(f"{'clients':>7} {'plain':>10} {'transaction':>12} {'ratio':>7}")
    for clients in (1, 4, 8):
        plain_rate = run_clients(args.uri, clients, args.seconds, args.accounts, plain)
        txn_rate = run_clients(args.uri, clients, args.seconds, args.accounts, in_transaction)
        print(f"{clients:>7} {plain_rate:>10.0f} {txn_rate:>12.0f} {txn_rate / plain_rate:>7.2f}")
    with pymongo.MongoClient(args.uri) as client:
        total = sum(d["balance"] for d in client.bench_txn.accounts.find())
    expected = 1000 * args.accounts
    print(f"sum of balances: {total} (expected {expected}: {'ok' if total == expected else 'WRONG'})")
    return 0 if total == expected else 1


if __name__ == "__main__":
    raise SystemExit(main())
