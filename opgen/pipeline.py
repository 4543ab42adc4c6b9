"""`opgen build`, orchestrated: gather -> overrides -> render -> API snapshot -> write the tree.

The layers it drives do not know each other: `opgen.render` renders modules and the source
map, `opgen.apidiff` renders the API snapshot, `opgen.render.tree_writer` compares and writes
the output tree atomically. This module decides what is read (for depfiles), what is
written (for `--list-outputs`), and what `--check`, `--diff` and `--dry-run` print.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from opgen.apidef import ApiModel
from opgen.apidiff import snapshot_outputs, snapshot_path
from opgen.apidiff.commands import api_hint
from opgen.config import Config, check_library
from opgen.depfile import depfile_bytes
from opgen.errors import Location, OpgenError, printable_path, report
from opgen.fsutil import LiteralPath, atomic_write
from opgen.module_groups import group_ops
from opgen.overrides import load_overrides
from opgen.render import emit
from opgen.render.build import SOURCE_MAP, BuildOptions, compute_changes, render_tree
from opgen.render.tree_writer import Changes, build_lock, check_out_dir, commit, gitignore_output, is_internal, recover
from opgen.spec.model import GatherResult
from opgen.written_files import check_written_file, gathered_inputs


def unified_diff(out: Path, changes: Changes, root: Path) -> bytes:
    """The changes as one unified diff whose paths are relative to the project `root`, so
    `git apply` takes it from there (`/dev/null` for created and deleted files). Bytes, split
    at `\n` only as git splits lines (str.splitlines would also split at U+2028, U+0085, form
    feeds, ...), so a file that is not UTF-8 is diffed as it is on disk."""
    chunks: list[bytes] = []
    for rel in sorted([*changes.write, *changes.delete]):
        path = _root_relative(out / rel, root)
        try:
            old: list[bytes] | None = _git_lines((out / rel).read_bytes())
        except OSError:
            old = None
        data = changes.write.get(rel)
        new = _git_lines(data) if data is not None else None
        chunks.extend(_file_diff(old or [], new or [], _git_quoted(f"a/{path}") if old is not None else b"/dev/null",
                                 _git_quoted(f"b/{path}") if new is not None else b"/dev/null"))
    return b"".join(c if c.endswith(b"\n") else c + b"\n\\ No newline at end of file\n" for c in chunks)


def _git_lines(data: bytes) -> list[bytes]:
    """`data` split after each `\n` (the last line may lack one)."""
    lines = data.split(b"\n")
    return [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


_GIT_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r",
                '"': '\\"', "\\": "\\\\"}


def _git_quoted(path: str) -> bytes:
    """A diff header path as git writes it (quote.c quote_c_style), in double quotes with C
    escapes (octal for other control characters and for bytes that are not UTF-8) when it
    holds one of them, `"` or `\\`, so `git apply` reads it back and a newline cannot break the
    header line; also when it holds a space, so that apply.c find_name_traditional never takes
    its end for a timestamp (`API 2024-01-01 12:00:00`)."""
    if not any(c in _GIT_ESCAPES or c == " " or ord(c) < 0x20 or ord(c) == 0x7F or 0xDC80 <= ord(c) <= 0xDCFF
               for c in path):
        return os.fsencode(path)
    out = bytearray(b'"')
    for c in path:
        if c in _GIT_ESCAPES:
            out += _GIT_ESCAPES[c].encode()
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out += f"\\{ord(c):03o}".encode()
        else:
            out += b"".join(b"\\%03o" % b if b >= 0x80 and 0xDC80 <= ord(c) <= 0xDCFF else bytes([b])
                            for b in os.fsencode(c))
    return bytes(out + b'"')


_HUNK = re.compile(rb"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _file_diff(old: list[bytes], new: list[bytes], fromfile: bytes, tofile: bytes, context: int = 3) -> list[bytes]:
    """`difflib.unified_diff` lines (on bytes), computed on the part between the common first
    and last lines (a regenerated module changes locally; difflib on its whole 4 MB takes seconds)."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[-1 - end] == new[-1 - end]:
        end += 1
    skip, keep_end = max(0, start - context), max(0, end - context)
    lines = list(difflib.diff_bytes(difflib.unified_diff, old[skip:len(old) - keep_end], new[skip:len(new) - keep_end],
                                    fromfile, tofile, n=context))
    return [_HUNK.sub(lambda m: b"@@ -%d%s +%d%s @@" % (int(m[1]) + skip, m[2] or b"", int(m[3]) + skip, m[4] or b""),
                      line, count=1) if line.startswith(b"@@") else line for line in lines]


