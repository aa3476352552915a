"""`quarry watch` against a real quarryd: one relaxed Extended JSON line per event, a resume
token file that lets a restarted watcher print exactly the events it missed, a clean stop on
SIGTERM/SIGINT, and one clear stderr line for an unreachable server or a bad token file.

The tool is the `quarry_tool` fixture (tests/integration/conftest.py).
"""

import os
import queue
import signal
import subprocess
import threading

import pytest
from bson import json_util

from quarry_server import free_port  # noqa: E402

LINE_TIMEOUT_S = 10
QUIET_S = 1.5
EXIT_TIMEOUT_S = 10



class Watcher:
    """A `quarry watch` subprocess whose stdout lines are collected by a thread."""

    def __init__(self, tool, *args):
        self.proc = subprocess.Popen([tool, "watch", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)

    def next_event(self, timeout=LINE_TIMEOUT_S):
        line = self.lines.get(timeout=timeout)
        assert line.endswith("\n")
        return json_util.loads(line)

    def events_until_quiet(self):
        events = []
        while True:
            try:
                events.append(self.next_event(timeout=QUIET_S))
            except queue.Empty:
                return events

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def wait_until_live(watcher, coll):
    """Inserts markers until the watcher prints one: the stream is then open, and every later
    write is after its start. Returns the events printed meanwhile (markers only)."""
    seen = []
    for n in range(50):
        coll.insert_one({"_id": f"marker{n}", "marker": True})
        try:
            seen.append(watcher.next_event(timeout=0.3))
            return seen + watcher.events_until_quiet()
        except queue.Empty:
            assert watcher.proc.poll() is None, watcher.proc.stderr.read()
    pytest.fail("the watcher printed no event for 50 marker inserts")


def assert_token_at_or_after(token_file, event):
    """The file holds the last event's token, or (after an empty batch) the stream's
    postBatchResumeToken, which is later. Tokens' _data are hex strings that sort by
    position."""
    token = json_util.loads(token_file.read_text())
    assert set(token) == {"_data"}
    assert token["_data"] >= event["_id"]["_data"][:len(token["_data"])]


def test_prints_one_line_per_event_with_update_lookup(quarry_tool, server, db, tmp_path):
    args = ["--uri", server.uri(), "--db", db.name, "--collection", "c",
            "--full-document", "updateLookup", "--resume-token-file", str(tmp_path / "t")]
    with Watcher(quarry_tool, *args) as watcher:
        wait_until_live(watcher, db.c)
        db.c.insert_one({"_id": 1, "a": 1})
        db.c.update_one({"_id": 1}, {"$set": {"a": 2}})
        db.other.insert_one({"_id": 1})  # another collection: not printed
        # updateLookup reads the document when the event is delivered: delete it only once the
        # update's event is out, or the lookup may find it gone (null, as in mongod).
        events = [watcher.next_event() for _ in range(2)]
        db.c.delete_one({"_id": 1})
        events.append(watcher.next_event())
        assert watcher.events_until_quiet() == []
        assert watcher.stop() == 0
    assert [e["operationType"] for e in events] == ["insert", "update", "delete"]
    assert events[0]["fullDocument"] == {"_id": 1, "a": 1}
    assert events[1]["fullDocument"] == {"_id": 1, "a": 2}
    assert events[1]["updateDescription"]["updatedFields"] == {"a": 2}
    assert all(e["ns"] == {"db": db.name, "coll": "c"} for e in events)
    assert_token_at_or_after(tmp_path / "t", events[2])


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm on this machine")
def test_a_killed_watcher_leaves_nothing_in_shared_memory(quarry_tool, server, db):
    # A file /dev/shm/mongoc-<pid> left by a killed tool makes a later tool process that gets
    # the same pid print a driver warning on stderr before its own output.
    args = ["--uri", server.uri(), "--db", db.name, "--collection", "c"]
    with Watcher(quarry_tool, *args) as watcher:
        wait_until_live(watcher, db.c)
        watcher.stop(signal.SIGKILL)
    assert not os.path.exists(f"/dev/shm/mongoc-{watcher.proc.pid}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL],
                         ids=["sigterm", "sigint", "sigkill"])
def test_restarted_watcher_prints_exactly_the_events_it_missed(quarry_tool, server, db,
                                                               tmp_path, sig):
    token_file = tmp_path / "token.json"
    args = ["--uri", server.uri(), "--db", db.name, "--collection", "c",
            "--resume-token-file", str(token_file)]
    with Watcher(quarry_tool, *args) as first:
        wait_until_live(first, db.c)
        db.c.insert_many([{"_id": i} for i in range(5)])
        db.c.update_one({"_id": 0}, {"$set": {"x": 1}})
        events = [first.next_event() for _ in range(6)]
        assert [e["documentKey"]["_id"] for e in events] == [0, 1, 2, 3, 4, 0]
        assert first.events_until_quiet() == []
        status = first.stop(sig)
        assert status == (-signal.SIGKILL if sig == signal.SIGKILL else 0)
    assert_token_at_or_after(token_file, events[-1])

    db.c.insert_many([{"_id": i} for i in range(5, 8)])
    db.c.delete_one({"_id": 1})
    with Watcher(quarry_tool, *args) as second:
        later = [second.next_event() for _ in range(4)]
        assert second.events_until_quiet() == []
        assert second.stop() == 0
    assert [(e["operationType"], e["documentKey"]["_id"]) for e in later] == [
        ("insert", 5), ("insert", 6), ("insert", 7), ("delete", 1)]
    assert_token_at_or_after(token_file, later[-1])


def test_database_watch_sees_every_collection(quarry_tool, server, db):
    with Watcher(quarry_tool, "--uri", server.uri(), "--db", db.name) as watcher:
        wait_until_live(watcher, db.c)
        db.a.insert_one({"_id": 1})
        db.b.insert_one({"_id": 2})
        events = [watcher.next_event() for _ in range(2)]
        assert watcher.stop() == 0
    assert [e["ns"]["coll"] for e in events] == ["a", "b"]


def run_failing(quarry_tool, *args):
    done = subprocess.run([quarry_tool, "watch", *args], capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_unreachable_server_is_one_error_line(quarry_tool):
    uri = f"mongodb://127.0.0.1:{free_port()}/?serverSelectionTimeoutMS=1000"
    line = run_failing(quarry_tool, "--uri", uri)
    assert line.startswith("quarry watch: ")
    assert "127.0.0.1" in line


def test_bad_token_file_is_one_error_line(quarry_tool, server, tmp_path):
    token_file = tmp_path / "token.json"
    token_file.write_text("not json at all\n")
    line = run_failing(quarry_tool, "--uri", server.uri(), "--resume-token-file",
                       str(token_file))
    assert "resume token file" in line and str(token_file) in line


def test_token_the_server_cannot_resume_from_is_one_error_line(quarry_tool, server, db,
                                                               tmp_path):
    token_file = tmp_path / "token.json"
    token_file.write_text('{"_data": "00"}\n')
    line = run_failing(quarry_tool, "--uri", server.uri(), "--db", db.name, "--collection", "c",
                       "--resume-token-file", str(token_file))
    assert line.startswith("quarry watch: ")
