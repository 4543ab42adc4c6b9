"""All-or-nothing writing of `opgen build`'s output tree: staging, journal, lock, recovery.

Changed files are staged in `<out>/.opgen-staging/`, then a journal `<out>/.opgen-journal.json`
(written atomically) commits the build, files are moved into place and the journal removed.
A build killed before the journal exists leaves the old tree (the next build drops the
staging dir); one killed after it is completed by the next build. Both say what they did.
A lock file in `<out>` keeps writing builds of one directory one at a time.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from opgen.errors import Location, OpgenError
from opgen.fsutil import atomic_write

STAGING = ".opgen-staging"
JOURNAL = ".opgen-journal.json"
LOCK = ".opgen-lock"


@dataclass(frozen=True)
class Changes:
    write: dict[str, bytes]  # new or changed
    delete: list[str]  # generated files that should no longer exist
    unchanged: int


def recover(out: Path) -> str | None:
    """Finish or undo a build that was killed mid-write; the message says which, None if clean."""
    journal = out / JOURNAL
    staging = out / STAGING
    if journal.is_file():
        try:
            plan = json.loads(journal.read_text(encoding="utf-8"))
            _apply_journal(out, plan)
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise OpgenError(f"cannot complete the interrupted build recorded in {JOURNAL}: {e}", Location(str(journal)),
                             hint=f"delete {journal} and {staging} and rebuild") from None
        return f"opgen: completed an interrupted build of {out} ({len(plan['write'])} written, {len(plan['delete'])} deleted)"
    leftovers = _journal_temps(out)
    if staging.exists() or leftovers:
        shutil.rmtree(staging, ignore_errors=True)
        for temp in leftovers:
            temp.unlink(missing_ok=True)
        return f"opgen: discarded the staging files of an interrupted build of {out}; the previous output is intact"
    return None


def _journal_temps(out: Path) -> list[Path]:
    """Temporary files of a journal write that was killed before its rename."""
    return sorted(out.glob(f".{JOURNAL}.*.tmp"))


def interrupted(out: Path) -> bool:
    """True when a killed build left work for `recover` (journal, staging or journal temp)."""
    return (out / JOURNAL).exists() or (out / STAGING).exists() or bool(_journal_temps(out))


def _apply_journal(out: Path, plan: dict) -> None:
    staging = out / STAGING
    for rel in plan["write"]:
        src = staging / rel
        if src.exists():
            os.replace(src, out / rel)
        elif not (out / rel).exists():
            raise KeyError(f"staged file {rel} is missing")
    for rel in plan["delete"]:
        try:
            (out / rel).unlink()
        except FileNotFoundError:
            pass
    _fsync_dir(out)
    (out / JOURNAL).unlink()
    shutil.rmtree(staging, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def commit(out: Path, changes: Changes) -> None:
    """Write `changes` into `out` all-or-nothing (see the module docstring)."""
    if not changes.write and not changes.delete:
        return
    out.mkdir(parents=True, exist_ok=True)
    staging = out / STAGING
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    for rel, data in changes.write.items():
        (staging / rel).write_bytes(data)
    # No fsync of the staged files: a killed process loses nothing the kernel already has,
    # and the journal below (written with fsync) is the commit point.
    atomic_write(out / JOURNAL, json.dumps({"write": sorted(changes.write), "delete": changes.delete}).encode())
    _apply_journal(out, {"write": sorted(changes.write), "delete": changes.delete})


@contextlib.contextmanager
def build_lock(out: Path):
    """One writing build per output directory at a time (the lock file lives inside --out)."""
    import fcntl

    out.mkdir(parents=True, exist_ok=True)
    with open(out / LOCK, "a+b") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"opgen: waiting for another opgen build of {out}", file=sys.stderr)
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


__all__ = ["JOURNAL", "LOCK", "STAGING", "Changes", "build_lock", "commit", "interrupted", "recover"]
