"""`quarry dump` and `quarry restore` against real quarryd servers: the directory layout and
archive format that mongodump writes (checked here against the published layout with an
independent parser and CRC-64), gzip, --query, namespace filters, --drop, a dump -> restore round
trip with indexes and options into a fresh server, piping an archive from one to the other, and
clear errors for damaged input.

The tool is the `quarry_tool` fixture (tests/integration/conftest.py).
"""

import gzip
import json
import os
import struct
import subprocess

import bson
import pymongo
import pytest
from bson import decode_all, json_util

from bson_samples import every_type_document
from quarry_server import free_port

RUN_TIMEOUT_S = 120
METADATA_KEYS = ["options", "indexes", "uuid", "collectionName", "type"]


def crc64_ecma(data, crc=0):
    """Go's hash/crc64 with the ECMA table (CRC-64/XZ): what the archive's EOF headers carry."""
    crc ^= 0xFFFFFFFFFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xC96C5795D7870F42 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFFFFFFFFFF


def run(tool, *args, input_bytes=None):
    return subprocess.run([tool, *args], capture_output=True, timeout=RUN_TIMEOUT_S,
                          input=input_bytes,
                          stdin=None if input_bytes is not None else subprocess.DEVNULL)


def stderr_of(result):
    return result.stderr.decode(errors="replace")


@pytest.fixture
def shop(client):
    db = client.dump_shop
    client.drop_database(db.name)
    db.create_collection("people", collation={"locale": "fr", "strength": 2})
    db.people.insert_many([{"_id": i, "name": n} for i, n in enumerate(["Zoé", "zoe", "Ann"])])
    db.orders.insert_many([{"_id": i, "total": i * 10, "tag": "t%d" % (i % 7)} for i in range(3000)])
    db.orders.create_index("total", unique=True)
    db.orders.create_index([("tag", 1), ("total", -1)], name="tag_total",
                           partialFilterExpression={"total": {"$gt": 5}})
    db.types.insert_many([every_type_document() for _ in range(3)])
    yield db
    client.drop_database(db.name)


@pytest.fixture
def target(make_server, request):
    server = make_server("restore-" + request.node.name)
    client = pymongo.MongoClient(server.uri(), uuidRepresentation="standard")
    yield server, client
    client.close()
    server.stop()


def same_contents(source_db, target_db, names=("people", "orders", "types")):
    for name in names:
        assert list(target_db[name].find().sort("_id", 1)) == list(source_db[name].find().sort("_id", 1)), name
        source_indexes = {i["name"]: dict(i) for i in source_db[name].list_indexes()}
        target_indexes = {i["name"]: dict(i) for i in target_db[name].list_indexes()}
        assert target_indexes == source_indexes, name
    assert target_db.people.options() == source_db.people.options()


def test_directory_layout_is_mongodumps(quarry_tool, server, shop, tmp_path):
    out = tmp_path / "dump"
    result = run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, "-o", str(out))
    assert result.returncode == 0, stderr_of(result)
    assert f"done dumping {shop.name}.orders (3000 documents)" in stderr_of(result)
    folder = out / shop.name
    assert sorted(os.listdir(folder)) == sorted(
        f"{name}.{suffix}" for name in ["orders", "people", "types"] for suffix in ["bson", "metadata.json"])
    # .bson: the documents back to back, nothing else.
    documents = decode_all((folder / "orders.bson").read_bytes())
    assert sorted(documents, key=lambda d: d["_id"]) == list(shop.orders.find().sort("_id", 1))
    metadata = json.loads((folder / "orders.metadata.json").read_text())
    assert list(metadata) == METADATA_KEYS
    assert metadata["collectionName"] == "orders" and metadata["type"] == "collection"
    assert len(metadata["uuid"]) == 32 and int(metadata["uuid"], 16) >= 0
    assert metadata["indexes"][1]["v"] == {"$numberInt": "2"}  # canonical Extended JSON
    indexes = json_util.loads(json.dumps(metadata["indexes"]))
    assert [i["name"] for i in indexes] == [i["name"] for i in shop.orders.list_indexes()]
    people = json_util.loads((folder / "people.metadata.json").read_text())
    assert people["options"]["collation"]["locale"] == "fr"


