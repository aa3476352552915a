"""GridFS with pymongo's gridfs.GridFSBucket: byte-exact round trips of a 100 MB file, finding,
renaming, deleting and revisions, edge sizes, and the indexes the driver creates."""

import hashlib
import os

import gridfs
import gridfs.errors
import pymongo.errors
import pytest
from bson.objectid import ObjectId

MIB = 1024 * 1024
DEFAULT_CHUNK = 255 * 1024
DUPLICATE_KEY = 11000


class RandomStream:
    """`size` random bytes read like a file, hashed as they go out (no 100 MB buffer)."""

    def __init__(self, size):
        self.left = size
        self.sha256 = hashlib.sha256()

    def read(self, n=-1):
        n = self.left if n is None or n < 0 else min(n, self.left)
        data = os.urandom(n)
        self.left -= n
        self.sha256.update(data)
        return data


def download_sha256(bucket, file_id, read_size=4 * MIB):
    digest, total = hashlib.sha256(), 0
    with bucket.open_download_stream(file_id) as stream:
        while True:
            data = stream.read(read_size)
            if not data:
                break
            digest.update(data)
            total += len(data)
    return digest.hexdigest(), total


@pytest.mark.parametrize("chunk_size", [DEFAULT_CHUNK, 1 * MIB + 7], ids=["default", "custom"])
def test_100_mb_of_random_bytes_download_exactly_as_uploaded(db, chunk_size):
    size = 100 * MIB
    bucket = gridfs.GridFSBucket(db, chunk_size_bytes=chunk_size)
    source = RandomStream(size)

    file_id = bucket.upload_from_stream("big.bin", source)

    assert download_sha256(bucket, file_id) == (source.sha256.hexdigest(), size)
    info = db.fs.files.find_one({"_id": file_id})
    assert info["length"] == size
    assert info["chunkSize"] == chunk_size
    assert db.fs.chunks.count_documents({"files_id": file_id}) == -(-size // chunk_size)


def test_find_by_filename_and_metadata(db):
    bucket = gridfs.GridFSBucket(db)
    a = bucket.upload_from_stream("a.txt", b"alpha", metadata={"owner": "ann", "tags": ["x"]})
    b = bucket.upload_from_stream("b.txt", b"beta", metadata={"owner": "bob"})
    bucket.upload_from_stream("a.txt", b"alpha 2", metadata={"owner": "bob"})

    by_name = sorted(f._id for f in bucket.find({"filename": "a.txt"}))
    by_owner = [f._id for f in bucket.find({"metadata.owner": "ann"})]
    by_tag = [f.filename for f in bucket.find({"metadata.tags": "x"})]
    newest_first = [f.read() for f in bucket.find({"filename": "a.txt"}, sort=[("uploadDate", -1),
                                                                             ("_id", -1)])]

    assert len(by_name) == 2 and a in by_name
    assert by_owner == [a]
    assert by_tag == ["a.txt"]
    assert newest_first == [b"alpha 2", b"alpha"]
    assert [f._id for f in bucket.find({"metadata.owner": "bob", "filename": "b.txt"})] == [b]


def test_delete_removes_the_file_and_every_chunk(db):
    bucket = gridfs.GridFSBucket(db, chunk_size_bytes=1024)
    keep = bucket.upload_from_stream("keep", os.urandom(10_000))
    gone = bucket.upload_from_stream("gone", os.urandom(10_000))

    bucket.delete(gone)

    assert db.fs.files.count_documents({"_id": gone}) == 0
    assert db.fs.chunks.count_documents({"files_id": gone}) == 0
    assert db.fs.chunks.count_documents({"files_id": keep}) == 10
    with pytest.raises(gridfs.errors.NoFile):
        bucket.open_download_stream(gone)
    with pytest.raises(gridfs.errors.NoFile):
        bucket.delete(gone)


def test_rename_keeps_the_content(db):
    bucket = gridfs.GridFSBucket(db)
    file_id = bucket.upload_from_stream("old", b"content")

    bucket.rename(file_id, "new")

    assert bucket.open_download_stream_by_name("new").read() == b"content"
    with pytest.raises(gridfs.errors.NoFile):
        bucket.open_download_stream_by_name("old")
    # An int id: pymongo 3.11 formats the missing id into its NoFile message with %i.
    with pytest.raises(gridfs.errors.NoFile):
        bucket.rename(404, "other")


def test_download_by_name_picks_the_revision(db):
    bucket = gridfs.GridFSBucket(db)
    for version in range(3):
        bucket.upload_from_stream("report", f"version {version}".encode())

    def revision(n):
        return bucket.open_download_stream_by_name("report", revision=n).read()

    assert revision(-1) == b"version 2"
    assert revision(0) == b"version 0"
    assert revision(1) == b"version 1"
    assert revision(-3) == b"version 0"
    assert bucket.open_download_stream_by_name("report").read() == b"version 2"
    with pytest.raises(gridfs.errors.NoFile):
        revision(3)
    with pytest.raises(gridfs.errors.NoFile):
        revision(-4)


def test_empty_file_has_no_chunks_and_reads_back_empty(db):
    bucket = gridfs.GridFSBucket(db)

    file_id = bucket.upload_from_stream("empty", b"")

    assert db.fs.files.find_one({"_id": file_id})["length"] == 0
    assert db.fs.chunks.count_documents({"files_id": file_id}) == 0
    assert bucket.open_download_stream(file_id).read() == b""


@pytest.mark.parametrize("size", [DEFAULT_CHUNK, DEFAULT_CHUNK + 1], ids=["one_chunk", "one_more"])
def test_file_at_a_chunk_boundary_round_trips(db, size):
    bucket = gridfs.GridFSBucket(db)
    data = os.urandom(size)

    file_id = bucket.upload_from_stream("edge", data)

    assert bucket.open_download_stream(file_id).read() == data
    chunks = list(db.fs.chunks.find({"files_id": file_id}, sort=[("n", 1)]))
    assert [c["n"] for c in chunks] == list(range(-(-size // DEFAULT_CHUNK)))
    assert len(chunks[0]["data"]) == DEFAULT_CHUNK


def test_missing_file_raises_no_file(db):
    bucket = gridfs.GridFSBucket(db)
    bucket.upload_from_stream("present", b"x")

    with pytest.raises(gridfs.errors.NoFile):
        bucket.open_download_stream(ObjectId())
    with pytest.raises(gridfs.errors.NoFile):
        bucket.open_download_stream_by_name("absent")
    with pytest.raises(gridfs.errors.NoFile):
        bucket.delete(ObjectId())


def test_driver_creates_its_indexes_and_chunk_numbers_are_unique(db):
    bucket = gridfs.GridFSBucket(db)
    file_id = bucket.upload_from_stream("indexed", b"abc")

    files_indexes = {i["name"]: i for i in db.fs.files.list_indexes()}
    chunks_indexes = {i["name"]: i for i in db.fs.chunks.list_indexes()}

    assert dict(files_indexes["filename_1_uploadDate_1"]["key"]) == {"filename": 1,
                                                                     "uploadDate": 1}
    assert not files_indexes["filename_1_uploadDate_1"].get("unique", False)
    assert dict(chunks_indexes["files_id_1_n_1"]["key"]) == {"files_id": 1, "n": 1}
    assert chunks_indexes["files_id_1_n_1"]["unique"] is True
    with pytest.raises(pymongo.errors.DuplicateKeyError) as error:
        db.fs.chunks.insert_one({"files_id": file_id, "n": 0, "data": b"again"})
    assert error.value.code == DUPLICATE_KEY
    assert bucket.open_download_stream(file_id).read() == b"abc"


def test_chunk_reads_use_the_files_id_n_index(db):
    bucket = gridfs.GridFSBucket(db, chunk_size_bytes=1024)
    file_id = bucket.upload_from_stream("planned", os.urandom(50 * 1024))
    bucket.upload_from_stream("other", os.urandom(50 * 1024))

    explain = db.command("explain", {"find": "fs.chunks", "filter": {"files_id": file_id},
                                     "sort": {"n": 1}}, verbosity="executionStats")

    stats = explain["executionStats"]
    assert (stats["nReturned"], stats["totalDocsExamined"], stats["totalKeysExamined"]) == (50, 50,
                                                                                            50)
    assert "files_id_1_n_1" in str(explain["queryPlanner"]["winningPlan"])
