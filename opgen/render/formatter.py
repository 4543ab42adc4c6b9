"""Formatting generated chunks to black's output: a content-addressed cache, parallel black
workers, or ruff's formatter (which agrees with black on every construct the templates emit).

A chunk is one top-level unit of a module (the header, or one op's namedtuple + TypeVars +
function + aliases). Black formats top-level statements independently, so formatting
chunks one by one and joining them with two blank lines gives black's output for the
whole module (checked by tests on TF's whole registry).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import functools
import hashlib
import importlib.metadata
import marshal
import os
import secrets
import shutil
import stat
import subprocess
from collections.abc import Mapping
from pathlib import Path

from opgen.errors import OpgenError
from opgen.fsutil import atomic_write, cache_root, read_cache_file, seal, unsealed
from opgen.parallel import cores

FORMATTERS = ("black", "ruff")


def _black_format(sources: list[str]) -> list[str]:
    import black
    from black.parsing import InvalidInput

    mode = black.Mode()
    try:
        return [black.format_str(s, mode=mode) for s in sources]
    except InvalidInput as e:  # only a user's templates can produce code black cannot parse
        raise OpgenError(f"black cannot format the generated code: {str(e).splitlines()[0]}",
                         hint="the --templates produce invalid Python; check them") from None


def _ruff_bin() -> str:
    try:
        from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

        return str(find_ruff_bin())
    except (ImportError, FileNotFoundError):
        found = shutil.which("ruff")
        if found:
            return found
    raise OpgenError(
        "formatter 'ruff' selected but ruff is not installed", hint="pip install ruff, or use --formatter black"
    )


def unavailable(kind: str) -> OpgenError | None:
    """Why formatter `kind` cannot run here (ruff not installed), else None: a build that
    needs no formatter still says so, before a change that needs one stops there."""
    if kind != "ruff":
        return None  # black is a dependency of opgen
    try:
        _ruff_bin()
    except OpgenError as e:
        return e
    return None


# Chunks are top-level statements, so ruff formats them in one file separated by this
# comment line exactly as it formats each alone (tests compare against black per chunk).
_SEPARATOR = "# --- opgen chunk boundary ---"


def _ruff_format(sources: list[str]) -> list[str]:
    for s in sources:
        if _SEPARATOR in s:
            return [_ruff_format([t])[0] for t in sources]
    text = ("\n\n\n" + _SEPARATOR + "\n").join(s.strip("\n") + "\n" for s in sources)
    proc = subprocess.run(
        [
            _ruff_bin(),
            "format",
            "--isolated",
            "--no-cache",
            "--line-length",
            "88",
            "--stdin-filename",
            "chunks.py",
            "-",
        ],
        input=text,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    if proc.returncode != 0:
        raise OpgenError(f"ruff format failed: {(proc.stderr or proc.stdout).strip()}")
    parts = proc.stdout.split("\n\n\n" + _SEPARATOR + "\n")
    if len(parts) != len(sources):
        raise OpgenError("ruff format changed the chunk boundaries; use --formatter black")
    return [p if p.endswith("\n") else p + "\n" for p in parts]


@functools.cache
def _installed_version(package: str) -> str:
    """A package's installed version, read once per process (the metadata lookup costs
    milliseconds, as much as a whole no-op build's check of its outputs)."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


_Entry = tuple[object, int, int, bytes]  # summary, start and end offsets in the text, text digest


def _text_digest(text: bytes) -> bytes:
    return hashlib.sha256(text).digest()  # SHA-256 has CPU instructions (twice BLAKE2b's speed here)


# What the index's seal covers besides the index (a seal made for another cache file never fits).
_INDEX_SEAL_CONTEXT = b"opgen chunk pack index"


class ChunkPack:
    """A build's cached chunks: their texts, UTF-8, in one append-only file of the pack's
    `generation`, and an index from content key to (summary, start, end, digest): byte offsets
    in it (one big read loads several times faster than a dict of small strings) and the
    text's digest, checked before the chunk is used. The index file is sealed whole
    (`fsutil.seal`, checked before it is unmarshalled), so an entry's digest is this user's:
    one seal per build instead of one per op (a no-op build of a registry checks 2,000)."""

    def __init__(self, data: bytes = b"", index: dict[object, _Entry] | None = None, generation: str = ""):
        self.data = data
        self.index = index or {}
        self.generation = generation
        # entries whose text matched its digest, as `get` returned them: asked again (by
        # `save_pack`), the same objects, compared without copying or hashing their text again
        self.checked: dict[object, tuple[object, bytes]] = {}

    def get(self, key: object) -> tuple[object, bytes] | None:
        """(summary, chunk text in UTF-8) stored under `key`; None if there is none, or if the
        text does not match its digest (text another build rewrote, or someone altered: it
        never reaches a module)."""
        checked = self.checked.get(key)
        if checked is not None:
            return checked
        entry = self.index.get(key)
        if entry is None:
            return None
        summary, start, end, digest = entry
        text = self.data[start:end]
        if _text_digest(text) != digest:
            return None
        checked = self.checked[key] = (summary, text)
        return checked


