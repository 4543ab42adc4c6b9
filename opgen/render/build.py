"""`opgen build`: group ops into modules, render, format, and write the output tree atomically.

Pipeline: gathered OpList + ApiModel -> modules (by source file stem or `[tool.opgen.modules]`
globs) -> per-op chunks (cached by content: op, ApiDef, opgen version, templates,
formatter) -> module texts + source map -> compare with `--out` -> write.

Writes are all-or-nothing (staging, journal, lock, recovery): `opgen.render.tree_writer`.
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import gc
import hashlib
import multiprocessing
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import (
    encode_basestring_ascii as _json_str,  # json.dumps of a str, in C
)
from pathlib import Path

from opgen import __version__
from opgen.apidef import ApiModel
from opgen.config import Config, check_library
from opgen.errors import Location, OpgenError
from opgen.fsutil import atomic_write
from opgen.naming import module_name_problem
from opgen.proto import op_def_pb2
from opgen.render import emit
from opgen.render.formatter import ChunkFormatter
from opgen.render.pyapi import FunctionApi, SkippedOp, function_api
from opgen.render.tree_writer import Changes, build_lock, check_out_dir, commit, plan, recover
from opgen.spec.model import GatherResult, OpSource

SOURCE_MAP = "opgen_sourcemap.json"


# ---------------------------------------------------------------------------- grouping


def validate_module_name(name: str, where: Location) -> str:
    """A module name from config: a plain identifier, so its file lands directly in --out."""
    problem = module_name_problem(name)
    if problem:
        raise OpgenError(
            f"invalid module name {ascii(name)}: it {problem}",
            where,
            hint="module names must be ASCII Python identifiers (letters, digits, _), without dots or slashes, "
            "and must not shadow opgen, a standard-library module or a dunder name",
        )
    return name


@functools.lru_cache(maxsize=4096)
def module_for_source(path: str) -> str:
    """`math_ops.cc` -> `gen_math_ops`; an OpList file `ops.pbtxt` -> `gen_ops`."""
    stem = Path(path).name.split(".", 1)[0]
    stem = re.sub(r"[^A-Za-z0-9_]", "_", stem) or "ops"
    return stem if stem.startswith("gen_") else f"gen_{stem}"


def group_ops(
    op_list: op_def_pb2.OpList,
    sources: dict[str, OpSource],
    rules: dict[str, str],
    rules_location: Location,
) -> dict[str, list[op_def_pb2.OpDef]]:
    """Module name -> ops (OpList order). First matching glob of `rules` wins, else the source stem."""
    for module in rules.values():
        validate_module_name(module, rules_location)
    groups: dict[str, list[op_def_pb2.OpDef]] = {}
    for op in op_list.op:
        rule = next((m for pattern, m in rules.items() if fnmatch.fnmatchcase(op.name, pattern)), None)
        if rule is not None:
            module = rule
        else:
            src = sources.get(op.name)
            module = module_for_source(src.location.path) if src else "gen_ops"
        groups.setdefault(module, []).append(op)
    return dict(sorted(groups.items()))


@functools.lru_cache(maxsize=4096)
def display_path(path: str, root: Path) -> str:
    """A path as shown in headers and the source map: relative to the project, never absolute."""
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    try:
        return p.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return p.name


# ---------------------------------------------------------------------------- rendering


@functools.cache
def code_digest() -> str:
    """sha256 of the code that shapes a chunk (a cache input besides opgen's version)."""
    import opgen

    base = Path(opgen.__file__).parent
    h = hashlib.sha256()
    for rel in ("apidef.py", "naming.py", "render/pyapi.py", "render/docstrings.py", "render/literals.py",
                "render/emit.py", "render/formatter.py", "proto/datatypes.py"):
        try:
            h.update(rel.encode() + b"\0" + (base / rel).read_bytes() + b"\0")
        except OSError:
            h.update(rel.encode() + b"\0missing\0")
    return h.hexdigest()


@dataclass
class RenderResult:
    files: dict[str, bytes]  # path relative to --out -> content
    ops: int = 0
    formatted: int = 0  # chunks that went through the formatter (cache misses)


@dataclass
class Renderer:
    """Renders module texts from ops with a per-op chunk cache."""

    templates: emit.Templates
    formatter: ChunkFormatter
    api_model: ApiModel
    root: Path
    progress: Callable[[int, int], None] | None = None
    library: str | None = None

    def salt(self) -> str:
        return f"opgen {__version__}\0{code_digest()}\0{self.templates.digest}\0{self.templates.shipped}"

    def render(self, groups: dict[str, list[op_def_pb2.OpDef]], sources: dict[str, OpSource], pack: str) -> RenderResult:
        """Module texts and the source map; unchanged ops and headers come from the cache."""
        cache = self.formatter.load_pack(pack)
        used: dict[str, tuple[object, str]] = {}
        salted = hashlib.sha256(f"{self.salt()}\0{self.formatter.kind}\0{self.formatter.version}".encode())
        overridden = self.api_model.api_defs
        entries: dict[str, tuple[emit.FunctionSummary, str]] = {}
        op_bytes: dict[str, bytes] = {}
        misses: list[tuple[str, op_def_pb2.OpDef]] = []
        total = sum(len(ops) for ops in groups.values())
        done = 0
        for ops in groups.values():
            for op in ops:
                data = op_bytes[op.name] = op.SerializeToString(deterministic=True)
                h = salted.copy()
                h.update(len(data).to_bytes(8, "little"))
                h.update(data)
                api = overridden.get(op.name)
                # An op without an override renders from its OpDef alone (its ApiDef is the
                # default one), so its key needs no ApiDef built, serialized or hashed.
                h.update(b"\1" + api.SerializeToString(deterministic=True) if api is not None else b"\0")
                key = "op:" + h.hexdigest()
                hit = cache.get(key)
                if hit is not None:
                    entries[op.name] = (emit.FunctionSummary.from_plain(hit[0]), hit[1])  # type: ignore[arg-type]
                    used[key] = hit
                else:
                    misses.append((key, op))
                done += 1
                if self.progress and done % 64 == 0:
                    self.progress(done, total)
        rendered = self._render_ops([op for _, op in misses], sources)
        to_format = [(key, summary, text) for (key, _), (summary, text, direct) in zip(misses, rendered)
                     if not summary.skipped and not direct]
        for (key, _), (summary, text, direct) in zip(misses, rendered):
            if summary.skipped or direct:
                entries[summary.op_name] = (summary, text)
                used[key] = (summary.to_plain(), text)
        raw = [text for _, _, text in to_format]
        for (key, summary, _), text in zip(to_format, self._format_many(raw)):
            entries[summary.op_name] = (summary, text)
            used[key] = (summary.to_plain(), text)

        headers: dict[str, str] = {}
        registrations: dict[str, str] = {}
        header_misses: list[tuple[str, str]] = []
        for name, ops in groups.items():
            functions = [entries[op.name][0] for op in ops]
            emit.check_collisions(name, functions, {op.name: sources[op.name].location for op in ops if op.name in sources})
            src_files = sorted({display_path(p, self.root) for p in {sources[op.name].location.path for op in ops if op.name in sources}})
            shape_fns = {op.name: sources[op.name].shape_fn for op in ops if op.name in sources and sources[op.name].shape_fn}
            op_list_bytes = b"".join(_op_list_entry(op_bytes[op.name]) for op in ops)
            registrations[name] = emit.render_registration(self.templates, op_list_bytes, shape_fns, self.library)  # type: ignore[arg-type]
            h = salted.copy()
            # The header depends on the module's name, sources and function summaries only
            # (not on docs or bodies: a changed op rarely changes it).
            h.update(repr((name, src_files, [f.to_plain() for f in functions])).encode())
            key = headers[name] = "hdr:" + h.hexdigest()
            hit = cache.get(key)
            if hit is not None:
                used[key] = hit
                continue
            text, direct = emit.render_header(self.templates, name, functions, src_files or ["an OpList"])
            if direct:
                used[key] = (None, text)
            else:
                header_misses.append((key, text))
        for (key, _), text in zip(header_misses, self._format_many([t for _, t in header_misses])):
            used[key] = (None, text)

        files: dict[str, bytes] = {}
        source_map: dict[str, list[str]] = {}
        for name, ops in groups.items():
            parts = [used[headers[name]][1]]
            functions_map: list[tuple[str, str]] = []
            for op in ops:
                summary, text = entries[op.name]
                src = sources.get(op.name)
                where = _json_str(_location_text(src.location, self.root)) if src else "null"
                op_json = _json_str(op.name)
                if summary.skipped:
                    functions_map.append((f"<skipped {op.name}>", f'{{"op": {op_json}, "skipped": {_json_str(summary.skipped)}, "source": {where}}}'))
                    continue
                parts.append(text)
                overrides = ", ".join(_json_str(_location_text(loc, self.root)) for loc in self.api_model.provenance.get(op.name, []))
                aliases = ", ".join(_json_str(a) for a in summary.aliases)
                functions_map.append(
                    (summary.name, f'{{"aliases": [{aliases}], "op": {op_json}, "overrides": [{overrides}], "source": {where}}}')
                )
            # Registered last: `register_op_list` also marks the module's functions for AutoGraph.
            parts.append(registrations[name])
            files[f"{name}.py"] = "\n\n".join(parts).encode("utf-8")
            functions_map.sort()
            source_map[f"{name}.py"] = [f"{_json_str(fn)}: {entry}" for fn, entry in functions_map]
        files[SOURCE_MAP] = source_map_text(source_map).encode()
        if used.keys() != cache.index.keys():
            self.formatter.save_pack(pack, used, base=cache)
        return RenderResult(files, ops=total, formatted=len(raw) + len(header_misses))

    def _format_many(self, texts: list[str]) -> list[str]:
        """The formatter's output; its error (only a user's templates can cause one) points at them."""
        try:
            return self.formatter.format_many(texts)
        except OpgenError as e:
            if e.location is None:
                e.location = Location(self.templates.directory)
            raise

    def _render_ops(self, ops: list[op_def_pb2.OpDef], sources: dict[str, OpSource]) -> list[tuple[emit.FunctionSummary, str, bool]]:
        """(summary, chunk, final) per op (see `emit.render_function`); across `jobs` forked
        workers for big batches."""
        jobs = self.formatter.jobs
        if jobs > 1 and len(ops) >= 256 and "fork" in multiprocessing.get_all_start_methods():
            _WORKER_STATE["renderer"] = self
            try:
                n = min(jobs, len(ops))
                batches = [
                    [(op.SerializeToString(), self.api_model.get(op).SerializeToString()) for op in ops[i::n]] for i in range(n)
                ]
                with multiprocessing.get_context("fork").Pool(n) as pool:
                    results = pool.map(_render_batch, batches)
            finally:
                _WORKER_STATE.clear()
            out: list[tuple[emit.FunctionSummary, str, bool]] = [None] * len(ops)  # type: ignore[list-item]
            for i, batch in enumerate(results):
                for j, item in enumerate(batch):
                    if item[0] == "error":  # re-raise in the parent, with the op's location
                        op = ops[i + j * n]
                        _located(op, self.api_model, sources.get(op.name))
                        raise OpgenError(item[1])
                    out[i + j * n] = (emit.FunctionSummary.from_plain(item[0]), item[1], item[2])
            return out
        return [self._render_one(op, sources.get(op.name)) for op in ops]

    def _render_one(self, op: op_def_pb2.OpDef, source: OpSource | None) -> tuple[emit.FunctionSummary, str, bool]:
        api = _located(op, self.api_model, source)
        summary = emit.FunctionSummary.of(api)
        if isinstance(api, SkippedOp):
            return summary, "", True
        return (summary, *emit.render_function(self.templates, api))


# The renderer handed to forked workers (set only while a pool runs).
_WORKER_STATE: dict[str, Renderer] = {}


def _render_batch(items: list[tuple[bytes, bytes]]) -> list[tuple]:
    from opgen.proto import api_def_pb2

    renderer = _WORKER_STATE["renderer"]
    out: list[tuple] = []
    for op_data, api_data in items:
        op = op_def_pb2.OpDef.FromString(op_data)
        try:
            api = function_api(op, api_def_pb2.ApiDef.FromString(api_data))
        except OpgenError as e:
            out.append(("error", e.format()))
            continue
        summary = emit.FunctionSummary.of(api)
        text, direct = ("", True) if isinstance(api, SkippedOp) else emit.render_function(renderer.templates, api)
        out.append((summary.to_plain(), text, direct))
    return out


def _op_list_entry(op_bytes: bytes) -> bytes:
    """One `OpList.op` field on the wire (tag 1, length-delimited): joining these for each op
    gives `OpList(op=ops).SerializeToString(deterministic=True)` without copying the ops."""
    n = len(op_bytes)
    varint = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            varint.append(byte | 0x80)
        else:
            varint.append(byte)
            break
    return b"\x0a" + bytes(varint) + op_bytes


def _located(op: op_def_pb2.OpDef, api_model: ApiModel, source: OpSource | None) -> FunctionApi | SkippedOp:
    """`function_api` whose errors point at the op's REGISTER_OP (or OpList entry)."""
    try:
        return function_api(op, api_model.get(op))
    except OpgenError as e:
        if e.location is None and source is not None:
            e.location = source.location
        raise


def source_map_text(modules: dict[str, list[str]]) -> str:
    """The source map as JSON with one line per function (diff-friendly, fast to write);
    `modules` maps each module file to its `"function": {entry}` lines, sorted."""
    lines = ["{", f' "generator": {_json_str("opgen " + __version__)},', ' "modules": {']
    for i, (module, functions) in enumerate(sorted(modules.items())):
        lines.append(f"  {_json_str(module)}: {{")
        lines.extend(f"   {line}," for line in functions[:-1])
        lines.extend(f"   {line}" for line in functions[-1:])
        lines.append("  }" + ("," if i < len(modules) - 1 else ""))
    lines.extend([" }", "}"])
    return "\n".join(lines) + "\n"


def _location_text(loc: Location, root: Path) -> str:
    path = display_path(loc.path, root)
    if loc.line <= 0:
        return path
    return f"{path}:{loc.line}:{loc.col}" if loc.col > 0 else f"{path}:{loc.line}"


# ---------------------------------------------------------------------------- output tree


def compute_changes(out: Path, files: dict[str, bytes]) -> Changes:
    """What writing `files` into `out` changes (ownership and containment: `tree_writer.plan`)."""
    return plan(out, files, SOURCE_MAP)


def unified_diff(out: Path, changes: Changes) -> str:
    chunks: list[str] = []
    for rel, data in changes.write.items():
        try:
            old = (out / rel).read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        except OSError:
            old = []
        new = data.decode("utf-8").splitlines(keepends=True)
        chunks.extend(difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}"))
    for rel in changes.delete:
        old = (out / rel).read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        chunks.extend(difflib.unified_diff(old, [], f"a/{rel}", "/dev/null"))
    return "".join(c if c.endswith("\n") else c + "\n\\ No newline at end of file\n" for c in chunks)


# ---------------------------------------------------------------------------- command


@dataclass(frozen=True)
class BuildOptions:
    out: Path
    templates: Path | None
    formatter: str
    jobs: int
    modules: dict[str, str]
    root: Path
    config_location: Location
    library: str | None = None  # op library the modules load for TensorFlow ([tool.opgen] library)


def options_from(args, config: Config) -> BuildOptions:
    out = Path(args.out) if args.out else config.path(config.out)
    templates = Path(args.templates) if args.templates else (config.path(config.templates) if config.templates else None)
    return BuildOptions(
        out=out,
        templates=templates,
        formatter=args.formatter or config.formatter,
        jobs=args.jobs if args.jobs is not None else config.jobs,
        modules=dict(config.modules),
        root=config.root,
        config_location=Location(str(config.root / "pyproject.toml")),
        library=_library_option(args, config),
    )


def _library_option(args, config: Config) -> str | None:
    library = getattr(args, "library", None)
    if library is None:
        return config.library
    check_library(library, Location("--library"))
    return library


def render_tree(gathered: GatherResult, api_model: ApiModel, opts: BuildOptions, progress=None,
                write_cache: bool = True) -> RenderResult:
    templates = emit.Templates.load(opts.templates)
    formatter = ChunkFormatter(opts.formatter, opts.jobs, write_cache=write_cache)
    groups = group_ops(gathered.op_list, gathered.sources, opts.modules, opts.config_location)
    renderer = Renderer(templates, formatter, api_model, opts.root, progress, opts.library)
    pack = f"{opts.out.resolve()}\0{opts.formatter}"
    # Rendering allocates many small acyclic objects; cyclic GC passes over a big heap
    # (e.g. with TensorFlow imported) cost more than the whole incremental build.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return renderer.render(groups, gathered.sources, pack)
    finally:
        if gc_was_enabled:
            gc.enable()


def _progress_bar():
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\ropgen build [{'#' * filled}{'.' * (width - filled)}] {done}/{total} ops")
        sys.stderr.flush()

    return show


def _depfile_inputs(gathered: GatherResult, api_model: ApiModel, opts: BuildOptions, overrides_dir: Path | None) -> list[str]:
    inputs = {s.location.path for s in gathered.sources.values()}
    if overrides_dir is not None and overrides_dir.exists():
        inputs.update(str(p) for p in (overrides_dir.rglob("*") if overrides_dir.is_dir() else [overrides_dir]) if p.is_file())
    tdir = opts.templates or emit.shipped_templates_dir()
    inputs.update(str(tdir / n) for n in emit.TEMPLATE_NAMES)
    return sorted(inputs)


def _shown(path: Path | str) -> str:
    """A path for output listings: relative to the working directory when below it."""
    p = Path(path)
    try:
        return p.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return p.as_posix()


def _make_escape(path: str) -> str:
    if any(c in path for c in "\n\r\0"):  # make has no escape for these
        raise OpgenError("a file name with a newline cannot be written to a depfile", Location(ascii(path)[1:-1]),
                         hint="rename the file, or build without --depfile")
    return path.replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")


def _check_out(args, config: Config, opts: BuildOptions) -> None:
    """`--out` may not overlap the inputs (`tree_writer.check_out_dir`)."""
    sources = args.sources or [str(config.path(s)) for s in config.sources]
    inputs = [Path(s) for s in sources if not set(s) & set("*?[")]
    inputs += [Path(d) for d in (args.include_dirs or [str(config.path(d)) for d in config.include_dirs])]
    overrides = args.overrides or config.overrides
    read_whole = [Path(args.overrides) if args.overrides else config.path(overrides)] if overrides else []
    if opts.templates is not None:
        read_whole.append(opts.templates)
    check_out_dir(opts.out, config.root, inputs, opts.config_location, read_whole=read_whole)


def _report_kept(out: Path, changes: Changes) -> None:
    for rel in changes.kept:
        print(f"opgen: keeping {_shown(out / rel)}: opgen wrote it but it was changed since; "
              "delete it by hand if it is no longer needed", file=sys.stderr)


def run_build(args, config: Config, gather: Callable[[], GatherResult] | None = None) -> int:
    """The `opgen build` command (exit 0 ok, 1 stale with --check, 2 user error)."""
    started = time.perf_counter()
    opts = options_from(args, config)
    if gather is None:
        raise OpgenError("run_build needs the gathered specs")
    _check_out(args, config, opts)
    if not (args.list_outputs or args.check or args.dry_run) and opts.out.is_dir():
        with build_lock(opts.out):
            message = recover(opts.out)
        if message:
            print(message, file=sys.stderr)
    gathered = gather()
    overrides_dir: Path | None = None
    if args.overrides:
        overrides_dir = Path(args.overrides)
    elif config.overrides and config.path(config.overrides).exists():
        overrides_dir = config.path(config.overrides)
    if overrides_dir is not None:
        from opgen.overrides import load_overrides

        api_model = load_overrides(overrides_dir, gathered.op_list, merge=config.merge_overrides)
    else:
        api_model = ApiModel({})  # every op's default ApiDef, built on demand by ApiModel.get

    if args.list_outputs:
        groups = group_ops(gathered.op_list, gathered.sources, opts.modules, opts.config_location)
        for name in [*(f"{m}.py" for m in groups), SOURCE_MAP]:
            print(_shown(opts.out / name))
        return 0

    render_model = api_model
    if config.docstring_kernels:
        from opgen.render.kernel_docs import with_kernel_docs

        render_model = with_kernel_docs(api_model, gathered)
    result = render_tree(gathered, render_model, opts, progress=_progress_bar(), write_cache=not args.dry_run)
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")
    from opgen.apidiff import (
        snapshot_outputs,  # the committed API snapshot ([tool.opgen] api), checked too
    )

    api_snapshot = snapshot_outputs(config, gathered, api_model, opts.out)
    for rel in api_snapshot:
        if rel.casefold() in {f.casefold() for f in result.files}:
            raise OpgenError(f"[tool.opgen] api = {config.api!r} names a file the build generates ({rel})",
                             opts.config_location, hint='give the API snapshot its own name, e.g. api = "generated/API.md"')
    changes = compute_changes(opts.out, {**result.files, **api_snapshot})
    if args.depfile:
        targets = " ".join(_make_escape(_shown(opts.out / rel)) for rel in sorted(result.files))
        deps = " ".join(_make_escape(_shown(p)) for p in _depfile_inputs(gathered, api_model, opts, overrides_dir))
        if not args.check and not args.dry_run:
            atomic_write(Path(args.depfile), f"{targets}: {deps}\n".encode())
    stale = len(changes.write) + len(changes.delete)
    if args.check:
        if stale:
            sys.stdout.write(unified_diff(opts.out, changes))
            print(f"opgen build --check: {stale} file(s) in {opts.out} are stale; run `opgen build`", file=sys.stderr)
            return 1
        print(f"opgen build --check: {opts.out} is up to date ({len(result.files)} files)", file=sys.stderr)
        return 0
    if args.dry_run:
        for rel in changes.write:
            print(f"would write {_shown(opts.out / rel)}")
        for rel in changes.delete:
            print(f"would delete {_shown(opts.out / rel)}")
        _report_kept(opts.out, changes)
        return 0
    with build_lock(opts.out):  # another build may have committed meanwhile: compare again
        changes = compute_changes(opts.out, {**result.files, **api_snapshot})
        commit(opts.out, changes)
    _report_kept(opts.out, changes)
    elapsed = time.perf_counter() - started
    print(
        f"opgen build: {len(result.files) - 1} modules, {result.ops} ops -> {opts.out}: "
        f"{len(changes.write)} written, {len(changes.delete)} deleted, {changes.unchanged} unchanged "
        f"({result.formatted} chunks formatted, {elapsed:.2f}s)",
        file=sys.stderr,
    )
    return 0


__all__ = ["BuildOptions", "compute_changes", "group_ops", "render_tree", "run_build"]