def _root_relative(path: Path, root: Path) -> str:
    """`path` relative to the project root (as git shows it), else as given."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


# ---------------------------------------------------------------------------- command


def options_from(args, config: Config) -> BuildOptions:
    out = Path(args.out) if args.out else config.path(config.out)
    templates = (Path(args.templates) if args.templates
                 else config.path(config.templates) if config.templates else None)
    return BuildOptions(
        out=out,
        templates=templates,
        formatter=args.formatter or config.formatter,
        jobs=args.jobs if args.jobs is not None else config.jobs,
        modules=dict(config.modules),
        root=config.root,
        config_location=Location(str(config.root / "pyproject.toml")),
        library=_library_option(args, config),
        libraries=dict(config.libraries),
    )


def _library_option(args, config: Config) -> str | None:
    library = getattr(args, "library", None)
    if library is None:
        return config.library
    check_library(library, Location("--library"), "--library")
    return library


def _progress_bar(started: float, quiet: bool):
    """On a terminal: one rewritten line with the phase, counts and elapsed time; None when
    stderr is piped (logs get the summary line only) or with --quiet."""
    if quiet or not sys.stderr.isatty():
        return None

    def show(phase: str, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\ropgen build [{'#' * filled}{'.' * (width - filled)}] {phase} {done}/{total} ops, "
                         f"{time.perf_counter() - started:.1f}s\x1b[K")
        sys.stderr.flush()

    return show


class _Phases:
    """--verbose: one stderr line per build phase, with what it did and its elapsed time."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.last = time.perf_counter()

    def done(self, what: str) -> None:
        now = time.perf_counter()
        if self.verbose:
            report(f"opgen build: {what} ({now - self.last:.2f}s)")
        self.last = now


def _summary(args, text: str) -> None:
    """A summary line on stderr (terminal-safe), left out under --quiet."""
    if not args.quiet:
        report(text)


def _formatter_files(kind: str) -> list[str]:
    """The formatter's identity as files: its installed distribution's METADATA (rewritten
    by every upgrade, downgrade or reinstall; its version is in the chunk cache key too).
    Empty when it is not installed (the build then fails anyway)."""
    try:
        dist = importlib.metadata.distribution(kind)
    except importlib.metadata.PackageNotFoundError:
        return []
    return [str(dist.locate_file(f)) for f in dist.files or ()
            if f.name == "METADATA" and f.parent.suffix == ".dist-info"]


def _depfile_inputs(gathered: GatherResult, opts: BuildOptions, overrides_dir: Path | None) -> set[str]:
    """Every file the build read: sources with the headers they include and the allow file
    (`gathered_inputs`), override files, templates, pyproject.toml ([tool.opgen]) and the
    formatter's distribution metadata (`_formatter_files`)."""
    inputs = gathered_inputs(gathered)
    if overrides_dir is not None and overrides_dir.exists():
        # directories too: adding or removing an override file changes their mtime
        inputs.update(str(p) for p in (overrides_dir.rglob("*") if overrides_dir.is_dir() else []))
        inputs.add(str(overrides_dir))
    tdir = opts.templates or emit.shipped_templates_dir()
    inputs.update(str(tdir / n) for n in emit.TEMPLATE_NAMES)
    pyproject = Path(opts.config_location.path)
    if pyproject.is_file():
        inputs.add(str(pyproject))
    inputs.update(_formatter_files(opts.formatter))
    return inputs


