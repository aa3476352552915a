"""The requests bench/instructions/run.sh counts: loads the listings, or sends one kind of
request through pymongo, one at a time on one connection: a first pass uncounted, then the
same number again with callgrind's instrumentation on, so that neither the connection's
handshake nor cold caches are counted."""

import random
import subprocess
import sys

import pymongo

KINDS = ["ping", "find_id", "find_unique", "insert_one", "update_id"]


def client(port):
    return pymongo.MongoClient(f"mongodb://127.0.0.1:{port}/?directConnection=true")


def load(port, documents):
    listings = client(port).bench.listings
    listings.drop()
    rng = random.Random(7)
    batch = []
    for i in range(documents):
        batch.append({"_id": i, "listing_id": 1_000_000 + i, "name": f"listing {i}",
                      "price": rng.randint(10, 900),
                      "address": {"market": rng.choice(["NYC", "SF", "LA", "PAR"]),
                                  "street": "x" * 40},
                      "description": "d" * 700,
                      "amenities": ["wifi", "tv", "kitchen"][:rng.randint(1, 3)]})
        if len(batch) == 1000:
            listings.insert_many(batch)
            batch = []
    if batch:
        listings.insert_many(batch)
    listings.create_index("listing_id", unique=True)


def send(c, kind, requests, documents, round_number):
    listings = c.bench.listings
    # Both passes read the same documents, so the counted one finds them in the block cache.
    rng = random.Random(1)
    for i in range(requests):
        k = rng.randrange(documents)
        if kind == "ping":
            c.admin.command("ping")
        elif kind == "find_id":
            assert listings.find_one({"_id": k}) is not None
        elif kind == "find_unique":
            assert listings.find_one({"listing_id": 1_000_000 + k}) is not None
        elif kind == "insert_one":
            c.bench.inserted.insert_one({"round": round_number, "n": i, "value": "v" * 100})
        elif kind == "update_id":
            assert listings.update_one({"_id": k}, {"$inc": {"price": 1}}).matched_count == 1
        else:
            raise SystemExit(f"unknown kind {kind}")


def callgrind(pid, *arguments):
    subprocess.run(["callgrind_control", *arguments, str(pid)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def count(port, pid, kind, requests, documents):
    c = client(port)
    send(c, kind, requests, documents, 1)
    callgrind(pid, "-z")
    callgrind(pid, "-i", "on")
    send(c, kind, requests, documents, 2)
    callgrind(pid, "-i", "off")
    callgrind(pid, "-d")


if __name__ == "__main__":
    port, action = int(sys.argv[1]), sys.argv[2]
    if action == "load":
        load(port, int(sys.argv[3]))
    else:
        count(port, int(sys.argv[3]), action, int(sys.argv[4]), int(sys.argv[5]))