_PACK_FORMAT = "opgen chunk pack 4"


def _sealed_index(generation: str, index: dict[object, _Entry]) -> bytes:
    payload = marshal.dumps((_PACK_FORMAT, generation, index))
    return seal(_INDEX_SEAL_CONTEXT, payload) + payload


@dataclasses.dataclass(frozen=True)
class BuildStamp:
    """What the last build into an output tree rendered: the digests of all its inputs and of
    its context (`Renderer.inputs_digest`), each output file's sha256, what it reported, and
    where each op's chunk lies with the op's key. A build whose inputs have the same digest,
    into a tree whose files still have those digests, renders nothing: its files are the ones
    on disk; one with the same context renders only the ops whose key changed into those
    files (`Renderer.rerender`)."""

    inputs: bytes
    context: bytes  # the digest of the inputs but the ops' OpDefs and ApiDefs
    digests: tuple[tuple[str, bytes], ...]  # (path relative to --out, sha256 of its bytes)
    modules: int
    warnings: tuple[str, ...]
    layout: tuple[tuple[str, tuple[tuple[str, bytes, int, int], ...]], ...]  # `RenderResult.layout`
    keys: tuple[str, ...]  # each op's chunk key, in the OpList's order


_STAMP_FORMAT = "opgen build stamp 2"  # 2: the context, the layout and the op keys
_STAMP_SEAL_CONTEXT = b"opgen build stamp"


