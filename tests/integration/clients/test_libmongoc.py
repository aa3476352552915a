"""Runs the libmongoc client (tests/integration/libmongoc/client_test.cc) against quarryd."""

import os
import subprocess

import pytest

from quarry_server import REPO_ROOT, find_binary


def client_test_binary():
    """$QUARRY_LIBMONGOC_CLIENT_TEST, else the one in the build dir of the quarryd under test."""
    env = os.environ.get("QUARRY_LIBMONGOC_CLIENT_TEST")
    if env:
        return env
    quarryd = find_binary()
    build_dir = (os.path.dirname(os.path.dirname(os.path.dirname(quarryd))) if quarryd
                 else os.path.join(REPO_ROOT, "build"))
    return os.path.join(build_dir, "tests", "quarry_libmongoc_client_test")


def test_libmongoc_crud_with_each_compressor(server):
    binary = client_test_binary()
    if not os.access(binary, os.X_OK):
        pytest.fail(f"{binary} is missing: build target quarry_libmongoc_client_test",
                    pytrace=False)
    proc = subprocess.run([binary], env=dict(os.environ, QUARRY_URI=server.uri()),
                          capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"libmongoc client test failed:\n{output}"
    assert output.strip().splitlines()[-1].endswith(" 0 failed"), output
