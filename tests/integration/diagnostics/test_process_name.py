"""The name `ps`, `top`, `pgrep` and `killall` see for a running quarryd: quarryd starts itself
again in place with its allocator settings (base/allocator.h) and keeps its name through that."""

import shutil
import subprocess


def test_ps_and_pgrep_see_quarryd(server):
    with open(f"/proc/{server.pid}/comm") as comm:
        assert comm.read().strip() == "quarryd"
    if shutil.which("pgrep"):  # procps
        found = subprocess.run(["pgrep", "-x", "quarryd"], capture_output=True, text=True)
        assert str(server.pid) in found.stdout.split()
