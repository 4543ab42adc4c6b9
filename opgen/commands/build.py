"""`opgen build`: gather -> overrides -> render -> API snapshot -> write the tree.

The layers it drives do not know each other: `opgen.render` renders modules and the source
map, `opgen.apidiff` renders the API snapshot, `opgen.outputs.tree_writer` compares and writes
the output tree atomically. This module decides what is read (for depfiles, `--list-inputs`), what is
written (for `--list-outputs`), and what `--check`, `--diff` and `--dry-run` print.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.metadata
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from opgen.apidiff.snapshot_file import api_hint, snapshot_outputs, snapshot_path
from opgen.config import Config
from opgen.errors import (
    Location,
    OpgenError,
    ReportedWarnings,
    counting_warnings,
    first_names,
    opgen_command,
    plural,
    printable_path,
    report,
    reports_silenced,
)
from opgen.fsutil import LiteralPath, flush_stdout, trim_cache, write_output, write_stdout
from opgen.globs import glob_list
from opgen.model import GatherResult
from opgen.module_groups import (
    BIG_MODULE_OPS,
    group_ops,
    module_files,
    module_library,
    module_of,
    same_named_sources,
    unmatched_patterns,
)
from opgen.outputs.depfile import depfile_bytes
from opgen.outputs.diff_writer import root_relative, unified_diff
from opgen.outputs.package_imports import missing_imports
from opgen.outputs.tree_writer import (
    GITIGNORE_NAMES,
    JOURNAL,
    STAGING,
    Changes,
    build_lock,
    check_out_dir,
    commit,
    compute_changes,
    gitignore_output,
    interrupted,
    is_internal,
    recover,
)
from opgen.outputs.written_files import check_written_file, gathered_inputs
from opgen.overrides.apidef import ApiModel
from opgen.overrides.load import load_overrides
from opgen.python_api.function import is_retired
from opgen.render import emit
from opgen.render.build import SOURCE_MAP, BuildOptions, RenderResult, render_tree
from opgen.render.formatter import unavailable
from opgen.settings import Settings as _Settings
from opgen.settings import SpecInput
from opgen.shape_translate.report import op_list_shape_warnings
from opgen.spec.kernel_summary import cross_check, types_without_kernels
from opgen.spec.tf_core_ops import is_tf_core_op
from opgen_runtime.graph.graph import GRAPH_DEF_VERSION

if TYPE_CHECKING:
    from opgen_runtime.proto import op_def_pb2


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    input: SpecInput
    overrides: str | None = None  # the override directory read (`--overrides`, else the configured one that exists)
    templates: str | None = None
    formatter: str = "black"
    jobs: int = 0
    max_ops_per_module: int | None = None
    library: str | None = None
    out: str
    depfile: str | None = None
    depfile_format: str = "make"
    depfile_relative_to: str | None = None
    list_outputs: bool = False
    list_inputs: bool = False
    check: bool = False
    diff: bool = False
    dry_run: bool = False
    warnings_as_errors: bool = False


def build_options(settings: Settings) -> BuildOptions:
    config = settings.config
    return BuildOptions(
        out=Path(settings.out),
        templates=Path(settings.templates) if settings.templates else None,
        formatter=settings.formatter,
        jobs=settings.jobs,
        modules=dict(config.modules),
        root=config.root,
        config_location=Location(str(config.root / "pyproject.toml")),
        library=settings.library,
        libraries=dict(config.libraries),
        max_ops_per_module=settings.max_ops_per_module,
    )


def _progress_bar(started: float, quiet: bool) -> Callable[[str, int, int], None] | None:
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


def _summary(settings: Settings, text: str) -> None:
    """A summary line on stderr (terminal-safe), left out under --quiet."""
    if not settings.quiet:
        report(text)


def _formatter_files(kind: str) -> list[str]:
    """The formatter's identity as files: its installed distribution's METADATA (rewritten
    by every upgrade, downgrade or reinstall; its version is in the chunk cache key too).
    Empty when it is not installed (the build then fails anyway)."""
    try:
        dist = importlib.metadata.distribution(kind)
    except importlib.metadata.PackageNotFoundError:
        return []
    files = dist.files or ()
    return [str(dist.locate_file(f)) for f in files if f.name == "METADATA" and f.parent.suffix == ".dist-info"]


def _depfile_inputs(gathered: GatherResult, opts: BuildOptions, overrides_dir: Path | None) -> set[str]:
    """Every file the build read: sources with the headers they include and the allow file
    (`gathered_inputs`), override files, templates, pyproject.toml ([tool.opgen]) and the
    formatter's distribution metadata (`_formatter_files`); and the directories searched for
    sources and overrides, whose mtime a file added or removed there changes."""
    inputs = gathered_inputs(gathered) | set(gathered.directories)
    if overrides_dir is not None and overrides_dir.exists():
        inputs.update(str(p) for p in (overrides_dir.rglob("*") if overrides_dir.is_dir() else []))
        inputs.add(str(overrides_dir))
    inputs.update(str(path) for path in emit.template_files(opts.templates or emit.shipped_templates_dir()))
    pyproject = Path(opts.config_location.path)
    if pyproject.is_file():
        inputs.add(str(pyproject))
    inputs.update(_formatter_files(opts.formatter))
    return inputs


def _depfile(settings: Settings, opts: BuildOptions, gathered: GatherResult,
             overrides_dir: Path | None) -> tuple[bytes, list[str]]:
    """The `--depfile` text and its targets (relative to `--out`), after checking that the
    depfile replaces no input and no file of the output tree (`check_written_file`)."""
    groups = group_ops(gathered.op_list, gathered.sources, opts.modules, opts.config_location)
    outputs = output_paths(groups, settings.config, opts)
    inputs = _depfile_inputs(gathered, opts, overrides_dir)
    assert settings.depfile is not None
    check_written_file(Path(settings.depfile), "--depfile", inputs, opts.out, outputs)
    base = Path(settings.depfile_relative_to) if settings.depfile_relative_to else None
    text = depfile_bytes(
        [_shown(opts.out / rel, base) for rel in outputs],
        sorted({_shown(p, base) for p in inputs}),
        settings.depfile_format,
    )
    return text, outputs


def output_paths(groups: dict[str, list[op_def_pb2.OpDef]], config: Config, opts: BuildOptions) -> list[str]:
    """Every file `opgen build` writes, relative to `--out`: modules (sorted), source map, API
    snapshot. Depfiles list their targets in this order (ninja wants the first one to be the
    build edge's first output)."""
    api = snapshot_path(config)
    modules = (path for name, ops in groups.items() for path, _ in module_files(name, ops, opts.max_ops_per_module))
    return [
        *sorted(f"{path}.py" for path in modules),
        SOURCE_MAP,
        *([api.as_posix()] if api else []),
        *gitignore_output(opts.out),
    ]


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


def _check_out(settings: Settings, opts: BuildOptions) -> None:
    """`--out` may not overlap the inputs (`tree_writer.check_out_dir`)."""
    inputs = [Path(s) for s in settings.input.sources if isinstance(s, LiteralPath) or not set(s) & set("*?[")]
    inputs += [Path(d) for d in settings.input.include_dirs]
    read_whole = [Path(settings.overrides)] if settings.overrides else []
    if opts.templates is not None:
        read_whole.append(opts.templates)
    if _out_from_key(settings, opts):  # the key, at its line
        check_out_dir(opts.out, settings.config.root, inputs, settings.config.where("out"), read_whole=read_whole,
                      given_by="[tool.opgen] out")
    else:  # the command line's option (as a bad --library is named)
        check_out_dir(opts.out, settings.config.root, inputs, Location("--out"), read_whole=read_whole)


def _out_from_key(settings: Settings, opts: BuildOptions) -> bool:
    """Whether the output directory is the one `[tool.opgen] out` names (no `--out` replaced it)."""
    config = settings.config
    return "out" in config.written and config.path(config.out).resolve() == opts.out.resolve()


def _warn_out_not_a_package(settings: Settings, opts: BuildOptions) -> None:
    """Warn when `out` is a folder of a package (its parent has an `__init__.py`) but has none
    itself: Python imports it as a namespace package, but setuptools' find_packages and
    `[tool.setuptools.packages.find]` with `namespaces = false` (what `opgen init` writes) skip a
    folder without `__init__.py` (setuptools.discovery PackageFinder._looks_like_package), so a
    wheel would lack the modules. opgen writes no `__init__.py` there: the package is the user's."""
    out = opts.out
    if (out / "__init__.py").is_file() or not (out.parent / "__init__.py").is_file():
        return
    config = settings.config
    configured = _out_from_key(settings, opts)
    shown = printable_path(root_relative(out, opts.root))
    report(
        OpgenError(
            f"{'[tool.opgen] out' if configured else '--out'} {shown} is a folder of package "
            f"{printable_path(root_relative(out.parent, opts.root))} but has no __init__.py: setuptools' "
            "packages.find (namespaces = false) and find_packages() skip it, so a wheel of the package would "
            "lack its modules",
            config.where("out") if configured else None,
            hint=f"create {shown}/__init__.py (empty will do; opgen build leaves files it did not write alone)",
        ).format_warning()
    )


def _warn_no_kernels(settings: Settings, opts: BuildOptions, gathered: GatherResult) -> None:
    """`docstring_kernels = true` but the sources register no kernel: kernels are read from the
    same files as the ops (`opgen.spec.gather`), so kernels in other files add nothing, silently."""
    config = settings.config
    looked = ", ".join(printable_path(root_relative(Path(s), opts.root)) for s in settings.input.sources)
    from opgen.spec.gather import TRANSLATION_UNIT_SUFFIXES

    read = sum(1 for path in gathered.inputs if path.endswith(TRANSLATION_UNIT_SUFFIXES))
    report(
        OpgenError(
            "[tool.opgen] docstring_kernels = true, but the sources register no kernel (REGISTER_KERNEL_BUILDER), "
            'so no docstring gets its "Runs on" paragraph. opgen reads kernels from the files it reads ops from: '
            f"{looked} ({_count(read, 'C++ source')} read)",
            config.where("docstring_kernels"),
            hint="add the files or directories that register the kernels to [tool.opgen] sources (a file of "
            f"kernels alone is fine; `{opgen_command('kernels')}` lists what they register), or set "
            "docstring_kernels = false",
        ).format_warning()
    )


def _would(rel: str, changes: Changes, out: Path) -> str:
    """What writing `changes` would do to `rel` (the words of --check, --diff and --dry-run)."""
    if rel in changes.delete:
        return "would delete"
    return "would rewrite" if (out / rel).exists() else "would create"


def _report_stale(settings: Settings, opts: BuildOptions, changes: Changes) -> int:
    """`--check` (black's manners: one line per stale file, then a summary; exit 1 when
    stale, or when the build would keep a stale file changed by hand: see `_report_kept`) and
    `--diff` (a unified diff, paths relative to the project root)."""
    stale = sorted([*changes.write, *changes.delete])
    total = len(changes.write) + len(changes.delete) + changes.unchanged
    if settings.diff:
        flush_stdout()  # (text printed before the bytes)
        write_stdout(unified_diff(opts.out, changes, opts.root))
    else:
        for rel in stale:
            print(f"{_would(rel, changes, opts.out)} {printable_path(root_relative(opts.out / rel, opts.root))}")
    _report_kept(opts.out, changes, reviewing=True)
    shown = printable_path(root_relative(opts.out, opts.root))
    if not stale and not changes.kept:
        _summary(settings, f"opgen build: {shown} is up to date ({total} files)")
        return 0
    if stale:
        _summary(settings, f"opgen build: {_count(len(stale), 'file')} of {total} in {shown} would change; "
                           f"run `{opgen_command('build')}`")
    else:
        _summary(settings, f"opgen build: {shown} is up to date but for {_count(len(changes.kept), 'stale file')} "
                           f"changed by hand, which `{opgen_command('build')}` would keep (above)")
    return 1 if settings.check else 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _report_kept(out: Path, changes: Changes, reviewing: bool = False) -> None:
    """What the build does with the stale files changed by hand (`Changes.kept`: kept, and the
    user's from then on) and with an edited .gitignore; `reviewing` (--check, --diff, --dry-run):
    what it would do with the files (the .gitignore is left to the build, which says it once)."""
    # said by every review, and by the build that finds the edit, then never again: the
    # manifest (and the source map) no longer list the file
    for rel in changes.kept:
        if reviewing:
            report(f"opgen: would keep {_printed(out / rel)}: opgen generated it, but its header is gone (changed by "
                   "hand); delete it if it is no longer needed, or run `opgen build` to keep it as yours")
        else:
            report(f"opgen: keeping {_printed(out / rel)}: opgen generated it, but its header is gone (changed by "
                   "hand), so it is yours from now on; delete it if it is no longer needed")
    if reviewing:
        return
    for rel in changes.disowned:
        report(
            OpgenError(
                "this .gitignore was changed since opgen wrote it: it is yours from now on, and opgen no longer "
                "updates it",
                Location(_shown(out / rel)),
                hint=f"keep {', '.join(GITIGNORE_NAMES)} in it, so opgen's own files stay out of version control; "
                "delete it to have opgen write its own again",
            ).format_warning()
        )


def _gather(settings: Settings) -> GatherResult:
    """The build's specs, with the warnings only a build gives: a [tool.opgen.modules] or
    [tool.opgen.libraries] pattern that matches nothing, and what `opgen kernels` reports."""
    config = settings.config
    gathered = settings.input.gather(
        cache=not settings.dry_run,  # `--dry-run` writes no cache
        require_ops=True,
        jobs=settings.jobs,
    )  # a build from no ops would delete every module
    # sources named on the command line may be a few of the project's: the patterns of the
    # others' ops and modules then rightly match nothing
    all_sources = settings.input.reads_configured_sources(config)
    for pattern in unmatched_patterns((op.name for op in gathered.op_list.op), config.modules if all_sources else {}):
        report(
            OpgenError(
                f"[tool.opgen.modules] pattern {pattern!r} matches no op",
                config.where("modules", pattern),
                hint=_op_pattern_hint(pattern, gathered, config),
            ).format_warning()
        )
    # what `opgen kernels` reports (a kernel for a type its op does not allow, ...): TF
    # would never select such a kernel, or fail creating it
    for finding in cross_check(
        gathered.kernels or [], gathered.op_list, internal_ops_listed=settings.input.include_internal,
        sources=gathered.sources, kernels_elsewhere=config.kernels_elsewhere,
    ):
        report(finding.format_warning())
    uncovered = types_without_kernels(gathered.kernels or [], gathered.op_list, gathered.sources,
                                      config.kernels_elsewhere)
    if uncovered:  # one note: kernels for some of the types an op allows are common (CPU float only)
        names = list(dict.fromkeys(op for op, _ in uncovered))
        report(f"note: {plural(len(names), 'op')} allow{'s' if len(names) == 1 else ''} types that none of "
               f"{'its' if len(names) == 1 else 'their'} kernels accept ({first_names(names, 5)}): a call with such "
               f"a type fails; `{opgen_command('kernels')}` lists each, at its attr")
    # (TF's own ops deprecated long ago, declared again by a library mirroring TF's, are TF's doing)
    retired = [op.name for op in gathered.op_list.op if is_retired(op) and not is_tf_core_op(op.name)]
    if retired:  # one note: meant for an op kept only for graphs saved before, or a mistaken version
        report(f"note: {plural(len(retired), 'op')} {'is' if len(retired) == 1 else 'are'} deprecated at a GraphDef "
               f"version TensorFlow 2.21 already produces ({GRAPH_DEF_VERSION}): every call of "
               f"{'its wrapper raises' if len(retired) == 1 else 'their wrappers raise'} NotImplementedError "
               f"(eagerly tf.errors.UnimplementedError); graphs saved before still load ({first_names(retired, 5)})")
    for module, first_ops in same_named_sources(gathered.op_list, gathered.sources, config.modules).items():
        files = [str(src.location.path) for _, src in first_ops]
        op_name, second = first_ops[1]
        report(
            OpgenError(
                f"module {module} gathers the ops of {', '.join(files[:-1])} and {files[-1]}, files whose names give "
                "one module name: one module, which loads one op library",
                second.location,
                hint=f'give this file\'s ops a module of their own ([tool.opgen.modules] "{op_name}" = "{module}_2", '
                f'a glob for several), or rename the file; a rule keeping them in {module} ("{op_name}" = "{module}") '
                "says that is meant and silences this",
            ).format_warning()
        )
    # (grouped only when a check needs the modules: a no-op rebuild of TF's registry spends 5% on it)
    big_possible = settings.max_ops_per_module is None and len(gathered.op_list.op) > BIG_MODULE_OPS
    modules = (group_ops(gathered.op_list, gathered.sources, config.modules, config.where("modules"))
               if big_possible or config.libraries else {})
    for module, ops in modules.items() if big_possible else ():
        if len(ops) > BIG_MODULE_OPS:
            _warn_big_module(settings, gathered, module, ops)
    if config.libraries:
        for pattern in unmatched_patterns(modules, config.libraries if all_sources else {}):
            report(
                OpgenError(
                    f"[tool.opgen.libraries] pattern {pattern!r} matches no module",
                    config.where("libraries", pattern),
                    hint=_library_pattern_hint(pattern, list(modules), config),
                ).format_warning()
            )
        # a module no pattern gives a library (a new source file's, a misspelt pattern's) would
        # only run on TensorFlow once another module had loaded its ops' library
        for module in modules:
            if module_library(module, config.libraries, config.library) is None:
                report(
                    OpgenError(
                        f"module {module} loads no op library: no [tool.opgen.libraries] pattern matches it and "
                        "[tool.opgen] library is not set",
                        config.where("libraries"),
                        hint=f'map it to the library that registers its ops ("{module}" = '
                        f'"{_library_named_like(module, config.libraries)}"), or add a "*" pattern for every '
                        "other module",
                    ).format_warning()
                )
    return gathered


def _op_pattern_hint(pattern: str, gathered: GatherResult, config: Config) -> str:
    """How to fix a `[tool.opgen.modules]` glob that matches no op: the glob it may have meant
    (its text before the first wildcard misspelt: `Mpl*` for `Mlp*`), with the ops it would
    take back from the module they fall to now."""
    hint = "patterns are fnmatch globs on op names, case-sensitive ('Foo*')"
    head = re.split(r"[*?[]", pattern, maxsplit=1)[0]
    names = [op.name for op in gathered.op_list.op]
    close = difflib.get_close_matches(head, {name[: len(head)] for name in names}, n=1) if head else []
    if not close:
        return hint
    meant = close[0] + pattern[len(head):]
    taken = [name for name in names if glob_list((meant,)).first(name) is not None]
    if not taken:
        return hint
    now = module_of(taken[0], gathered.sources, config.modules)
    return (f"did you mean {meant!r}? it matches {first_names(taken, 3)}, "
            f"which go to {now} now; {hint}")


def _library_named_like(module: str, libraries: dict[str, str]) -> str:
    """The library a module's entry would likely name: `_<stem>.so` for `gen_<stem>` (the
    layout `opgen init` writes), in the folder all the other entries' libraries share."""
    folders = {library.rpartition("/")[0] for library in libraries.values() if ":" not in library}
    folder = next(iter(folders)) if len(folders) == 1 else ""
    return f"{folder + '/' if folder else ''}_{module.removeprefix('gen_')}.so"


def _warn_big_module(settings: Settings, gathered: GatherResult, module: str, ops: list[op_def_pb2.OpDef]) -> None:
    """A module of more than BIG_MODULE_OPS ops written as one file, where the user may not know
    that `max_ops_per_module` splits it: at its first op (else at [tool.opgen])."""
    source = gathered.sources.get(ops[0].name)
    report(
        OpgenError(
            f"module {module} has {len(ops):,} ops, written as one file: its first import compiles them all at once, "
            'about 0.6 s and 100 MB of memory per 1,000 ops (docs/rendering.md, "Big modules")',
            source.location if source is not None else settings.config.where(),
            hint="set [tool.opgen] max_ops_per_module (e.g. max_ops_per_module = 1000) to write it as a package of "
            f"parts, each compiled on its own; a value of {len(ops)} or more keeps one file and this warning away",
        ).format_warning()
    )


def _library_pattern_hint(pattern: str, modules: list[str], config: Config) -> str:
    """How to fix a `[tool.opgen.libraries]` glob that matches none of `modules`: the module
    it may have meant, with the library that module loads instead (a misspelt entry's module
    falls to another glob or the default, which fails only when its ops run)."""
    hint = f"patterns are fnmatch globs on module names; this build writes {', '.join(modules) or 'none'}"
    close = difflib.get_close_matches(pattern, modules, n=1)
    if not close:
        return hint
    library = module_library(close[0], config.libraries, config.library)
    loads = f"loads {library!r} instead" if library else "loads no op library"
    return f"did you mean {close[0]!r}? it {loads}, not {config.libraries[pattern]!r}; {hint}"


def _check_deletes(settings: Settings, out: Path, changes: Changes) -> None:
    """A build of sources named on the command line in a project that configures its own
    (`opgen build ops/a.cc`) may not delete the modules of the others: they replace [tool.opgen]
    sources, so those modules are not part of the build, yet they are no less wanted."""
    config = settings.config
    if not changes.delete or "sources" not in config.written or settings.input.reads_configured_sources(config):
        return
    deleted = ", ".join(_printed(out / rel) for rel in changes.delete)
    raise OpgenError(
        f"this build reads the sources named on the command line instead of [tool.opgen] sources, and would "
        f"delete what the others generate: {deleted}",
        config.where("sources"),
        hint=f"run `{opgen_command('build')}` without sources to build all of the project's; to build these sources "
             "alone, give them an output directory of their own (--out DIR)",
    )


def _compared(out: Path, outputs: dict[str, bytes], result: RenderResult, phases: _Phases) -> Changes:
    """What writing the build's `outputs` (`result`'s files, and more) and opgen's `.gitignore`
    into `out` changes (the digests `result` knows, and the files it knows to be stale, are
    not computed again)."""
    changes = compute_changes(out, {**outputs, **gitignore_output(out)}, result.hex_digests(), result.stale)
    phases.done(
        f"API snapshot and comparison: {len(changes.write)} to write, {len(changes.delete)} to delete, "
        f"{changes.unchanged} unchanged"
    )
    return changes


def run(settings: Settings) -> int:
    """The `opgen build` command (exit 0 ok, 1 stale with --check, 2 user error); `--list-outputs`
    and `--list-inputs` report no warnings (make runs them on every invocation; the build itself
    reports them)."""
    with counting_warnings() as reported:
        if settings.list_outputs or settings.list_inputs:
            with reports_silenced():
                return _run(settings, reported)
        return _run(settings, reported)


def _fail_on_warnings(settings: Settings, reported: ReportedWarnings, reviewing: bool) -> None:
    """`--warnings-as-errors`: the warnings the build reported so far, every one its input gives
    (sources, overrides, pyproject.toml, templates, formatter), stop it before it compares or
    writes anything, as an error in a source would (a CI job's `opgen build --check` fails on
    them too). What the write itself says later (a file of the tree edited by hand, kept) is
    about the output, said once, and never fails it as a warning would (`--check` fails on a kept
    file as on a stale one)."""
    if not settings.warnings_as_errors or not reported.warnings:
        return
    config = settings.config
    if config.warnings_as_errors and "warnings_as_errors" in config.written:
        given = f"[tool.opgen] warnings_as_errors = true at {printable_path(config.where('warnings_as_errors'))}"
        off = "pass --no-warnings-as-errors"
    else:
        given, off = "--warnings-as-errors", "run without --warnings-as-errors"
    raise OpgenError(
        f"{_count(reported.warnings, 'warning')} treated as errors ({given}): "
        f"{'nothing compared' if reviewing else 'nothing written'}",
        hint=f"fix what the warnings above say, or {off} to build anyway",
    )


def _run(settings: Settings, reported: ReportedWarnings) -> int:
    if settings.depfile_relative_to and not settings.depfile:
        raise click.UsageError("--depfile-relative-to needs --depfile")
    if settings.depfile_format != "make" and not settings.depfile:
        raise click.UsageError("--depfile-format needs --depfile")
    config = settings.config
    started = time.perf_counter()
    phases = _Phases(settings.verbose)
    opts = build_options(settings)
    api = snapshot_path(config)
    if api is not None and (not api.parts or is_internal(api)):
        raise OpgenError(
            f"[tool.opgen] api = {config.api!r} names a file opgen build keeps for itself",
            config.where("api"),
            hint=api_hint(config),
        )
    _check_out(settings, opts)
    reviewing = settings.check or settings.diff or settings.dry_run
    listing = settings.list_outputs or settings.list_inputs
    if not (listing or reviewing) and opts.out.is_dir():
        with build_lock(opts.out):
            message = recover(opts.out)
        if message:
            report(message)
    elif reviewing and opts.out.is_dir() and interrupted(opts.out):  # compared as the tree is now
        report(f"opgen: a killed build of {printable_path(opts.out)} is pending ({JOURNAL} or {STAGING}): the tree "
               "may mix two builds' files until the next `opgen build` completes or discards it")
    gathered = _gather(settings)
    _warn_out_not_a_package(settings, opts)
    phases.done(f"gathered {_count(len(gathered.op_list.op), 'op')}")
    overrides_dir = Path(settings.overrides) if settings.overrides else None
    if overrides_dir is not None:
        # Sources named on the command line may be a few of the project's: the project's
        # entries of the others' ops are then no mistake (as its [tool.opgen.modules] patterns).
        api_model = load_overrides(overrides_dir, gathered.op_list, merge=config.merge_overrides,
                                   known_ops_only=not settings.input.reads_configured_sources(config))
    else:
        api_model = ApiModel({})  # every op's default ApiDef, built on demand by ApiModel.get
    phases.done(f"overrides: {printable_path(overrides_dir) if overrides_dir is not None else 'none'}")

    depfile = _depfile(settings, opts, gathered, overrides_dir) if settings.depfile else None
    # A build that writes the depfile anew (a fresh clone's first) dates every target now, even
    # one it left unchanged: the build tool knew none of the inputs before it (ninja, restat
    # rule, records such a target's time as 0 and would run it again), and nothing was built
    # from the targets yet.
    first_depfile = depfile is not None and not os.path.lexists(settings.depfile or "")

    if listing:
        if settings.list_outputs:
            groups = group_ops(gathered.op_list, gathered.sources, opts.modules, opts.config_location)
            for name in output_paths(groups, config, opts):
                print(_printed(opts.out / name))
        if settings.list_inputs:
            for shown in sorted({_shown(p) for p in _depfile_inputs(gathered, opts, overrides_dir)}):
                print(printable_path(shown))
        return 0

    render_model = api_model
    if config.docstring_kernels:
        from opgen.render.kernel_docs import with_kernel_docs

        if not gathered.kernels:
            _warn_no_kernels(settings, opts, gathered)
        render_model = with_kernel_docs(api_model, gathered)
    result = render_tree(
        gathered, render_model, opts, progress=_progress_bar(started, settings.quiet), write_cache=not settings.dry_run
    )
    if sys.stderr.isatty() and not settings.quiet:
        sys.stderr.write("\r\x1b[K")
    # once the modules render (a build in error writes none: their shapes do not matter then)
    for warning in op_list_shape_warnings(gathered.op_list, gathered.sources):
        report(warning)
    missing = unavailable(opts.formatter)
    if missing is not None:  # this build needed no formatter (else it stopped with this error)
        missing.message += ": this build needed none, but one that must format a chunk stops there"
        missing.location = config.where("formatter") if "formatter" in config.written else None
        report(missing.format_warning())
    # the package's own imports of what the build removed
    for broken in missing_imports(opts.out, result.files, result.files.__getitem__):
        report(broken.format_warning())
    phases.done(f"rendered {_count(result.modules, 'module')}: {result.rendered} of {_count(result.ops, 'op')} "
                f"rendered (the others from the cache), {_count(result.formatted, 'chunk')} formatted")
    api_snapshot = snapshot_outputs(config, gathered, api_model, opts.out)
    for rel in api_snapshot:
        if rel.casefold() in {f.casefold() for f in result.files}:
            raise OpgenError(
                f"[tool.opgen] api = {config.api!r} names a file the build generates ({rel})",
                config.where("api"),
                hint=f"give the API snapshot its own name, e.g. api = {config.out.rstrip('/') + '/API.md'!r}",
            )
    _fail_on_warnings(settings, reported, reviewing)
    outputs = {**result.files, **api_snapshot}
    if reviewing:
        changes = _compared(opts.out, outputs, result, phases)
        _check_deletes(settings, opts.out, changes)
        if settings.check or settings.diff:
            return _report_stale(settings, opts, changes)
        for rel in [*changes.write, *changes.delete]:
            print(f"{_would(rel, changes, opts.out)} {_printed(opts.out / rel)}")
        _report_kept(opts.out, changes, reviewing=True)
        return 0
    with build_lock(opts.out):  # compared under the lock: no other build commits in between
        changes = _compared(opts.out, outputs, result, phases)
        _check_deletes(settings, opts.out, changes)
        if depfile is not None and settings.depfile:
            write_output(Path(settings.depfile), depfile[0])
        commit(opts.out, changes)
        if first_depfile and depfile is not None:
            for rel in depfile[1]:
                with contextlib.suppress(FileNotFoundError):
                    os.utime(opts.out / rel)
    phases.done(f"wrote {printable_path(opts.out)}")
    trim_cache()  # a build that wrote its cache (`--check`, `--diff` and `--dry-run` returned above)
    _report_kept(opts.out, changes)
    elapsed = time.perf_counter() - started
    # the chunks opgen did not lay out itself, when there are any (a user's templates, long names)
    formatted = f"; {_count(result.formatted, 'chunk')} laid out by the formatter" if result.formatted else ""
    _summary(
        settings,
        f"opgen build: {_count(result.modules, 'module')}, {_count(result.ops, 'op')} -> "
        f"{printable_path(opts.out)}: "
        f"{len(changes.write)} written, {len(changes.delete)} deleted, {changes.unchanged} unchanged "
        f"({elapsed:.2f}s{formatted})",
    )
    return 0