def _depfile(args, config: Config, opts: BuildOptions, gathered: GatherResult, overrides_dir: Path | None) -> bytes:
    """The `--depfile` text, after checking that the depfile replaces no input and no file
    of the output tree (`check_written_file`)."""
    groups = group_ops(gathered.op_list, gathered.sources, opts.modules, opts.config_location)
    outputs = output_paths(groups, config, opts)
    inputs = _depfile_inputs(gathered, opts, overrides_dir)
    check_written_file(Path(args.depfile), "--depfile", inputs, opts.out, outputs)
    base = Path(args.depfile_relative_to) if args.depfile_relative_to else None
    return depfile_bytes([_shown(opts.out / rel, base) for rel in outputs],
                         sorted({_shown(p, base) for p in inputs}), args.depfile_format)


def output_paths(groups: dict, config: Config, opts: BuildOptions) -> list[str]:
    """Every file `opgen build` writes, relative to `--out`: modules (sorted), source map, API
    snapshot. Depfiles list their targets in this order (ninja wants the first one to be the
    build edge's first output)."""
    api = snapshot_path(config)
    return [*sorted(f"{m}.py" for m in groups), SOURCE_MAP, *([api.as_posix()] if api else []),
            *gitignore_output(opts.out)]


def _shown(path: Path | str, base: Path | None = None) -> str:
    """A path for output listings: relative to the working directory when below it. With
    `base` (`--depfile-relative-to`): relative to `base` when below it, else absolute."""
    p = Path(path)
    try:
        return p.resolve().relative_to((base or Path.cwd()).resolve()).as_posix()
    except ValueError:
        return p.resolve().as_posix() if base else p.as_posix()


def _printed(path: Path | str) -> str:
    """`_shown(path)` as printed on a line of its own or in a summary (`printable_path`)."""
    return printable_path(_shown(path))


def _check_out(args, config: Config, opts: BuildOptions) -> None:
    """`--out` may not overlap the inputs (`tree_writer.check_out_dir`)."""
    sources = args.sources or config.source_paths()
    inputs = [Path(s) for s in sources if isinstance(s, LiteralPath) or not set(s) & set("*?[")]
    inputs += [Path(d) for d in (args.include_dirs or [str(config.path(d)) for d in config.include_dirs])]
    overrides = args.overrides or config.overrides
    read_whole = [Path(args.overrides) if args.overrides else config.path(overrides)] if overrides else []
    if opts.templates is not None:
        read_whole.append(opts.templates)
    check_out_dir(opts.out, config.root, inputs, opts.config_location, read_whole=read_whole)


def _report_stale(args, opts: BuildOptions, changes: Changes) -> int:
    """`--check` (black's manners: one line per stale file, then a summary; exit 1 when
    stale) and `--diff` (a unified diff, paths relative to the project root)."""
    stale = sorted([*changes.write, *changes.delete])
    total = len(changes.write) + len(changes.delete) + changes.unchanged
    if args.diff:
        sys.stdout.flush()
        sys.stdout.buffer.write(unified_diff(opts.out, changes, opts.root))
        sys.stdout.buffer.flush()
    else:
        for rel in stale:
            verb = ("would delete" if rel in changes.delete
                    else "would rewrite" if (opts.out / rel).exists() else "would create")
            print(f"{verb} {printable_path(_root_relative(opts.out / rel, opts.root))}")
    shown = printable_path(_root_relative(opts.out, opts.root))
    if not stale:
        _summary(args, f"opgen build: {shown} is up to date ({total} files)")
        return 0
    _summary(args, f"opgen build: {_count(len(stale), 'file')} of {total} in {shown} would change; run `opgen build`")
    return 1 if args.check else 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _report_kept(out: Path, changes: Changes) -> None:
    for rel in changes.kept:
        report(f"opgen: keeping {_printed(out / rel)}: opgen wrote it but it was changed since; "
               "delete it by hand if it is no longer needed")


