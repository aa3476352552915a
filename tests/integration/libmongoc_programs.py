"""Runs the libmongoc client programs of tests/integration/libmongoc/ against a quarryd. Each
prints `N passed, N failed` last on stdout (the driver logs to stderr)."""

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


def run_libmongoc_program(server, env_name, target, timeout, uri_options="", extra_env=None):
    """Runs `target` against `server`; `uri_options` (a=b&c=d) are added to every URI it
    builds (QUARRY_URI_OPTIONS), e.g. TLS settings; `extra_env` adds environment variables."""
    binary = _client_binary(env_name, target)
    if not os.access(binary, os.X_OK):
        pytest.fail(f"{binary} is missing: build target {target}", pytrace=False)
    env = dict(os.environ, QUARRY_URI=server.uri())
    if uri_options:
        env["QUARRY_URI_OPTIONS"] = uri_options
    env.update(extra_env or {})
    proc = subprocess.run([binary], env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{target} failed:\n{output}"
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert last.endswith(" 0 failed") and not last.startswith("0 passed"), output