def test_dump_then_restore_into_a_fresh_server(quarry_tool, server, shop, target, tmp_path):
    out = tmp_path / "dump"
    # The whole server: other tests' databases come along, this one's must be exact.
    assert run(quarry_tool, "dump", "--uri", server.uri(), "-o", str(out)).returncode == 0
    server2, client2 = target
    result = run(quarry_tool, "restore", "--uri", server2.uri(), "--nsInclude", f"{shop.name}.*",
                 str(out))
    assert result.returncode == 0, stderr_of(result)
    assert stderr_of(result).strip().splitlines()[-1] == \
        "3006 document(s) restored successfully. 0 document(s) failed to restore."
    same_contents(shop, client2[shop.name])
    # The restored unique index is enforced.
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        client2[shop.name].orders.insert_one({"total": 10})


def parse_archive(data):
    """The archive as the published specification lays it out: (header, metadata, segments,
    ends), where segments and ends are keyed by "db.collection"."""
    assert data[:4] == b"\x6d\xe2\x99\x81"
    pos = 4

    def document():
        nonlocal pos
        (length,) = struct.unpack_from("<i", data, pos)
        if length == -1:
            pos += 4
            return None
        doc = decode_all(data[pos:pos + length])[0]
        pos += length
        return doc

    header = document()
    metadata = []
    while (entry := document()) is not None:
        metadata.append(entry)
    documents, ends, raw = {}, {}, {}
    while pos < len(data):
        head = document()
        ns = head["db"] + "." + head["collection"]
        if head["EOF"]:
            ends[ns] = head["CRC"]
            assert document() is None  # its terminator
            continue
        assert head["CRC"] == 0
        while True:
            (length,) = struct.unpack_from("<i", data, pos)
            if length == -1:
                pos += 4
                break
            raw.setdefault(ns, bytearray()).extend(data[pos:pos + length])
            documents.setdefault(ns, []).extend(decode_all(data[pos:pos + length]))
            pos += length
    for ns, crc in ends.items():
        assert crc & 0xFFFFFFFFFFFFFFFF == crc64_ecma(bytes(raw.get(ns, b""))), ns
    return header, metadata, documents, ends


def test_archive_follows_the_published_format(quarry_tool, server, shop, tmp_path):
    archive = tmp_path / "shop.archive"
    result = run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, f"--archive={archive}", "-j", "2")
    assert result.returncode == 0, stderr_of(result)
    header, metadata, documents, ends = parse_archive(archive.read_bytes())
    assert header["version"] == "0.1" and header["concurrent_collections"] == 2
    assert {"server_version", "tool_version"} <= set(header)
    names = {m["db"] + "." + m["collection"] for m in metadata}
    assert names == {f"{shop.name}.{c}" for c in ["orders", "people", "types"]}
    for entry in metadata:
        assert set(entry) == {"db", "collection", "metadata", "size"}
        assert list(json.loads(entry["metadata"])) == METADATA_KEYS
    assert set(ends) == names
    assert sorted(documents[f"{shop.name}.orders"], key=lambda d: d["_id"]) == \
        list(shop.orders.find().sort("_id", 1))


def test_gzip_directory_and_archive_restore(quarry_tool, server, shop, target, tmp_path):
    out = tmp_path / "dump"
    assert run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, "-o", str(out),
               "--gzip").returncode == 0
    files = sorted(os.listdir(out / shop.name))
    assert all(f.endswith(".gz") for f in files), files
    with gzip.open(out / shop.name / "people.bson.gz") as f:
        assert len(decode_all(f.read())) == 3
    archive = tmp_path / "shop.archive.gz"
    assert run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, f"--archive={archive}",
               "--gzip").returncode == 0
    with gzip.open(archive) as f:
        parse_archive(f.read())
    server2, client2 = target
    result = run(quarry_tool, "restore", "--uri", server2.uri(), "--gzip", str(out))
    assert result.returncode == 0, stderr_of(result)
    same_contents(shop, client2[shop.name])
    result = run(quarry_tool, "restore", "--uri", server2.uri(), "--gzip", "--drop", f"--archive={archive}")
    assert result.returncode == 0, stderr_of(result)
    same_contents(shop, client2[shop.name])


