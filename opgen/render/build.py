"""`opgen build`: group ops into modules, render, format, and write the output tree atomically.

Pipeline: gathered OpList + ApiModel -> modules (by source file stem or `[tool.opgen.modules]`
globs) -> per-op chunks (cached by content: op, ApiDef, opgen version, templates,
formatter) -> module texts + source map -> compare with `--out` -> write.

Writes are all-or-nothing (staging, journal, lock, recovery): `opgen.outputs.tree_writer`.
"""

from __future__ import annotations

import ast
import concurrent.futures
import functools
import hashlib
import marshal
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from json.encoder import (
    encode_basestring_ascii as _json_str,  # json.dumps of a str, in C
)
from pathlib import Path
from typing import Literal

from opgen import __version__
from opgen.errors import Location, OpgenError, report
from opgen.fsutil import read_cache_file
from opgen.heap import cyclic_gc_paused
from opgen.model import GatherResult, OpSource
from opgen.module_groups import PACKAGE_INIT, group_ops, module_files, module_library
from opgen.overrides.apidef import ApiModel
from opgen.parallel import can_fork, in_shares
from opgen.python_api.function import FunctionApi, SkippedOp, located_function_api, reserved_name_warning
from opgen.render import emit, residual
from opgen.render.formatter import BuildStamp, ChunkFormatter
from opgen_runtime.proto import op_def_pb2

SOURCE_MAP = "opgen_sourcemap.json"
# More changed ops than this render as a whole build: in parallel, from the chunk pack.
_MOST_OPS_RERENDERED = 64
_OP_DEFS_DECLARATION = emit.OP_DEFS_DECLARATION.encode()


def display_path(path: str, root: Path) -> str:
    """A path as shown in headers and the source map: relative to the project root, whatever
    the working directory (a build from a subdirectory writes the same bytes), never absolute."""
    return _display_path(path, root, os.getcwd())


@functools.lru_cache(maxsize=4096)
def _display_path(path: str, root: Path, cwd: str) -> str:
    """`display_path` of `path`, relative to `cwd` unless absolute (the cache's key holds it:
    one relative path names another file from another working directory)."""
    p = Path(path)
    try:
        return (p if p.is_absolute() else Path(cwd, p)).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:  # outside the project (or reached through a link out of it)
        return p.name if p.is_absolute() else p.as_posix()


# ---------------------------------------------------------------------------- rendering


@functools.cache
def code_digest() -> str:
    """sha256 of the code that shapes a chunk or assembles a module (a cache and `BuildStamp`
    input besides opgen's version: a changed checkout re-renders)."""
    import opgen
    from opgen_runtime import version
    from opgen_runtime.proto import datatypes

    base = Path(opgen.__file__).parent
    h = hashlib.sha256()
    python_api = sorted(p.relative_to(base).as_posix() for p in (base / "python_api").glob("*.py"))
    files = {rel: base / rel for rel in ("overrides/apidef.py", *python_api, "render/emit.py", "render/residual.py",
                                         "render/formatter.py", "render/build.py", "module_groups.py")}
    files["datatypes.py"] = Path(datatypes.__file__)  # the runtime's DataType names
    files["runtime_version.py"] = Path(version.__file__)  # the runtime release headers require
    for rel, path in files.items():
        try:
            h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            h.update(rel.encode() + b"\0missing\0")
    return h.hexdigest()


@dataclass
class RenderResult:
    files: dict[str, bytes]  # path relative to --out -> content
    modules: int = 0  # a split module counts once
    ops: int = 0
    formatted: int = 0  # chunks that went through the formatter (cache misses)
    rendered: int = 0  # ops rendered, not taken from the chunk cache
    warnings: list[str] = field(default_factory=list)  # for the build to report (`render_tree` does)
    # each module file's chunks in order: (op name, `_summary_digest`, start and end byte
    # offsets in the file), and each op's chunk key: a rebuild can replace a chunk
    # (`Renderer.rerender`)
    layout: dict[str, tuple[tuple[str, bytes, int, int], ...]] = field(default_factory=dict)
    op_keys: dict[str, str] = field(default_factory=dict)
    digests: dict[str, bytes] = field(default_factory=dict)  # sha256 of files known without hashing them
    # files `rerender` read back from --out and changed: known to differ from what --out
    # holds, without reading them again (`tree_writer.plan`'s `stale`)
    stale: frozenset[str] = frozenset()

    def hex_digests(self) -> dict[str, str]:
        """`digests` as `tree_writer.compute_changes` takes them (`known`)."""
        return {rel: digest.hex() for rel, digest in self.digests.items()}


