"""Runs the libmongoc client programs (tests/integration/libmongoc/) against quarryd: one round of
CRUD per wire compressor (client_test.cc), and bulk writes at full batch size — 100,000-operation
bulks with errors at known positions, upserts, write concerns, getLastError and read-your-writes
after w:0 (bulk_test.cc, issue #4). Each prints `N passed, N failed` last."""

from libmongoc_programs import run_libmongoc_program as _run_client


def test_libmongoc_crud_with_each_compressor(server):
    _run_client(server, "QUARRY_LIBMONGOC_CLIENT_TEST", "quarry_libmongoc_client_test", 180)


def test_libmongoc_bulk_writes_at_full_batch_size(server):
    _run_client(server, "QUARRY_LIBMONGOC_BULK_TEST", "quarry_libmongoc_bulk_test", 300)
