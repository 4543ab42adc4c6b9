"""Atomic file writes: a reader (or a killed writer) never sees a half-written file."""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import hmac
import os
import secrets
import stat
import sys
import tempfile
import time
from pathlib import Path

from opgen.errors import Location, OpgenError, printable_path


class LiteralPath(str):
    """A source path whose `*`, `?` and `[` are characters of its name, never a glob: a
    configured path made absolute below a project directory such as `proj[1]`
    (`Config.source_paths`; `gather.expand_sources` globs other sources that have them)."""


def cache_root() -> Path:
    """opgen's cache directory: `${XDG_CACHE_HOME:-~/.cache}/opgen`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "opgen"


_SEAL_BYTES = 32


@functools.cache
def _cache_key() -> bytes:
    """This user's secret for sealing cache entries (`seal`), kept outside the cache, in
    `${XDG_STATE_HOME:-~/.local/state}/opgen/cache-key`: a cache restored from elsewhere (a CI
    cache another job wrote) never verifies, so it is rebuilt, never trusted. Created once,
    atomically (a hard link never replaces a key another process made meanwhile); when it
    cannot be kept, a key of this process alone (nothing cached outlives it)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    path = Path(base) / "opgen" / "cache-key"
    try:
        return _read_key(path)
    except OSError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".cache-key.", dir=path.parent)  # mode 0o600
        try:
            os.write(fd, secrets.token_bytes(_SEAL_BYTES))
            os.fsync(fd)
            os.close(fd)
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
        return _read_key(path)
    except OSError:
        return secrets.token_bytes(_SEAL_BYTES)


def _read_key(path: Path) -> bytes:
    key = read_cache_file(path)
    if len(key) != _SEAL_BYTES:
        raise OSError(errno.EINVAL, "not a cache key", str(path))
    return key


def seal(*parts: bytes) -> bytes:
    """A MAC of `parts` under this user's cache key (keyed BLAKE2b, one C call): stored with a
    cache file and checked (`hmac.compare_digest`) before the file is used, so a cache file
    written by anyone else, or altered, is a miss. Each part is length-prefixed, so parts
    cannot run together."""
    message = b"".join(len(part).to_bytes(8, "little") + part for part in parts)
    return hashlib.blake2b(message, key=_cache_key(), digest_size=_SEAL_BYTES).digest()


def unsealed(blob: bytes, *context: bytes) -> bytes | None:
    """The payload of `seal(*context, payload) + payload`, None when the seal does not match."""
    tag, payload = blob[:_SEAL_BYTES], blob[_SEAL_BYTES:]
    return payload if len(tag) == _SEAL_BYTES and hmac.compare_digest(tag, seal(*context, payload)) else None


