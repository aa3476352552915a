"""Starts and stops a real quarryd for the integration tests.

Each server listens on 127.0.0.1 only, on a free port, with its own --dbpath, and is stopped by
its PID: SIGTERM first, SIGKILL if it does not exit. Every server started here is also killed
when the Python process exits, so a failing or interrupted run leaves no process behind.
"""

import atexit
import glob
import os
import signal
import socket
import subprocess
import time

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
START_TIMEOUT_S = 30
STOP_TIMEOUT_S = 20
# pymongo options for test clients: fail fast instead of hanging on a broken server.
CLIENT_OPTIONS = dict(serverSelectionTimeoutMS=5000, connectTimeoutMS=5000, socketTimeoutMS=60000)

_live_servers = set()


def find_binary():
    """The quarryd to test: $QUARRY_BINARY, else build/src/main/quarryd, else the newest
    build*/src/main/quarryd (developers' own build directories). None when there is none."""
    env = os.environ.get("QUARRY_BINARY")
    if env:
        return os.path.abspath(env)
    default = os.path.join(REPO_ROOT, "build", "src", "main", "quarryd")
    if os.access(default, os.X_OK):
        return default
    others = [p for p in glob.glob(os.path.join(REPO_ROOT, "build*", "src", "main", "quarryd"))
              if os.access(p, os.X_OK)]
    return max(others, key=os.path.getmtime) if others else None


def find_tool():
    """The `quarry` tool: $QUARRY_TOOL, else tools/quarry in the build directory of the quarryd
    under test, else the newest build*/tools/quarry."""
    env = os.environ.get("QUARRY_TOOL")
    if env:
        return os.path.abspath(env)
    server = find_binary()
    if server:
        build_dir = os.path.dirname(os.path.dirname(os.path.dirname(server)))
        candidate = os.path.join(build_dir, "tools", "quarry")
        if os.access(candidate, os.X_OK):
            return candidate
    others = [p for p in glob.glob(os.path.join(REPO_ROOT, "build*", "tools", "quarry"))
              if os.access(p, os.X_OK)]
    return max(others, key=os.path.getmtime) if others else None


def free_port():
    """A TCP port that nothing listens on right now (the kernel's pick for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_accepts(host, port, timeout=0.5):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


class QuarryServer:
    """One quarryd process. `host, port, dbpath, pid = server` also works."""

    host = "127.0.0.1"

    def __init__(self, binary, dbpath, port=None, extra_args=(), log_path=None, args=None):
        """`args`, when given, replaces the default flags (--port, --bind_ip, --dbpath,
        --advertise-host) entirely, e.g. to start from a --config file alone."""
        self.args = None if args is None else list(args)
        self.binary = binary
        self.dbpath = str(dbpath)
        self.port = port or free_port()
        self.extra_args = list(extra_args)
        self.log_path = log_path or os.path.join(os.path.dirname(self.dbpath.rstrip("/")),
                                                 f"quarryd-{self.port}.log")
        self.proc = None
        self.starts = 0

    def __iter__(self):
        return iter((self.host, self.port, self.dbpath, self.pid))

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def command(self):
        if self.args is not None:
            return [self.binary] + self.args
        return [self.binary, "--port", str(self.port), "--bind_ip", self.host,
                "--dbpath", self.dbpath, "--advertise-host", self.host] + self.extra_args

    def uri(self, **options):
        query = "&".join(f"{k}={v}" for k, v in options.items())
        return f"mongodb://{self.host}:{self.port}/" + (f"?{query}" if query else "")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no log)"

    def start(self):
        os.makedirs(self.dbpath, exist_ok=True)
        self.starts += 1
        log = open(self.log_path, "ab")
        log.write(f"\n=== start {self.starts}: {' '.join(self.command())}\n".encode())
        log.flush()
        # Same process group as the tests: a timeout or Ctrl-C that stops the run stops it too.
        self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        log.close()
        _live_servers.add(self)
        self.wait_ready()
        return self

    def wait_ready(self, timeout=START_TIMEOUT_S):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                _live_servers.discard(self)
                raise RuntimeError(
                    f"quarryd exited with status {self.proc.returncode} before accepting "
                    f"connections on port {self.port}; log:\n{self.log_tail()}")
            if port_accepts(self.host, self.port):
                return
            time.sleep(0.05)
        self.kill9()
        raise RuntimeError(f"quarryd did not accept connections on port {self.port} within "
                           f"{timeout} s; log:\n{self.log_tail()}")

    def stop(self, timeout=STOP_TIMEOUT_S):
        """SIGTERM, wait, SIGKILL if needed. Returns the exit status (None if never started)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill9()
        _live_servers.discard(self)
        return self.proc.returncode

    def kill9(self):
        """Kills the process with SIGKILL (a crash as far as the server can tell) and reaps it."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        _live_servers.discard(self)
        return self.proc.returncode if self.proc else None

    def restart(self, crash=False):
        """Stops (SIGKILL if crash, else SIGTERM) and starts again on the same port and dbpath."""
        if crash:
            self.kill9()
        else:
            self.stop()
        return self.start()


@atexit.register
def _kill_leftovers():
    for server in list(_live_servers):
        server.kill9()
