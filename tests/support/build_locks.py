"""Waiting for a build process to block on the output tree's lock: an event read from
/proc/locks, so that lock tests never depend on how fast a loaded machine starts a process."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path


def blocked_on_lock(path: Path, pid: int) -> bool:
    """True when process `pid` waits for a lock on `path` (a `->` line of /proc/locks)."""
    ino = path.stat().st_ino
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields and fields[fields.index("->") + 4] == str(pid) and fields[-3].endswith(f":{ino}"):
            return True
    return False


def wait_until_blocked(path: Path, proc: subprocess.Popen) -> None:
    """Polls until `proc` waits on `path`'s lock; fails if it exits first (it cannot while the
    lock is held). The 10-minute bound only stops a broken build from hanging the suite."""
    deadline = time.monotonic() + 600
    while not blocked_on_lock(path, proc.pid):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the build never blocked on the lock"
        time.sleep(0.02)