def read_cache_file(path: Path, mark_used: bool = False) -> bytes:
    """A cache file's bytes, opened without following a symlink (O_NOFOLLOW) and only when it
    is a regular file: a link planted in the cache never makes opgen read another file.
    `mark_used` (an entry of opgen's cache, never an output file) moves its modification time
    to now once it is a day old, so `trim_cache` keeps what builds still read."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if mark_used and time.time() - st.st_mtime >= _DAY:
            with contextlib.suppress(OSError):  # another user's file: its age is theirs to keep
                os.utime(fd)
        return f.read()


# Entries of opgen's cache that no build has read for this long are removed (`trim_cache`),
# and beyond this size the least recently used ones (throwaway output directories of CI jobs
# and tests leave a pack each: 2 GB in one day on a shared machine; TF's registry is 6 MB).
CACHE_KEEP_DAYS = 30
CACHE_MAX_BYTES = 1 << 30
_DAY = 24 * 3600.0
# The cache's folders of entries keyed by content (chunk packs and build stamps, parsed
# OpLists, compiled templates), each a flat folder of files that any build may recreate.
_TRIMMED_FOLDERS = ("format", "oplists", "jinja")


def trim_cache() -> None:
    """Remove the entries of opgen's cache that no build has read or written for
    `CACHE_KEEP_DAYS` days (a chunk pack of an output directory since deleted, an OpList file
    of a past revision), then the least recently used beyond `CACHE_MAX_BYTES`, at most once a
    day (the `trimmed` file's time says when it last ran), as Go's build cache trims itself:
    without it the cache only grows. Entries are files,
    removed without following a symlink; a build that meanwhile reads one finds a miss and
    renders again, never a wrong result. Errors only leave entries in place."""
    root = cache_root()
    marker = root / "trimmed"
    now = time.time()
    try:
        if now - os.lstat(marker).st_mtime < _DAY:
            return
    except FileNotFoundError:
        pass
    except OSError:
        return
    try:
        atomic_write(marker, b"", durable=False)
    except OSError:
        return  # a cache that cannot be written is not trimmed either
    cutoff = now - CACHE_KEEP_DAYS * _DAY
    kept: list[tuple[float, int, str]] = []  # (last used, size, path) of the entries left
    for name in _TRIMMED_FOLDERS:
        folder = root / name
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):  # a symlink planted for a folder is never followed
                continue
            with os.scandir(folder) as entries:
                for entry in entries:
                    with contextlib.suppress(OSError):  # gone meanwhile, or not ours to remove
                        if not entry.is_file(follow_symlinks=False):
                            continue
                        st = entry.stat(follow_symlinks=False)
                        if st.st_mtime < cutoff:
                            os.unlink(entry.path)
                        else:
                            kept.append((st.st_mtime, st.st_size, entry.path))
        except OSError:
            continue
    total = sum(size for _, size, _ in kept)
    for _, size, path in sorted(kept):  # least recently used first
        if total <= CACHE_MAX_BYTES:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size


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


def atomic_write(path: Path, data: bytes, durable: bool = True, make_parents: bool = True) -> None:
    """Write `data` to `path` via a temporary file in the same directory and os.replace, with
    the mode `file_mode` says; `durable=False` skips the fsync (for caches and the build's
    output tree: a file lost or torn by a crash is rebuilt); `make_parents=False` creates no
    missing directory (a file the user named: `write_output`)."""
    if os.path.isdir(path):  # named after `path`, not the temporary file os.replace would fail on
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if make_parents:
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


def write_stdout(data: bytes | str) -> None:
    """`data` on standard output, flushed: a failed write (`> /dev/full`) names `<stdout>`,
    as the OS error of a failed `-o` names its file."""
    try:
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
    except OSError as e:
        raise _on_stdout(e) from None
    flush_stdout()


def flush_stdout() -> None:
    """Standard output flushed; a failure names `<stdout>` (`write_stdout`)."""
    try:
        sys.stdout.flush()
    except OSError as e:
        raise _on_stdout(e) from None


def _on_stdout(e: OSError) -> OSError:
    if e.filename is None and not isinstance(e, BrokenPipeError):  # (EPIPE: the reader left, said so at the boundary)
        return OSError(e.errno, e.strerror, "<stdout>")
    return e


def write_output(path: Path, data: bytes) -> None:
    """A file the user named (`-o`, `--depfile`): `atomic_write` into its directory, which it
    never creates (the command line checked it exists, as `gcc -MF` wants it to), except that
    a device or a pipe (`-o /dev/null`, `-o /dev/stdout`) is written into, never replaced by a
    regular file (which would break /dev/null for the whole machine). A failure is an error
    located at `path` saying which step failed: never the hidden temporary file's name
    (`.x.pbtxt.d4jx7vff.tmp`), nor its "No such file or directory" as if `path` were missing."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = stat.S_IFREG
    try:
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            with open(path, "wb") as f:
                f.write(data)
            return
        atomic_write(path, data, make_parents=False)
    except IsADirectoryError:
        raise  # (`opgen.cli.os_error` says how to name a file instead)
    except OSError as e:
        reason = e.strerror or str(e)
        name = Path(e.filename).name if e.filename is not None else ""
        folder = printable_path(str(path.parent))
        if e.filename2 is not None:  # os.replace of the temporary file over `path`
            message, hint = f"cannot replace this file: {reason}", None
        elif name.startswith(f".{path.name}.") and name.endswith(".tmp"):
            message = f"cannot write this file: creating a temporary file in its directory {folder} failed: {reason}"
            hint = (f"opgen replaces the file by renaming a new file of {folder} over it: name a file in a directory "
                    "where files can be created")
        else:
            message, hint = f"cannot write this file: {reason}", None
        raise OpgenError(message, Location(str(path)), hint=hint) from None


def glob_paths(pattern: str) -> list[str]:
    """`glob.glob(pattern, recursive=True)`, except that `**` does not descend into symbolic
    links to directories (as a directory source is read: `os.walk`), so a link cycle (`a -> .`)
    cannot make it run without end. Wildcards skip names starting with `.` unless the pattern
    component does, as glob's do."""
    import fnmatch
    import glob

    parts = pattern.split("/")
    if "**" not in parts:
        return glob.glob(pattern)
    first = next(i for i, part in enumerate(parts) if glob.has_magic(part))
    base = "/".join(parts[:first]) or ("/" if pattern.startswith("/") else "")
    wanted = parts[first:]

    def fits(name: str, part: str) -> bool:
        return fnmatch.fnmatchcase(name, part) and (not name.startswith(".") or part.startswith("."))

    def matches(names: list[str], partial: bool, at: int = 0, k: int = 0) -> bool:
        """Whether path components `names[at:]` match `wanted[k:]` (`**`: zero or more, not
        hidden); `partial`: whether a path below directory `names` may still match (the walk
        skips the others)."""
        if k == len(wanted):
            return at == len(names)
        if at == len(names) and partial:
            return True
        if wanted[k] == "**":
            return matches(names, partial, at, k + 1) or (
                at < len(names) and not names[at].startswith(".") and matches(names, partial, at + 1, k))
        return at < len(names) and fits(names[at], wanted[k]) and matches(names, partial, at + 1, k + 1)

    top = base or "."
    found = [base] if base and matches([], False) else []  # (glob yields the base itself for a leading `**`)
    for root, dirs, files in os.walk(top):
        rel = os.path.relpath(root, top)
        prefix = [] if rel == "." else rel.split(os.sep)
        found += [os.path.join(root, name) if base else os.path.join(*prefix, name)
                  for name in dirs + files if matches([*prefix, name], False)]
        dirs[:] = [d for d in dirs if matches([*prefix, d], True)]
    return found
