"""Long-running commands must not hold up other clients' short requests: while four clients
run collection scans and aggregations, a fifth client's ping, find by _id and find by a unique
field stay fast."""
import threading
import time

import pymongo

DOCUMENTS = 100_000
# The slow clients' commands each scan the whole collection (large enough that each takes well
# over 2 x P99_LIMIT_MS even on a fast, idle machine); a ping that had to wait for one
# would take at least that long.
P99_LIMIT_MS = 50


def _load(collection):
    text = "lorem ipsum dolor sit amet " * 30
    batch = [{"_id": i, "u": f"u{i}", "k": i % 1000, "text": f"{text}{i}"}
             for i in range(DOCUMENTS)]
    collection.insert_many(batch, ordered=False)
    collection.create_index("u", unique=True)


def _slow_aggregation(collection):
    list(collection.aggregate([
        {"$group": {"_id": "$k", "n": {"$sum": 1}, "longest": {"$max": {"$strLenCP": "$text"}}}},
        {"$sort": {"n": -1, "_id": 1}},
    ]))


def _slow_regex_scan(collection):
    list(collection.find({"text": {"$regex": "dolor sit amet 9+$"}}))


def _run_until(stop, operation, collection, durations):
    while not stop.is_set():
        started = time.perf_counter()
        operation(collection)
        durations.append(time.perf_counter() - started)


def test_ping_and_point_read_stay_fast_while_slow_commands_run(own_server):
    uri = own_server.uri()
    loader = pymongo.MongoClient(uri)
    collection = loader.isolation.docs
    _load(collection)

    stop = threading.Event()
    slow_durations = []
    workers = []
    for operation in (_slow_aggregation, _slow_aggregation, _slow_regex_scan, _slow_regex_scan):
        client = pymongo.MongoClient(uri)  # one connection per slow client
        thread = threading.Thread(target=_run_until,
                                  args=(stop, operation, client.isolation.docs, slow_durations))
        workers.append((thread, client))
        thread.start()

    prober = pymongo.MongoClient(uri)
    prober.admin.command("ping")  # connected before measuring
    docs = prober.isolation.docs
    latencies_ms = []
    time.sleep(0.3)  # the slow commands are under way
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        started = time.perf_counter()
        prober.admin.command("ping")
        key = len(latencies_ms) % DOCUMENTS
        assert docs.find_one({"_id": key})["k"] == key % 1000
        assert docs.find_one({"u": f"u{key}"})["_id"] == key
        latencies_ms.append((time.perf_counter() - started) * 1000)
        time.sleep(0.005)
    stop.set()
    for thread, client in workers:
        thread.join()
        client.close()
    prober.close()
    loader.close()

    # The measurement means something only if the slow commands were slow.
    slowest = max(slow_durations)
    assert slowest * 1000 > 2 * P99_LIMIT_MS, f"the slow commands took only {slowest:.3f} s"
    latencies_ms.sort()
    p99 = latencies_ms[int(len(latencies_ms) * 0.99)]
    assert p99 < P99_LIMIT_MS, (
        f"ping + two point reads p99 {p99:.1f} ms while slow commands ran "
        f"(slowest {slowest:.2f} s; {len(latencies_ms)} samples)")
