"""Capped collections against a model: random inserts (one at a time and in batches, with
duplicates), deletes, updates that change a document's size, and collMod resizes, with a
secondary index, checked after every step against a list in insertion order that evicts as
mongod's rules say (the oldest first while past `size` bytes or `max` documents, never the
newest). A tailable cursor reads, at each step, exactly the documents that follow the last one it
read, or fails with CappedPositionLost once that one is gone, and is opened again."""

import random

import bson
import pymongo
import pymongo.errors
import pytest

STEPS = 600


class Model:
    def __init__(self, size, max_docs):
        self.size, self.max = size, max_docs
        self.docs = []  # in insertion order

    def bytes(self):
        return sum(len(bson.BSON.encode(d)) for d in self.docs)

    def evict(self):
        while len(self.docs) > 1 and (self.bytes() > self.size or
                                      (self.max and len(self.docs) > self.max)):
            self.docs.pop(0)

    def insert(self, docs, ordered):
        present = {d["_id"] for d in self.docs}
        for doc in docs:
            if doc["_id"] in present:
                if ordered:
                    break
                continue
            present.add(doc["_id"])
            self.docs.append(doc)
        self.evict()


def random_doc(rng, next_id):
    return {"_id": next_id if rng.random() < 0.8 else rng.randrange(next_id + 1),
            "k": rng.randrange(10), "pad": "x" * rng.randrange(0, 300)}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_writes_match_the_model(db, seed):
    rng = random.Random(seed)
    size, max_docs = rng.choice([(4096, 0), (100_000, 12), (8192, 30)])
    kwargs = {"max": max_docs} if max_docs else {}
    db.command("create", "log", capped=True, size=size, **kwargs)
    log = db.log
    log.create_index("k")
    model = Model(size, max_docs)
    next_id = 0
    tail, last_seen = None, None
    for step in range(STEPS):
        action = rng.random()
        if action < 0.45:
            doc = random_doc(rng, next_id)
            next_id += 1
            try:
                log.insert_one(doc)
            except pymongo.errors.DuplicateKeyError:
                pass
            model.insert([doc], ordered=True)
        elif action < 0.65:
            docs = []
            for _ in range(rng.randrange(1, 8)):
                docs.append(random_doc(rng, next_id))
                next_id += 1
            ordered = rng.random() < 0.5
            try:
                log.insert_many(docs, ordered=ordered)
            except pymongo.errors.BulkWriteError:
                pass
            model.insert(docs, ordered)
        elif action < 0.75 and model.docs:
            k = rng.randrange(10)
            log.delete_many({"k": k})
            model.docs = [d for d in model.docs if d["k"] != k]
        elif action < 0.9 and model.docs:
            target = rng.choice(model.docs)
            pad = "y" * rng.randrange(0, 300)
            log.update_one({"_id": target["_id"]}, {"$set": {"pad": pad}})
            target["pad"] = pad
        elif action < 0.95:
            model.size = rng.choice([4096, 8192, 100_000])
            db.command("collMod", "log", cappedSize=model.size)
        else:
            model.max = rng.choice([0, 5, 12, 40])
            db.command("collMod", "log", cappedMax=model.max)
            if model.max == 0:
                model.max = 0x7FFFFFFF
        if tail is None and model.docs:
            # Batches that hold everything: the cursor's position is the last document it sent
            # (a smaller batch reads one further, to know whether the cursor is done).
            reply = db.command("find", "log", tailable=True, batchSize=10_000)
            tail = reply["cursor"]["id"]
            read = [d["_id"] for d in reply["cursor"]["firstBatch"]]
            assert read == [d["_id"] for d in model.docs], (seed, step)
            last_seen = read[-1]
        elif tail is not None:
            ids = [d["_id"] for d in model.docs]
            try:
                more = db.command("getMore", tail, collection="log", batchSize=10_000)
            except pymongo.errors.OperationFailure as lost:
                assert lost.code == 136 and last_seen not in ids, (seed, step, lost.details)
                tail = None
            else:
                assert last_seen in ids, (seed, step)
                read = [d["_id"] for d in more["cursor"]["nextBatch"]]
                assert read == ids[ids.index(last_seen) + 1:], (seed, step)
                if read:
                    last_seen = read[-1]
        got = list(log.find())
        assert [d["_id"] for d in got] == [d["_id"] for d in model.docs], (seed, step)
        assert got == model.docs, (seed, step)
        if step % 50 == 0:
            by_k = sorted(d["_id"] for d in log.find({"k": {"$gte": 0}}).hint("k_1"))
            assert by_k == sorted(d["_id"] for d in model.docs), (seed, step)
    assert db.command("validate", "log")["valid"] is True
