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
import functools
import hashlib
import importlib.metadata
import marshal
import os
import shutil
import subprocess
from pathlib import Path

from opgen.errors import OpgenError
from opgen.fsutil import cache_root

FORMATTERS = ("black", "ruff")


def _black_format(sources: list[str]) -> list[str]:
    import black

    mode = black.Mode()
    try:
        return [black.format_str(s, mode=mode) for s in sources]
    except black.InvalidInput as e:  # only a user's templates can produce code black cannot parse
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
    raise OpgenError("formatter 'ruff' selected but ruff is not installed", hint="pip install ruff, or use --formatter black")


# Chunks are top-level statements, so ruff formats them in one file separated by this
# comment line exactly as it formats each alone (tests compare against black per chunk).
_SEPARATOR = "# --- opgen chunk boundary ---"


def _ruff_format(sources: list[str]) -> list[str]:
    for s in sources:
        if _SEPARATOR in s:
            return [_ruff_format([t])[0] for t in sources]
    text = ("\n\n\n" + _SEPARATOR + "\n").join(s.strip("\n") + "\n" for s in sources)
    proc = subprocess.run(
        [_ruff_bin(), "format", "--isolated", "--no-cache", "--line-length", "88", "--stdin-filename", "chunks.py", "-"],
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


class ChunkPack:
    """A build's cached chunks: one string holding every chunk, and an index from content
    key to (summary, start, end) (one big string loads several times faster than a dict
    of small ones)."""

    def __init__(self, text: str = "", index: dict[str, tuple[object, int, int]] | None = None):
        self.text = text
        self.index = index or {}

    def get(self, key: str) -> tuple[object, str] | None:
        entry = self.index.get(key)
        if entry is None:
            return None
        summary, start, end = entry
        return summary, self.text[start:end]


class ChunkFormatter:
    """Formats chunks with black (across `jobs` processes) or ruff, and stores the build's
    cache pack: a dict of content keys (computed by the renderer from opgen's version and
    code, the templates, the formatter and the op) to formatted chunks, kept as marshal
    files under `${XDG_CACHE_HOME:-~/.cache}/opgen/format/` and rewritten with exactly the
    entries a build used."""

    def __init__(self, kind: str, jobs: int, cache_dir: Path | None = None, use_cache: bool = True,
                 write_cache: bool = True):
        if kind not in FORMATTERS:
            raise OpgenError(f"unknown formatter {kind!r}", hint="use 'black' or 'ruff'")
        self.kind = kind
        self.jobs = jobs if jobs > 0 else (os.cpu_count() or 1)
        self.cache_dir = (cache_dir or cache_root()) / "format"
        self.use_cache = use_cache
        self.write_cache = write_cache  # False for `--dry-run`: it writes nothing at all

    @functools.cached_property
    def version(self) -> str:
        """The formatter's installed version: part of every cache key, so a formatter
        upgrade re-formats the chunks that go through it."""
        try:
            return importlib.metadata.version(self.kind)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    def _pack_path(self, pack: str) -> Path:
        return self.cache_dir / (hashlib.sha256(pack.encode()).hexdigest()[:32] + ".marshal")

    def load_pack(self, pack: str) -> ChunkPack:
        if not self.use_cache:
            return ChunkPack()
        try:
            with open(self._pack_path(pack), "rb") as f:
                data = marshal.loads(f.read())  # marshal.load(f) reads object by object: slower
            text, index = data
            if isinstance(text, str) and isinstance(index, dict):
                return ChunkPack(text, index)
        except (OSError, EOFError, ValueError, TypeError):
            pass
        return ChunkPack()

    def save_pack(self, pack: str, entries: dict[str, tuple[object, str]], base: ChunkPack | None = None) -> None:
        """Store `entries` (key -> (summary, chunk text)) as the pack, replacing the old one.

        Chunks already in `base` (the loaded pack) keep their place and new ones are appended,
        so a small change writes the old text plus a little; the text is compacted once
        dropped chunks take as much room as live ones.
        """
        if not (self.use_cache and self.write_cache):
            return
        base = base or ChunkPack()
        index: dict[str, tuple[object, int, int]] = {}
        texts = [base.text]
        offset = len(base.text)
        live = 0
        for key, (summary, text) in entries.items():
            live += len(text)
            old = base.index.get(key)
            if old is not None:
                index[key] = old
                continue
            texts.append(text)
            index[key] = (summary, offset, offset + len(text))
            offset += len(text)
        if offset > 2 * live:
            texts, index, offset = [], {}, 0
            for key, (summary, text) in entries.items():
                texts.append(text)
                index[key] = (summary, offset, offset + len(text))
                offset += len(text)
        path = self._pack_path(pack)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # No fsync: a pack lost or torn by a crash fails to load and is rebuilt.
            with open(temp, "wb") as f:
                f.write(marshal.dumps(("".join(texts), index)))
            os.replace(temp, path)
        except OSError:
            with contextlib.suppress(OSError):
                temp.unlink()  # the cache is an optimisation; a read-only cache dir must not fail the build

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
