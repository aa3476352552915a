"""Runs the libmongoc client programs (tests/integration/libmongoc/) against quarryd: one round of
CRUD per wire compressor (client_test.cc), and bulk writes at full batch size — 100,000-operation
bulks with errors at known positions, upserts, write concerns, getLastError and read-your-writes
after w:0 (bulk_test.cc, issue #4). Each prints `N passed, N failed` last."""

import os
import subprocess

import pytest

from quarry_server import REPO_ROOT, find_binary


def _client_binary(env_name, target):
    """$<env_name>, else `target` in the build dir of the quarryd under test."""
    env = os.environ.get(env_name)
    if env:
        return env
    quarryd = find_binary()
    build_dir = (os.path.dirname(os.path.dirname(os.path.dirname(quarryd))) if quarryd
                 else os.path.join(REPO_ROOT, "build"))
    return os.path.join(build_dir, "tests", target)


def _run_client(server, env_name, target, timeout):
    binary = _client_binary(env_name, target)
    if not os.access(binary, os.X_OK):
        pytest.fail(f"{binary} is missing: build target {target}", pytrace=False)
    proc = subprocess.run([binary], env=dict(os.environ, QUARRY_URI=server.uri()),
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{target} failed:\n{output}"
    last = output.strip().splitlines()[-1]
    assert last.endswith(" 0 failed") and not last.startswith("0 passed"), output


def test_libmongoc_crud_with_each_compressor(server):
    _run_client(server, "QUARRY_LIBMONGOC_CLIENT_TEST", "quarry_libmongoc_client_test", 180)


def test_libmongoc_bulk_writes_at_full_batch_size(server):
    _run_client(server, "QUARRY_LIBMONGOC_BULK_TEST", "quarry_libmongoc_bulk_test", 300)
