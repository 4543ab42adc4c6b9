"""Atomic file writes: a reader (or a killed writer) never sees a half-written file."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path


class LiteralPath(str):
    """A source path whose `*`, `?` and `[` are characters of its name, never a glob: a
    configured path made absolute below a project directory such as `proj[1]`
    (`Config.source_paths`; `gather.expand_sources` globs other sources that have them)."""


def cache_root() -> Path:
    """opgen's cache directory: `${XDG_CACHE_HOME:-~/.cache}/opgen`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "opgen"


def file_mode(path: Path) -> int:
    """The permission bits a file written to `path` gets: those of the regular file it
    replaces, else what `open()` gives a new file (0o666 less the umask)."""
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return st.st_mode & 0o777
    except OSError:
        pass
    umask = os.umask(0o022)  # reading the umask means setting it: restored at once
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Write `data` to `path` via a temporary file in the same directory and os.replace, with
    the mode `file_mode` says; `durable=False` skips the fsync (for caches: a file lost or torn
    by a crash is rebuilt)."""
    if os.path.isdir(path):  # named after `path`, not the temporary file os.replace would fail on
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(fd, mode)
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        try:
            os.replace(tmp, path)
        except IsADirectoryError as e:  # a directory made meanwhile
            raise IsADirectoryError(e.errno, e.strerror, str(path)) from None
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_if_changed(path: Path, data: bytes) -> bool:
    """Atomically write `data` unless `path` already holds exactly it; True when written."""
    try:
        if path.read_bytes() == data:
            return False
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        pass
    atomic_write(path, data)
    return True