def test_archive_through_a_pipe(quarry_tool, server, shop, target):
    server2, client2 = target
    dump = subprocess.Popen([quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, "--archive"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    restore = subprocess.run([quarry_tool, "restore", "--uri", server2.uri(), "--archive"],
                             stdin=dump.stdout, capture_output=True, timeout=RUN_TIMEOUT_S)
    dump.stdout.close()
    assert dump.wait(timeout=RUN_TIMEOUT_S) == 0, dump.stderr.read()
    assert restore.returncode == 0, stderr_of(restore)
    same_contents(shop, client2[shop.name])


def test_query_namespace_filters_and_drop(quarry_tool, server, shop, target, tmp_path):
    out = tmp_path / "dump"
    result = run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, "-c", "orders",
                 "-q", '{"total": {"$lt": 100}}', "-o", str(out))
    assert result.returncode == 0, stderr_of(result)
    assert os.listdir(out / shop.name) == ["orders.bson", "orders.metadata.json"] or \
        sorted(os.listdir(out / shop.name)) == ["orders.bson", "orders.metadata.json"]
    assert len(decode_all((out / shop.name / "orders.bson").read_bytes())) == 10

    full = tmp_path / "full"
    assert run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, "-o", str(full)).returncode == 0
    server2, client2 = target
    result = run(quarry_tool, "restore", "--uri", server2.uri(), "--nsInclude", f"{shop.name}.*",
                 "--nsExclude", f"{shop.name}.types", str(full))
    assert result.returncode == 0, stderr_of(result)
    assert sorted(client2[shop.name].list_collection_names()) == ["orders", "people"]
    # Restoring again without --drop meets the same _ids; with --drop it replaces them.
    client2[shop.name].people.insert_one({"_id": 99, "name": "extra"})
    again = run(quarry_tool, "restore", "--uri", server2.uri(), "--nsInclude", f"{shop.name}.people", str(full))
    assert again.returncode == 0
    assert "0 document(s) restored successfully. 3 document(s) failed to restore." in stderr_of(again)
    assert "E11000" in stderr_of(again)
    dropped = run(quarry_tool, "restore", "--uri", server2.uri(), "--nsInclude", f"{shop.name}.people",
                  "--drop", str(full))
    assert dropped.returncode == 0, stderr_of(dropped)
    assert client2[shop.name].people.count_documents({}) == 3


