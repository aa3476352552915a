"""Files quarryd writes are its owner's alone, as mongod's are, whatever umask it starts with:
directories 0700, files 0600 (data, WAL, logs, search-index snapshots)."""

import os
import stat

import pymongo

from quarry_server import CLIENT_OPTIONS


def modes_under(root):
    """(path, permission bits) of root and of everything below it."""
    found = [(root, stat.S_IMODE(os.stat(root).st_mode))]
    for parent, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(parent, name)
            found.append((path, stat.S_IMODE(os.lstat(path).st_mode)))
    return found


def test_data_and_logs_are_private_under_a_permissive_umask(make_server):
    server = make_server("permissions", start=False)
    parent = os.path.join(server.base_dir, "fresh")
    dbpath = os.path.join(parent, "db")  # quarryd creates it
    logdir = os.path.join(parent, "logs")
    os.makedirs(logdir)
    logpath = os.path.join(logdir, "quarryd.log")  # quarryd creates it
    server.dbpath = parent
    server.args = ["--port", str(server.port), "--bind_ip", server.host, "--dbpath", dbpath,
                   "--logpath", logpath]
    previous = os.umask(0o002)  # the child inherits a group- and world-readable default
    try:
        server.start()
    finally:
        os.umask(previous)
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as client:
        db = client.perms
        db.docs.insert_many([{"_id": i, "v": [float(i), 1.0]} for i in range(100)])
        db.command({"createSearchIndexes": "docs", "indexes": [{
            "name": "vectors", "type": "vectorSearch",
            "definition": {"fields": [{"type": "vector", "path": "v", "numDimensions": 2,
                                       "similarity": "euclidean"}]}}]})
    assert server.stop() == 0  # a clean stop writes the search-index snapshot too

    created = modes_under(dbpath) + [(logpath, stat.S_IMODE(os.stat(logpath).st_mode))]
    assert any(path.endswith(".log") and "db" in path for path, _ in created), created  # WAL
    assert any("search_indexes" in path for path, _ in created), created
    wrong = [(path, oct(mode)) for path, mode in created
             if mode != (0o700 if os.path.isdir(path) else 0o600)]
    assert wrong == []