Progress = Callable[[str, int, int], None]  # (phase, ops done, ops in all)


@dataclass
class Renderer:
    """Renders module texts from ops with a per-op chunk cache."""

    templates: emit.Templates
    formatter: ChunkFormatter
    api_model: ApiModel
    root: Path
    progress: Progress | None = None
    library: str | None = None  # op library of modules no `libraries` glob matches
    libraries: dict[str, str] = field(default_factory=dict)  # module-name glob -> op library
    max_ops_per_module: int | None = None  # split bigger modules into packages of parts (`module_files`)

    def salt(self) -> str:
        return f"opgen {__version__}\0{code_digest()}\0{self.templates.digest}\0{self.templates.shipped}"

    def _key_salt(self) -> bytes:
        """What every cache key starts with: opgen's version and code, the templates and the formatter."""
        return hashlib.sha256(f"{self.salt()}\0{self.formatter.kind}\0{self.formatter.version}".encode()).digest()

    def inputs_digest(self, op_list: op_def_pb2.OpList, serialized: bytes, sources: dict[str, OpSource],
                      modules: dict[str, str], pack: str) -> tuple[bytes, bytes]:
        """(context, inputs): sha256 of everything `render` of `op_list`'s modules reads but
        the ops' own OpDefs and ApiDefs (the key salt, the output tree and settings, the op
        names in order, the overrides' provenance, and each op's source as headers, the source
        map, registrations and warnings show it), and of all that with the whole OpList
        (`serialized`, deterministically) and the ApiDef overrides. Equal inputs render equal
        files (`BuildStamp`); with an equal context, only the chunks of ops whose key changed
        can differ (`rerender`)."""
        # every source, in the gathering's order (a source of an op not rendered only costs a miss)
        located = [(name, src.location.path, src.location.line, src.location.col, src.shape_fn, src.shape_fn_python)
                   for name, src in sources.items()]
        provenance = sorted((name, tuple((loc.path, loc.line, loc.col) for loc in locations))
                            for name, locations in self.api_model.provenance.items())
        paths = {path for _, path, *_ in located} | {loc[0] for _, locations in provenance for loc in locations}
        shown = sorted((path, display_path(path, self.root)) for path in paths)  # it may resolve links
        settings = (pack, str(self.root), sorted(modules.items()), self.library, sorted(self.libraries.items()),
                    self.max_ops_per_module, [op.name for op in op_list.op], located, provenance, shown)
        # marshal version 2 writes no back-references: equal data gives equal bytes
        context = hashlib.sha256(self._key_salt() + marshal.dumps(settings, 2)).digest()
        api_defs = sorted((name, api.SerializeToString(deterministic=True))
                          for name, api in self.api_model.api_defs.items())
        h = hashlib.sha256(context)
        for part in (marshal.dumps(api_defs, 2), serialized):
            h.update(len(part).to_bytes(8, "little") + part)
        return context, h.digest()

    def op_keys(self, ops: Iterable[tuple[str, bytes | memoryview]]) -> list[str]:
        """Each op's chunk key, from its name and serialized OpDef: the key salt, the OpDef, and
        its ApiDef when it has an override."""
        salt = self._key_salt()
        sha256 = hashlib.sha256
        overridden = self.api_model.api_defs
        plain = sha256(salt + b"\0")
        keys = []
        for name, op_data in ops:
            api = overridden.get(name)
            # An op without an override renders from its OpDef alone (its ApiDef is the
            # default one), so its key needs no ApiDef built, serialized or hashed.
            if api is None:
                h = plain.copy()
            else:
                api_data = api.SerializeToString(deterministic=True)
                h = sha256(salt + b"\1" + len(api_data).to_bytes(8, "little") + api_data)
            h.update(op_data)
            keys.append("op:" + h.hexdigest())
        return keys

    def render(
        self, groups: dict[str, list[op_def_pb2.OpDef]], sources: dict[str, OpSource], pack: str
    ) -> RenderResult:
        """Module texts and the source map; unchanged ops and headers come from the cache."""
        cache = self.formatter.load_pack(pack)
        used: dict[str, tuple[object, bytes]] = {}
        salt = self._key_salt()
        sha256 = hashlib.sha256
        entries: dict[str, tuple[emit.FunctionSummary, bytes]] = {}  # op name -> summary, chunk (UTF-8)
        misses: list[tuple[str, op_def_pb2.OpDef]] = []
        all_ops = [op for ops in groups.values() for op in ops]
        total = len(all_ops)
        op_keys = self.op_keys((op.name, op.SerializeToString(deterministic=True)) for op in all_ops)
        for done, (op, key) in enumerate(zip(all_ops, op_keys), start=1):
            hit = cache.get(key)
            if hit is not None:
                entries[op.name] = (emit.FunctionSummary.from_plain(hit[0]), hit[1])  # type: ignore[arg-type]
                used[key] = hit
            else:
                misses.append((key, op))
            if self.progress and done % 64 == 0:
                self.progress("checked", done, total)
        chunks, formatted, errors = self._chunks([op for _, op in misses], sources)
        for (key, _), rendered in zip(misses, chunks):
            if rendered is not None:
                entries[rendered[0].op_name] = rendered
                used[key] = (rendered[0].to_plain(), rendered[1])
        key_of = {op.name: key for op, key in zip(all_ops, op_keys)}

        # (file path relative to --out without `.py`, its module's name, its ops): a module's
        # own file, or the parts of a split one (whose package file renders below)
        op_files = [(path, name, file_ops) for name, ops in groups.items()
                        for path, file_ops in module_files(name, ops, self.max_ops_per_module)
                        if path != f"{name}/{PACKAGE_INIT}"]
        headers: dict[str, str] = {}
        registrations: dict[str, bytes] = {}
        header_misses: list[tuple[str, str, list[int] | None]] = []
        for path, name, file_ops in op_files:
            # (an op in error is left out: the other errors of the build are reported with its)
            functions = [entries[op.name][0] for op in file_ops if op.name in entries]
            located = {op.name: source for op in file_ops if (source := sources.get(op.name)) is not None}
            src_files = _source_files(located.values(), self.root)
            shape_fns = {op_name: source.shape_fn for op_name, source in located.items() if source.shape_fn}
            translated = {op_name: source.shape_fn_python for op_name, source in located.items()
                          if source.shape_fn_python is not None}
            library = module_library(name, self.libraries, self.library)
            registration = emit.render_registration(self.templates, shape_fns, translated,
                                                    _library_from(path, library))
            if not self.templates.shipped:  # (never formatted: a user's must be Python as it is; trial39 #2)
                _check_registration(registration, name, self.templates)
            registrations[path] = registration.encode()
            registration_uses = emit.ChunkUses.of(registration)
            # The header depends on the file's path, sources, function summaries and what
            # its registration reads only (not on docs or bodies: a changed op rarely changes
            # it). marshal version 2 writes no back-references, so equal data gives equal bytes.
            data = marshal.dumps((path, src_files, [tuple(f) for f in functions], tuple(registration_uses)), 2)
            key = headers[path] = "hdr:" + sha256(salt + data).hexdigest()
            hit = cache.get(key)
            if hit is not None:  # stored by a build whose collision check passed on these summaries
                used[key] = hit
                continue
            collided = emit.collisions(name, functions,
                                       {op_name: source.location for op_name, source in located.items()})
            if collided or errors:
                errors += collided
                continue
            text, lines = emit.render_header(self.templates, name, functions, src_files or ["an OpList"],
                                             registration_uses)
            if lines == []:
                used[key] = (None, text.encode())
            else:
                header_misses.append((key, text, lines))
        emit.raise_all(errors)
        missed = {key for key, _, _ in header_misses}
        header_names = [(f"the header of module {name}" + (f" ({path}.py)" if path != name else ""),
                         "module_header.py.j2") for path, name, _ in op_files if headers[path] in missed]
        for (key, _, _), text in zip(
            header_misses, self._format_residuals([(t, lines) for _, t, lines in header_misses], header_names)
        ):
            used[key] = (None, text.encode())

        files: dict[str, bytes] = {}
        source_map: dict[str, list[str]] = {}
        provenance = self.api_model.provenance
        shown: dict[str, str] = {}  # display_path of each source path (many ops share one; it may resolve links)

        def show(path: str) -> str:
            if path not in shown:
                shown[path] = display_path(path, self.root)
            return shown[path]

        layout: dict[str, tuple[tuple[str, bytes, int, int], ...]] = {}
        for path, _, file_ops in op_files:
            parts = [used[headers[path]][1], _OP_DEFS_DECLARATION]
            offset = len(parts[0]) + len(parts[1]) + 4  # parts are joined by blank lines
            placed = []
            functions_map: list[tuple[str, str]] = []
            for op in file_ops:
                summary, chunk = entries[op.name]
                placed.append((op.name, _summary_digest(summary), offset, offset + len(chunk)))
                offset += len(chunk) + 2
                src = sources.get(op.name)
                # files, not lines: a comment added to a source or override file changes no
                # committed output (the API snapshot carries no locations either)
                where = _json_str(show(src.location.path)) if src else "null"
                op_json = _json_str(op.name)
                parts.append(chunk)  # the function (none for a skipped op), then its OpDef
                if summary.skipped:
                    functions_map.append(
                        (
                            f"<skipped {op.name}>",
                            f'{{"op": {op_json}, "skipped": {_json_str(summary.skipped)}, "source": {where}}}',
                        )
                    )
                    continue
                overrides = ", ".join(_json_str(path) for path in dict.fromkeys(
                    show(loc.path) for loc in provenance.get(op.name, ())))
                aliases = ", ".join(_json_str(a) for a in summary.aliases)
                functions_map.append(
                    (
                        summary.name,
                        f'{{"aliases": [{aliases}], "op": {op_json}, "overrides": [{overrides}], "source": {where}}}',
                    )
                )
            # Registered last: `register_op_list` also marks the module's functions for AutoGraph.
            parts.append(registrations[path])
            files[f"{path}.py"] = b"\n\n".join(parts)
            layout[f"{path}.py"] = tuple(placed)
            functions_map.sort()
            source_map[f"{path}.py"] = [f"{_json_str(fn)}: {entry}" for fn, entry in functions_map]
        for name, ops in groups.items():
            package_init, *module_parts = module_files(name, ops, self.max_ops_per_module)
            if module_parts:
                files[f"{package_init[0]}.py"] = self._package_init(name, module_parts, entries, sources)
                source_map[f"{package_init[0]}.py"] = []  # listed: opgen owns it (`tree_writer`)
        files[SOURCE_MAP] = source_map_text(source_map).encode()
        reserved = [(op.name, src.location if (src := sources.get(op.name)) else None)
                    for ops in groups.values() for op in ops if entries[op.name][0].skipped == "reserved"]
        warnings = []
        if reserved:
            warnings.append(reserved_name_warning(sorted(reserved, key=lambda item: item[1] or Location(""))))
        if used.keys() != cache.index.keys():
            self.formatter.save_pack(pack, used, base=cache)
        return RenderResult(files, modules=len(groups), ops=total, formatted=formatted + len(header_misses),
                            rendered=len(misses),
                            warnings=warnings, layout=layout, op_keys=key_of)

    def _chunks(self, ops: list[op_def_pb2.OpDef], sources: dict[str, OpSource]
                ) -> tuple[list[tuple[emit.FunctionSummary, bytes] | None], int, list[OpgenError]]:
        """Each op's summary and chunk (UTF-8: its function as the formatter lays it out, then
        its OpDef statement; None for an op in error), how many chunks went through the
        formatter, and the errors of the ops in error."""
        rendered, errors = self._render_ops(ops, sources)
        done = [item for item in rendered if item is not None]
        residual_at = [i for i, (summary, _, lines, _) in enumerate(done) if not summary.skipped and lines != []]
        texts = [text for _, text, _, _ in done]
        for i, text in zip(residual_at, self._format_residuals(
                [(done[i][1], done[i][2]) for i in residual_at],
                [(f"op '{done[i][0].op_name}'", "function.py.j2") for i in residual_at])):
            texts[i] = text
        chunks = iter([(summary, _with_op_def(text, statement).encode())
                       for (summary, _, _, statement), text in zip(done, texts)])
        return [None if item is None else next(chunks) for item in rendered], len(residual_at), errors

    def rerender(self, op_list: op_def_pb2.OpList, serialized: bytes, sources: dict[str, OpSource],
                 stamp: BuildStamp, stamped: Callable[[], dict[str, bytes] | None]) -> RenderResult | None:
        """The files of `stamp`'s build (`stamped()`, as read back and checked: None when one
        is gone or changed) with the chunks of the ops whose key changed rendered again and
        put in place of the old ones, when the build's context is the stamp's (the caller
        checks) and those ops are few and keep their summaries: then headers, registrations,
        the source map and the warnings are the stamp's. None otherwise (`render` renders the
        build). `serialized`: the OpList, deterministically (split, it gives each op's bytes
        without serializing each again)."""
        names = [op.name for op in op_list.op]
        op_data = _op_list_entries(serialized)
        keys = self.op_keys(zip(names, op_data) if len(op_data) == len(names) else
                            ((op.name, op.SerializeToString(deterministic=True)) for op in op_list.op))
        if len(keys) != len(stamp.keys):
            return None
        changed = [i for i, (old, new) in enumerate(zip(stamp.keys, keys)) if old != new]
        if len(changed) > _MOST_OPS_RERENDERED:
            return None
        layout = dict(stamp.layout)
        placed: dict[str, tuple[str, int]] = {}  # where each op's chunk lies, looked up for changed ops only
        if changed:
            placed = {entry[0]: (rel, i) for rel, entries in layout.items() for i, entry in enumerate(entries)}
        chunks, formatted, errors = self._chunks([op_list.op[i] for i in changed], sources)
        emit.raise_all(errors)
        replaced: dict[str, dict[int, bytes]] = {}
        for summary, chunk in filter(None, chunks):
            rel, i = placed[summary.op_name]
            if _summary_digest(summary) != layout[rel][i][1]:
                return None
            replaced.setdefault(rel, {})[i] = chunk
        old_files = stamped()
        if old_files is None:
            return None
        files = dict(old_files)
        for rel, new_chunks in replaced.items():
            data = memoryview(files[rel])  # its slices are joined with one copy
            pieces: list[memoryview | bytes] = []
            shift = end = 0
            placed_chunks = list(layout[rel])
            for i, (op_name, summary_digest, start, stop) in enumerate(layout[rel]):
                new_chunk = new_chunks.get(i)
                if new_chunk is not None:
                    pieces += [data[end:start], new_chunk]
                    end = stop
                    placed_chunks[i] = (op_name, summary_digest, start + shift, start + shift + len(new_chunk))
                    shift += len(new_chunk) - (stop - start)
                elif shift:
                    placed_chunks[i] = (op_name, summary_digest, start + shift, stop + shift)
            pieces.append(data[end:])
            files[rel] = b"".join(pieces)
            layout[rel] = tuple(placed_chunks)
        return RenderResult(files, modules=stamp.modules, ops=len(op_list.op), formatted=formatted,
                            rendered=len(changed), warnings=list(stamp.warnings), layout=layout,
                            op_keys=dict(zip(names, keys)),
                            digests={rel: digest for rel, digest in stamp.digests if rel not in replaced},
                            stale=frozenset(rel for rel in replaced if files[rel] != old_files[rel]))

    def _package_init(self, name: str, module_parts: list[tuple[str, Sequence[op_def_pb2.OpDef]]],
                      entries: dict[str, tuple[emit.FunctionSummary, bytes]], sources: dict[str, OpSource]) -> bytes:
        """The `__init__.py` of split module `name`: it re-exports its parts' functions. The
        names of all its functions may not collide, as in one module (each part checks its own)."""
        parts = [(path.rpartition("/")[2], [entries[op.name][0] for op in ops]) for path, ops in module_parts]
        functions = [f for _, part in parts for f in part]
        located = {op.name: source for _, ops in module_parts for op in ops
                   if (source := sources.get(op.name)) is not None}
        emit.raise_all(emit.collisions(name, functions, {op_name: source.location
                                                         for op_name, source in located.items()}))
        return emit.render_package_init(name, parts, _source_files(located.values(), self.root) or ["an OpList"],
                                        self.max_ops_per_module).encode()

    def _format_residuals(self, chunks: list[tuple[str, list[int] | None]], names: list[tuple[str, str]]) -> list[str]:
        """Chunks (text, residual lines) as the formatter lays them out (`residual.format_residuals`);
        its error (only a user's templates can cause one) points at the template and names
        what it rendered (`names`: per chunk, (what, template name))."""
        try:
            return residual.format_residuals(self.formatter.format_many, chunks)
        except OpgenError as e:
            if e.location is None:
                e.location = Location(self.templates.directory)
                for (text, _), (what, template) in zip(chunks, names):
                    problem = _not_python(text, template, what)
                    if problem is not None:
                        e.message += f"\n\t{problem}"
                        e.location = Location(self.templates.path(template))
                        break
            raise

    def _render_ops(self, ops: list[op_def_pb2.OpDef],
                    sources: dict[str, OpSource]) -> tuple[list[RenderedOp | None], list[OpgenError]]:
        """`_render_one` of each op (None for an op in error), and the errors of all ops, each
        located at its op; for big batches, `jobs - 1` forked workers render all but one
        share, which this process renders meanwhile (`in_shares`)."""
        jobs = self.formatter.jobs
        if jobs > 1 and len(ops) >= 256 and can_fork():
            n = min(jobs, len(ops))
            self.templates.precompile("function.py.j2")  # once, not in each worker
            mine, shares = in_shares(lambda first, step: self._render_each(ops[first::step], sources, len(ops)),
                                     lambda first, step: _render_share(self, ops[first::step]), n)
            out: list[RenderedOp | OpgenError] = [None] * len(ops)  # type: ignore[list-item]
            out[0::n] = mine
            for i, share in enumerate(shares, start=1):
                for j, item in enumerate(share):
                    op = ops[i + j * n]
                    if item[0] == "error":  # the worker's message: the error again here, located
                        out[i + j * n] = _error_of(op, self.api_model, sources.get(op.name), item[1])
                    else:
                        out[i + j * n] = (emit.FunctionSummary.from_plain(item[0]), *item[1:])
        else:
            out = self._render_each(ops, sources, len(ops))
        # One error per place and message: a template's mistake fails every op it renders the
        # same way (trial28: 43 copies of one line), so it is said once, naming the ops.
        same: dict[tuple[Location | None, str], tuple[OpgenError, list[str]]] = {}
        for op, rendered in zip(ops, out):
            if isinstance(rendered, OpgenError):
                same.setdefault((rendered.location, rendered.message), (rendered, []))[1].append(op.name)
        errors = []
        for error, names in same.values():
            if len(names) > 1:
                shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
                error.message += f" (rendering each of {len(names)} ops: {shown})"
            elif len(ops) > 1 and error.message.startswith("template "):  # (one of several: trial39 #11; an op's
                error.message += f" (rendering op {names[0]})"  # own error names it already)
            errors.append(error)
        return [None if isinstance(item, OpgenError) else item for item in out], errors

    def _render_each(self, ops: list[op_def_pb2.OpDef], sources: dict[str, OpSource],
                     total: int) -> list[RenderedOp | OpgenError]:
        """`_render_one` of each op (its error, for an op in error), reporting progress as if
        `ops` were a share of `total` ops rendered at the same pace by every worker."""
        rendered: list[RenderedOp | OpgenError] = []
        for op in ops:
            try:
                rendered.append(self._render_one(op, sources.get(op.name)))
            except OpgenError as e:
                rendered.append(e)
            if self.progress and len(rendered) % 16 == 0:
                self.progress("rendered", min(total, len(rendered) * total // len(ops)), total)
        return rendered

    def _render_one(self, op: op_def_pb2.OpDef, source: OpSource | None) -> RenderedOp:
        api = _located(op, self.api_model, source)
        statement = emit.op_def_statement(_op_list_entry(op.SerializeToString(deterministic=True)))
        if isinstance(api, SkippedOp):
            return emit.FunctionSummary.of(api), "", [], statement
        text, lines = emit.render_function(self.templates, api)
        return emit.FunctionSummary.of(api, text), text, lines, statement


# An op rendered: its summary, its function's text, the lines a formatter must lay out
# (`emit.render_function`), and the statement appending its OpDef.
RenderedOp = tuple[emit.FunctionSummary, str, list[int] | None, str]
# A `RenderedOp` as a forked worker returns it (`_render_share`), or ("error", message).
SharedOp = tuple[emit.PlainSummary, str, list[int] | None, str] | tuple[Literal["error"], str]

def _render_share(renderer: Renderer, ops: list[op_def_pb2.OpDef]) -> list[SharedOp]:
    """`_render_one` of each op in a forked worker, summaries as plain tuples; an op whose API
    is in error gives ("error", message) (the parent re-raises it, located)."""
    out: list[SharedOp] = []
    for op in ops:
        try:
            summary, text, lines, statement = renderer._render_one(op, None)
        except OpgenError as e:
            out.append(("error", e.format()))
            continue
        out.append((summary.to_plain(), text, lines, statement))
    return out


def _check_registration(text: str, module: str, templates: emit.Templates) -> None:
    """Raise unless `text`, what a user's module_registration.py.j2 rendered for `module`, is
    Python: it goes into the module as rendered (no formatter reads it), so a slip there would
    break every module's import while the build passed."""
    problem = _not_python(text, "module_registration.py.j2", f"module {module}")
    if problem is not None:
        raise OpgenError(problem, Location(templates.path("module_registration.py.j2")),
                         hint="fix the template in --templates")


def _not_python(text: str, template: str, what: str) -> str | None:
    """Why `text`, the code `template` rendered for `what`, is not Python (its first syntax
    error and line), or None when it parses."""
    try:
        ast.parse(text)
    except SyntaxError as bad:
        code = (bad.text or "").strip()
        return (f"the code {template} rendered for {what} is not valid Python: {bad.msg}, at its line {bad.lineno}: "
                f"{code!r}")
    return None


def _source_files(located: Iterable[OpSource], root: Path) -> list[str]:
    """The source files of ops, as module headers name them."""
    return sorted({display_path(p, root) for p in {source.location.path for source in located}})


def _library_from(path: str, library: str | None) -> str | None:
    """The op library as the module file at `path` (relative to --out) names it: a path
    relative to the module's folder moves up one folder for a split module's part."""
    if library is None or "/" not in path or ":" in library or library.startswith("/"):
        return library
    return f"../{library}"


def _with_op_def(function_text: str, op_def_statement: str) -> str:
    """A chunk as the module holds it: the op's function, then the statement appending its
    OpDef to the module's `_OP_DEFS` (cached with the chunk: both depend on the OpDef)."""
    return f"{function_text}\n\n{op_def_statement}" if function_text else op_def_statement


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


def _op_list_entries(serialized: bytes) -> list[memoryview]:
    """The inverse of `_op_list_entry`: each op's bytes in a serialized OpList, without a copy;
    stops at anything but an `op` field (an unknown field from an OpList file): the caller
    then sees fewer entries than ops."""
    data = memoryview(serialized)
    entries = []
    i, n = 0, len(serialized)
    while i < n and serialized[i] == 0x0A:
        i += 1
        length = shift = 0
        while i < n:
            byte = serialized[i]
            i += 1
            length |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        entries.append(data[i:i + length])
        i += length
    return entries if i == n else entries[:0]


def _summary_digest(summary: emit.FunctionSummary) -> bytes:
    """A short digest of an op's summary (what the build stamp keeps of it, to tell whether a
    rebuilt op still fits the module's header, source map and warnings)."""
    return hashlib.blake2b(marshal.dumps(summary.to_plain(), 2), digest_size=16).digest()


def _located(op: op_def_pb2.OpDef, api_model: ApiModel, source: OpSource | None) -> FunctionApi | SkippedOp:
    """`function_api` of the op's merged ApiDef, its errors located (`located_function_api`)."""
    return located_function_api(op, api_model.merged(op), source)


def _error_of(op: op_def_pb2.OpDef, api_model: ApiModel, source: OpSource | None, message: str) -> OpgenError:
    """The located error of an op a forked worker reported as `message` (`_render_share`)."""
    try:
        _located(op, api_model, source)
    except OpgenError as e:
        return e
    return OpgenError(message)  # (only a template error, reported whole by the worker)


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


# ---------------------------------------------------------------------------- output tree


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
    libraries: dict[str, str] = field(default_factory=dict)  # per module ([tool.opgen.libraries])
    max_ops_per_module: int | None = None  # split bigger modules ([tool.opgen] max_ops_per_module)


def render_tree(gathered: GatherResult, api_model: ApiModel, opts: BuildOptions,
                progress: Progress | None = None,
                write_cache: bool = True) -> RenderResult:
    with cyclic_gc_paused():
        templates = emit.Templates.load(opts.templates)
        formatter = ChunkFormatter(opts.formatter, opts.jobs, write_cache=write_cache)
        renderer = Renderer(templates, formatter, api_model, opts.root, progress, opts.library, opts.libraries,
                            opts.max_ops_per_module)
        pack = f"{opts.out.resolve()}\0{opts.formatter}"
        stamp = formatter.load_stamp(pack)
        result = unchanged = None
        with concurrent.futures.ThreadPoolExecutor(1) as reader:
            # Reading the stamped files back and hashing them (5 MB for TF's registry) releases
            # the GIL: a thread does it while this one digests the inputs and keys the ops.
            stamped = reader.submit(_files_as_stamped, opts.out, stamp) if stamp is not None else None
            serialized = gathered.op_list.SerializeToString(deterministic=True)
            context, inputs = renderer.inputs_digest(gathered.op_list, serialized, gathered.sources, opts.modules,
                                                     pack)
            if stamp is not None and stamped is not None and stamp.context == context:
                if stamp.inputs != inputs:
                    result = renderer.rerender(gathered.op_list, serialized, gathered.sources, stamp, stamped.result)
                elif (files := stamped.result()) is not None:
                    result = unchanged = RenderResult(files, modules=stamp.modules, ops=len(gathered.op_list.op),
                                                      warnings=list(stamp.warnings), digests=dict(stamp.digests))
        if result is None:
            groups = group_ops(gathered.op_list, gathered.sources, opts.modules, opts.config_location)
            result = renderer.render(groups, gathered.sources, pack)
        for warning in result.warnings:
            report(warning)
        if result is not unchanged:
            result.digests = {rel: result.digests.get(rel) or hashlib.sha256(data).digest()
                              for rel, data in result.files.items()}
            formatter.save_stamp(pack, BuildStamp(inputs, context, tuple(result.digests.items()), result.modules,
                                                  tuple(result.warnings), tuple(result.layout.items()),
                                                  tuple(result.op_keys[op.name] for op in gathered.op_list.op)))
        return result



def _files_as_stamped(out: Path, stamp: BuildStamp) -> dict[str, bytes] | None:
    """The files `stamp` records, read from `out` (never through a symlink), when each still
    has its recorded digest; None when one is missing or differs (the build renders them)."""
    files: dict[str, bytes] = {}
    for rel, digest in stamp.digests:
        try:
            data = read_cache_file(out.joinpath(*rel.split("/")))
        except OSError:
            return None
        if hashlib.sha256(data).digest() != digest:
            return None
        files[rel] = data
    return files


__all__ = ["SOURCE_MAP", "BuildOptions", "RenderResult", "Renderer", "display_path", "render_tree"]
