"""The quarryd that runs checksums RocksDB's WAL with storage's CRC32C (storage/rocksdb_crc32c.h):
its start-up log names the implementation, which RocksDB's own object would not."""

import json


def _storage_opened(log_path):
    with open(log_path, encoding="utf-8", errors="replace") as log:
        for line in log:
            if not line.startswith("{"):
                continue
            entry = json.loads(line)
            if entry.get("id") == 22315:
                return entry
    return None


def test_start_up_log_names_quarrys_crc32c(server, client):
    client.admin.command("ping")
    opened = _storage_opened(server.log_path)
    assert opened is not None, "no 'Opened the storage engine' line in " + server.log_path
    assert opened["attr"]["checksums"].startswith("Quarry's CRC32C"), opened["attr"]