def run_build(args, config: Config, gather: Callable[[], GatherResult] | None = None) -> int:
    """The `opgen build` command (exit 0 ok, 1 stale with --check, 2 user error)."""
    started = time.perf_counter()
    phases = _Phases(args.verbose)
    opts = options_from(args, config)
    if gather is None:
        raise OpgenError("run_build needs the gathered specs")
    api = snapshot_path(config)
    if api is not None and (not api.parts or is_internal(api)):
        raise OpgenError(f"[tool.opgen] api = {config.api!r} names a file opgen build keeps for itself",
                         config.where("api"), hint=api_hint(config))
    _check_out(args, config, opts)
    if not (args.list_outputs or args.check or args.diff or args.dry_run) and opts.out.is_dir():
        with build_lock(opts.out):
            message = recover(opts.out)
        if message:
            report(message)
    gathered = gather()
    phases.done(f"gathered {_count(len(gathered.op_list.op), 'op')}")
    overrides_dir: Path | None = None
    if args.overrides:
        overrides_dir = Path(args.overrides)
    elif config.overrides and config.path(config.overrides).exists():
        overrides_dir = config.path(config.overrides)
    if overrides_dir is not None:
        api_model = load_overrides(overrides_dir, gathered.op_list, merge=config.merge_overrides)
    else:
        api_model = ApiModel({})  # every op's default ApiDef, built on demand by ApiModel.get
    phases.done(f"overrides: {printable_path(overrides_dir) if overrides_dir is not None else 'none'}")

    depfile = _depfile(args, config, opts, gathered, overrides_dir) if args.depfile else None

    if args.list_outputs:
        groups = group_ops(gathered.op_list, gathered.sources, opts.modules, opts.config_location)
        for name in output_paths(groups, config, opts):
            print(_printed(opts.out / name))
        return 0

    render_model = api_model
    if config.docstring_kernels:
        from opgen.render.kernel_docs import with_kernel_docs

        render_model = with_kernel_docs(api_model, gathered)
    result = render_tree(gathered, render_model, opts, progress=_progress_bar(started, args.quiet),
                         write_cache=not args.dry_run)
    if sys.stderr.isatty() and not args.quiet:
        sys.stderr.write("\r\x1b[K")
    phases.done(f"rendered {_count(len(result.files) - 1, 'module')}, {result.formatted} chunks formatted")
    api_snapshot = snapshot_outputs(config, gathered, api_model, opts.out)
    for rel in api_snapshot:
        if rel.casefold() in {f.casefold() for f in result.files}:
            raise OpgenError(f"[tool.opgen] api = {config.api!r} names a file the build generates ({rel})",
                             config.where("api"),
                             hint="give the API snapshot its own name, e.g. "
                                  f"api = {config.out.rstrip('/') + '/API.md'!r}")
    changes = compute_changes(opts.out, {**result.files, **api_snapshot, **gitignore_output(opts.out)})
    phases.done(f"API snapshot and comparison: {len(changes.write)} to write, {len(changes.delete)} to delete, "
                f"{changes.unchanged} unchanged")
    if depfile is not None and not (args.check or args.diff or args.dry_run):
        atomic_write(Path(args.depfile), depfile)
    if args.check or args.diff:
        return _report_stale(args, opts, changes)
    if args.dry_run:
        for rel in changes.write:
            print(f"would write {_printed(opts.out / rel)}")
        for rel in changes.delete:
            print(f"would delete {_printed(opts.out / rel)}")
        _report_kept(opts.out, changes)
        return 0
    with build_lock(opts.out):  # another build may have committed meanwhile: compare again
        changes = compute_changes(opts.out, {**result.files, **api_snapshot, **gitignore_output(opts.out)})
        commit(opts.out, changes)
    phases.done(f"wrote {printable_path(opts.out)}")
    _report_kept(opts.out, changes)
    elapsed = time.perf_counter() - started
    _summary(
        args,
        f"opgen build: {_count(len(result.files) - 1, 'module')}, {_count(result.ops, 'op')} -> "
        f"{printable_path(opts.out)}: "
        f"{len(changes.write)} written, {len(changes.delete)} deleted, {changes.unchanged} unchanged "
        f"({result.formatted} chunks formatted, {elapsed:.2f}s)",
    )
    return 0


__all__ = ["options_from", "run_build", "unified_diff"]