class ChunkFormatter:
    """Formats chunks with black (across `jobs` processes) or ruff, and stores the build's
    cache pack: content keys (computed by the renderer from opgen's version and code, the
    templates, the formatter and the op) to formatted chunks, kept under
    `${XDG_CACHE_HOME:-~/.cache}/opgen/format/` as an index (marshal) and a text file, and
    rewritten with exactly the entries a build used."""

    def __init__(self, kind: str, jobs: int, cache_dir: Path | None = None, use_cache: bool = True,
                 write_cache: bool = True):
        if kind not in FORMATTERS:
            raise OpgenError(f"unknown formatter {kind!r}", hint="use 'black' or 'ruff'")
        self.kind = kind
        self.jobs = jobs if jobs > 0 else cores()
        self.cache_dir = (cache_dir or cache_root()) / "format"
        self.use_cache = use_cache
        self.write_cache = write_cache  # False for `--dry-run`: it writes nothing at all

    @property
    def version(self) -> str:
        """The formatter's installed version: part of every cache key, so a formatter
        upgrade re-formats the chunks that go through it."""
        return _installed_version(self.kind)

    def _pack_path(self, pack: str) -> Path:
        return self.cache_dir / (hashlib.sha256(pack.encode()).hexdigest()[:32] + ".marshal")

    def _text_path(self, pack: str, generation: str) -> Path:
        return self._pack_path(pack).with_suffix(f".{generation}.text")

    def load_pack(self, pack: str) -> ChunkPack:
        if not self.use_cache:
            return ChunkPack()
        try:
            payload = unsealed(read_cache_file(self._pack_path(pack), mark_used=True), _INDEX_SEAL_CONTEXT)
            if payload is None:  # written by someone else, or altered
                return ChunkPack()
            form, generation, index = marshal.loads(payload)
            if (form != _PACK_FORMAT or not isinstance(generation, str) or not generation.isalnum()
                    or not isinstance(index, dict)):
                return ChunkPack()
            data = read_cache_file(self._text_path(pack, generation), mark_used=True)
            if max((entry[2] for entry in index.values()), default=0) <= len(data):
                return ChunkPack(data, index, generation)
        except (OSError, EOFError, ValueError, TypeError, IndexError):
            pass
        return ChunkPack()

    def save_pack(self, pack: str, entries: Mapping[str, tuple[object, bytes]], base: ChunkPack | None = None) -> None:
        """Store `entries` (key -> (summary, chunk text in UTF-8)) as the pack, replacing the old one.

        Chunks already in `base` (the loaded pack) keep their place and new ones are appended
        to its text file, so a small change writes a little text and the index; the text is
        rewritten under a new generation (and older ones removed) once dropped chunks take as
        much room as live ones. A build that runs meanwhile on the same pack may leave its
        index pointing at removed text: the next build then finds no pack, never wrong chunks.
        """
        if not (self.use_cache and self.write_cache):
            return
        base = base or ChunkPack()
        kept: dict[object, _Entry] = {}
        new: list[tuple[object, object, bytes]] = []
        for key, (summary, data) in entries.items():
            if base.get(key) == (summary, data):  # sealed and the same: keeps its place
                kept[key] = base.index[key]
            else:
                new.append((key, summary, data))
        added = sum(len(data) for _, _, data in new)
        live = sum(end - start for _, start, end, _ in kept.values()) + added
        path = self._pack_path(pack)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if (base.generation and len(base.data) + added <= 2 * live
                    and self._append(self._text_path(pack, base.generation), new, kept)):
                atomic_write(path, _sealed_index(base.generation, kept), durable=False)
                return
            generation = secrets.token_hex(8)
            fresh = {key: (summary, data) for key, summary, data in new}
            index: dict[object, _Entry] = {}
            texts: list[bytes] = []
            offset = 0
            for key in entries:
                if key in kept:
                    summary, start, end, sealed = kept[key]
                    data = base.data[start:end]
                else:
                    summary, data = fresh[key]
                    sealed = _text_digest(data)
                texts.append(data)
                index[key] = (summary, offset, offset + len(data), sealed)
                offset += len(data)
            text_path = self._text_path(pack, generation)
            atomic_write(text_path, b"".join(texts), durable=False)
            atomic_write(path, _sealed_index(generation, index), durable=False)
            for stale in path.parent.glob(path.stem + ".*.text"):
                if stale != text_path:
                    stale.unlink(missing_ok=True)
        except OSError:
            pass  # the cache is an optimisation; a read-only cache dir must not fail the build

    @staticmethod
    def _append(text_path: Path, new: list[tuple[object, object, bytes]], index: dict[object, _Entry]) -> bool:
        """Append the `new` chunks to the text file in one write and add them to `index`;
        False when the file is gone (another build rewrote the pack) or the write fell short."""
        blob = b"".join(data for _, _, data in new)
        try:
            # No O_CREAT: a text file removed meanwhile is never recreated under its old name;
            # O_NOFOLLOW: a symlink planted in its place is not written through.
            fd = os.open(text_path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
        except (FileNotFoundError, OSError):
            return False
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode) or os.write(fd, blob) != len(blob):
                return False
            # O_APPEND wrote at the end (whatever another build appended before): our offset.
            offset = os.lseek(fd, 0, os.SEEK_CUR) - len(blob)
        finally:
            os.close(fd)
        for key, summary, data in new:
            index[key] = (summary, offset, offset + len(data), _text_digest(data))
            offset += len(data)
        return True

    def _stamp_path(self, pack: str) -> Path:
        return self._pack_path(pack).with_suffix(".stamp")

    def load_stamp(self, pack: str) -> BuildStamp | None:
        """The pack's `BuildStamp`, None when there is none (or it is not this user's)."""
        if not self.use_cache:
            return None
        try:
            payload = unsealed(read_cache_file(self._stamp_path(pack), mark_used=True), _STAMP_SEAL_CONTEXT)
            if payload is None:
                return None
            form, *fields = marshal.loads(payload)
            return BuildStamp(*fields) if form == _STAMP_FORMAT else None
        except (OSError, EOFError, ValueError, TypeError):
            return None

    def save_stamp(self, pack: str, stamp: BuildStamp) -> None:
        if not (self.use_cache and self.write_cache):
            return
        # `load_stamp` rebuilds it from the same fields in the same order
        payload = marshal.dumps((_STAMP_FORMAT, *(getattr(stamp, f.name) for f in dataclasses.fields(stamp))), 2)
        with contextlib.suppress(OSError):  # the cache is an optimisation
            atomic_write(self._stamp_path(pack), seal(_STAMP_SEAL_CONTEXT, payload) + payload, durable=False)

    def format_many(self, texts: list[str]) -> list[str]:
        """Format `texts` (no cache): black across `jobs` processes, or one ruff run."""
        if not texts:
            return []
        if self.kind == "ruff":
            return _ruff_format(texts)
        if self.jobs <= 1 or len(texts) < 64:
            return _black_format(texts)
        n = min(self.jobs, len(texts))
        batches = [texts[i::n] for i in range(n)]
        with concurrent.futures.ProcessPoolExecutor(max_workers=n) as pool:
            results = list(pool.map(_black_format, batches))
        out: list[str] = [""] * len(texts)
        for i, batch in enumerate(results):
            out[i::n] = batch
        return out