def test_damaged_input_is_reported_and_what_came_before_is_kept(quarry_tool, server, shop, target, tmp_path):
    server2, client2 = target
    not_archive = tmp_path / "x.archive"
    not_archive.write_bytes(b"this is not an archive")
    result = run(quarry_tool, "restore", "--uri", server2.uri(), f"--archive={not_archive}")
    assert result.returncode == 1
    assert "not a readable mongodump archive: it does not start with the archive magic number" in stderr_of(result)

    archive = tmp_path / "orders.archive"
    assert run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, "-c", "orders",
               f"--archive={archive}").returncode == 0
    data = bytearray(archive.read_bytes())
    marker = b"t3\x00"  # inside one of the documents
    data[data.index(marker) + 1] = ord("9")
    (tmp_path / "flipped.archive").write_bytes(bytes(data))
    result = run(quarry_tool, "restore", "--uri", server2.uri(), f"--archive={tmp_path / 'flipped.archive'}")
    assert result.returncode == 1
    assert f"the checksum of {shop.name}.orders does not match its documents" in stderr_of(result)

    out = tmp_path / "dump"
    assert run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, "-c", "orders",
               "-o", str(out)).returncode == 0
    path = out / shop.name / "orders.bson"
    whole = path.read_bytes()
    path.write_bytes(whole[:len(whole) // 2 + 7])  # inside a document
    result = run(quarry_tool, "restore", "--uri", server2.uri(), "--drop", str(out))
    assert result.returncode == 1
    assert f"{path}: the file ends inside a document at byte" in stderr_of(result)
    restored = client2[shop.name].orders.count_documents({})
    assert 0 < restored < 3000
    assert f"{restored} document(s) restored successfully." in stderr_of(result)


def test_bad_arguments_and_unreachable_servers(quarry_tool, tmp_path):
    uri = f"mongodb://127.0.0.1:{free_port()}/?serverSelectionTimeoutMS=500"
    result = run(quarry_tool, "dump", "--uri", uri, "-o", str(tmp_path / "d"))
    assert result.returncode == 1 and stderr_of(result).startswith("quarry dump: ")
    result = run(quarry_tool, "dump", "--uri", uri, "-q", "{}")
    assert result.returncode == 2 and "--query needs --db and --collection" in stderr_of(result)
    result = run(quarry_tool, "restore", "--uri", uri, str(tmp_path / "missing"))
    assert result.returncode == 2 and "no dump directory" in stderr_of(result)


@pytest.mark.parametrize("form", ["directory", "archive"])
def test_point_in_time_dump_replays_the_changes_made_while_it_ran(quarry_tool, make_server, target,
                                                                  tmp_path, form):
    source = make_server("oplog-source-" + form, extra_args=["--enableTestCommands"])
    client = pymongo.MongoClient(source.uri())
    try:
        db = client.pit
        db.big.insert_many([{"_id": i, "pad": "x" * 100} for i in range(20000)])
        db.live.insert_many([{"_id": i, "n": 0} for i in range(100)])
        # Every getMore waits 30 ms, so reading `big` takes longer than the writes below.
        client.admin.command("configureFailPoint", "failCommand", mode="alwaysOn",
                             data={"failCommands": ["getMore"], "blockConnection": True,
                                   "blockTimeMS": 30})
        out = tmp_path / ("dump" if form == "directory" else "pit.archive")
        where = ["-o", str(out)] if form == "directory" else [f"--archive={out}"]
        dump = subprocess.Popen([quarry_tool, "dump", "--uri", source.uri(), "--oplog", "-j", "1", *where],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert dump.stderr.readline()  # the first collection is being read
        for i in range(100, 150):
            db.live.insert_one({"_id": i, "n": 1})
        for i in range(0, 100, 2):
            db.live.update_one({"_id": i}, {"$inc": {"n": 5}, "$set": {"touched": True}})
        db.live.delete_many({"_id": {"$in": list(range(1, 40, 3))}})
        db.live.replace_one({"_id": 99}, {"replaced": "yes"})
        stderr = dump.stderr.read().decode()
        assert dump.wait(timeout=RUN_TIMEOUT_S) == 0, stderr
        client.admin.command("configureFailPoint", "failCommand", mode="off")
        assert "captured " in stderr and " oplog entr" in stderr, stderr
        if form == "directory":
            entries = decode_all((out / "oplog.bson").read_bytes())
            assert entries and {e["op"] for e in entries} <= {"i", "u", "d"}
            assert all(e["ns"].startswith("pit.") and "ts" in e and "o" in e for e in entries)

        server2, client2 = target
        where = [str(out)] if form == "directory" else [f"--archive={out}"]
        result = run(quarry_tool, "restore", "--uri", server2.uri(), "--oplogReplay", *where)
        assert result.returncode == 0, stderr_of(result)
        assert "replayed " in stderr_of(result)
        assert list(client2.pit.live.find().sort("_id", 1)) == list(db.live.find().sort("_id", 1))
        assert client2.pit.big.count_documents({}) == 20000
    finally:
        client.close()
        source.stop()


def test_oplog_needs_a_whole_server_dump_and_replay_needs_an_oplog(quarry_tool, server, shop, target,
                                                                   tmp_path):
    result = run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, "--oplog")
    assert result.returncode == 2
    assert "--oplog is only for dumps of the whole server (no --db)" in stderr_of(result)
    out = tmp_path / "dump"
    assert run(quarry_tool, "dump", "--uri", server.uri(), "--db", shop.name, "-o", str(out)).returncode == 0
    server2, _ = target
    result = run(quarry_tool, "restore", "--uri", server2.uri(), "--oplogReplay", str(out))
    assert result.returncode == 1
    assert "--oplogReplay: the dump has no oplog.bson" in stderr_of(result)


def test_users_and_roles_travel_with_the_admin_database(quarry_tool, make_server, tmp_path):
    source = make_server("users-source")
    target = make_server("users-target")
    src = pymongo.MongoClient(source.uri())
    dst = pymongo.MongoClient(target.uri())
    src.admin.command("createRole", "reader", roles=[],
                      privileges=[{"resource": {"db": "shop", "collection": ""},
                                   "actions": ["find"]}])
    src.admin.command("createUser", "alice", pwd="alice-pw", roles=["reader"])
    src.shop.command("createUser", "carol", pwd="carol-pw", roles=[{"role": "read", "db": "shop"}])
    src.shop.items.insert_one({"_id": 1})
    dst.admin.command("createUser", "alice", pwd="other-pw", roles=["root"])
    dst.admin.command("createUser", "bob", pwd="bob-pw", roles=["root"])

    out = tmp_path / "dump"
    result = run(quarry_tool, "dump", "--uri", source.uri(), "-o", str(out))
    assert result.returncode == 0, stderr_of(result)
    for name in ("system.users", "system.roles"):
        assert (out / "admin" / f"{name}.bson").is_file()
        assert (out / "admin" / f"{name}.metadata.json").is_file()
    dumped = decode_all((out / "admin" / "system.users.bson").read_bytes())
    assert sorted(u["_id"] for u in dumped) == ["admin.alice", "shop.carol"]

    # mongodump also writes the source's admin.system.version, which stays the target's own.
    (out / "admin" / "system.version.bson").write_bytes(
        bson.encode({"_id": "featureCompatibilityVersion", "version": "7.0"}))
    # Merged as mongorestore merges them: the dump's users replace the target's of the same
    # name, the target's others stay.
    result = run(quarry_tool, "restore", "--uri", target.uri(), str(out))
    assert result.returncode == 0, stderr_of(result)
    expected = {u["_id"]: u for u in src.admin.system.users.find()}
    expected["admin.bob"] = dst.admin.system.users.find_one({"_id": "admin.bob"})
    assert {u["_id"]: u for u in dst.admin.system.users.find()} == expected
    assert list(dst.admin.system.roles.find()) == list(src.admin.system.roles.find())
    assert "system.version" not in dst.admin.list_collection_names()
    # With --drop, users and roles the dump lacks go.
    result = run(quarry_tool, "restore", "--uri", target.uri(), "--drop",
                 "--nsInclude", "admin.*", str(out))
    assert result.returncode == 0, stderr_of(result)
    assert "removed 1 not in the dump (--drop)" in stderr_of(result)
    assert [u["_id"] for u in dst.admin.system.users.find().sort("_id", 1)] == \
        ["admin.alice", "shop.carol"]
    dst.close()

    # The restored credentials and privileges work once the target requires sign-in.
    target.extra_args.append("--auth")
    target.restart()
    alice = pymongo.MongoClient(target.uri(), username="alice", password="alice-pw",
                                authSource="admin")
    assert alice.shop.items.count_documents({}) == 1  # restored with the shop database
    with pytest.raises(pymongo.errors.OperationFailure) as refused:
        alice.shop.items.insert_one({"_id": 2})
    assert refused.value.code == 13
    alice.close()
    carol = pymongo.MongoClient(target.uri(), username="carol", password="carol-pw",
                                authSource="shop")
    assert carol.shop.command("connectionStatus")["authInfo"]["authenticatedUsers"] == \
        [{"user": "carol", "db": "shop"}]
    carol.close()
    src.close()
    source.stop()
    target.stop()
