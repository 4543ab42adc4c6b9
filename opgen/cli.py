"""The `opgen` command line (click): the options of each command, its settings built once from
them and `[tool.opgen]`, and the one error boundary (`main`). The commands themselves are
`opgen/commands/<command>.py`, each `run(settings) -> int`.

Every user mistake surfaces as an OpgenError, printed as `path:line:col: error: ...` with
exit status 2; nothing is written when a command fails.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import importlib
import os
import shlex
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import click
from click.core import ParameterSource
from click.shell_completion import CompletionItem

from opgen import __version__
from opgen.config import (
    FORMATTERS,
    MAX_JOBS,
    PATH_KEYS,
    Config,
    check_default_sources,
    check_library,
    check_paths,
    load_config,
)
from opgen.errors import InterruptedAfterCommit, Location, OpgenError, given_directory, opgen_command, printable_path
from opgen.errors import report as _report
from opgen.fsutil import flush_stdout
from opgen.settings import Settings, SpecInput, option_defaults

_CONFIG = "opgen.config"  # where a command's context keeps its Config (click's Context.meta)
# What click.option and click.argument return: adds a parameter to the command's callback.
_Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


@dataclass(frozen=True)
class Invocation:
    """A parsed command line: the command's `run` and the settings it runs with."""

    command: str  # as typed: "build", "overrides check"
    run: Callable[[Any], int]
    settings: Settings


# ---------------------------------------------------------------------------- click commands
#
# Each command's callback only builds its settings (`_settings_callback`); `main` runs the
# command inside the error boundary, so click never sees a command's errors.

class _ProjectConfig(click.Parameter):
    """Not on the command line: before the command's options are resolved (after --help,
    which needs no project), loads `[tool.opgen]` and makes it the command's `default_map`
    (`opgen.settings.option_defaults`), as black reads pyproject.toml through an eager option,
    so an option given on the command line wins and one not given takes the key's value."""

    param_type_name = "project configuration"

    def __init__(self) -> None:
        super().__init__(["project_config"], expose_value=False, is_eager=True, callback=self._load)

    def _parse_decls(self, decls: Sequence[str], expose_value: bool) -> tuple[str, list[str], list[str]]:
        return decls[0], [], []

    def add_to_parser(self, parser: object, ctx: click.Context) -> None:  # parser: unused (click's is private)
        pass

    @staticmethod
    def _load(ctx: click.Context, param: click.Parameter, value: object) -> None:
        if ctx.resilient_parsing:  # shell completion reads no project
            return
        config = load_config()
        ctx.meta[_CONFIG] = config
        ctx.default_map = option_defaults(config)


class _Source(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.4 on; opgen supports 8.2
    """A source as given, or as `Config.source_paths` gives it (a `LiteralPath` stays one)."""

    name = "source"

    def convert(self, value: str, param: click.Parameter | None, ctx: click.Context | None) -> str:
        return value


def _checked_library(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """`--library` is written into the modules: the check `[tool.opgen] library` gets, located
    at the option."""
    if value is not None and ctx.get_parameter_source("library") is ParameterSource.COMMANDLINE:
        check_library(value, Location("--library"), "--library")
    return value


def _checked_output_file(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """`-o FILE`, `--depfile FILE`: a file of a directory that exists, checked before the command
    reads or writes anything. As `gcc -MF`, opgen creates no directory for it: a misspelt
    `buidl/opgen.d` would leave a stray tree."""
    if value:
        folder = os.path.dirname(value)
        if folder and not os.path.isdir(folder):
            option = param.opts[0]
            shown = printable_path(folder)
            if os.path.lexists(folder):
                message, fix = "which is not a directory", "fix the path"
            else:
                message = "which does not exist"
                fix = f"create the directory first (mkdir -p {printable_path(shlex.quote(folder))}), or fix the path"
            raise OpgenError(f"{option} names a file in {shown}, {message}", Location(value),
                             hint=f"{fix}: opgen creates no directory for {option}")
    return value


class _Directory(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.4 on; opgen supports 8.2
    """A directory to run in (`-C`), checked by `_enter_directory` once every `-C` is known:
    a later relative one is relative to the one before it."""

    name = "directory"

    def convert(self, value: str, param: click.Parameter | None, ctx: click.Context | None) -> str:
        return value

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        return [CompletionItem(incomplete, type="dir")]  # the shell completes directory names


def _enter_directory(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> None:
    """`-C DIR`: make DIR the working directory before the command's options are read, as
    `git -C` and `make -C` do, so everything after it (pyproject.toml's discovery, relative
    paths given or configured, the paths messages print) is as if opgen had started there.
    `-C a -C b` is `a/b` and an absolute DIR starts afresh (os.path.join); `-C ""` changes
    nothing, as in git. `main` returns to the first working directory when the command ends."""
    if not value or ctx.resilient_parsing:  # shell completion runs nothing
        return
    directory = os.path.join(*value)
    if not directory:
        return
    if not os.path.lexists(directory):
        message = "-C names a directory that does not exist"
        hint = "fix the path: a relative -C DIR is relative to the working directory (or to the -C before it)"
    elif not os.path.isdir(directory):
        message = "-C names a file, not a directory"
        parent = os.path.dirname(directory)
        hint = (f"give the directory to run in, such as the file's: opgen -C {printable_path(shlex.quote(parent))} "
                "COMMAND" if parent else "give the directory to run in: opgen -C DIR COMMAND")
    else:
        try:
            os.chdir(directory)
            given_directory(directory)  # (the hints naming a command to run carry it: `opgen_command`)
            return
        except OSError as e:
            message = f"-C cannot enter this directory: {e.strerror or e}"
            hint = f"check its permissions (ls -ld {printable_path(shlex.quote(directory))})"
    raise OpgenError(message, Location(directory), hint=hint)


_CONTEXT = {"help_option_names": ["-h", "--help"]}
_SOURCES = ("SOURCES are C++ files, directories, globs or OpList files (.pbtxt, .pb, .json); "
            "default: [tool.opgen] sources (op_specs when the project sets none).")


class _Option(click.Option):
    """An option listed under a section heading of its command's --help."""

    def __init__(self, *decls: Any, section: str = "General", **kwargs: Any) -> None:  # decls: click's, passed on
        super().__init__(*decls, **kwargs)
        self.section = section


class _SectionedCommand(click.Command):
    """--help lists the options by section (Input, Output, ...), in the order they appear."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx) if isinstance(param, click.Option) else None  # arguments: in the text
            if record is not None:
                sections.setdefault(getattr(param, "section", "General"), []).append(record)
        for title, rows in sections.items():
            with formatter.section(f"{title} options"):
                formatter.write_dl(rows)


def _option(*decls: str, section: str, **kwargs: Any) -> _Decorator:
    return click.option(*decls, cls=_Option, section=section, **kwargs)


_VERBOSITY: list[_Decorator] = [
    _option("-q", "--quiet", is_flag=True, section="General",
            help="No summary or progress lines; warnings and errors still print."),
    _option("-v", "--verbose", is_flag=True, section="General",
            help="Also print each phase with its elapsed time, and the command's total time."),
]

_SPEC_INPUT: list[_Decorator] = [
    click.argument("sources", nargs=-1, type=_Source()),
    _option("--exclude", "exclude", multiple=True, metavar="GLOB", section="Input",
            help="Files (or directories) of directory and glob SOURCES not to read, such as a generated data "
                 "table; repeatable. [tool.opgen] exclude; default: none."),
    _option("-D", "defines", multiple=True, metavar="NAME[=V]", section="Input",
            help="Preprocessor define; repeatable. [tool.opgen] defines; default: none."),
    _option("-U", "undefines", multiple=True, metavar="NAME", section="Input",
            help="Leave a predefined macro (or a -D) undefined; repeatable. [tool.opgen] undefines; default: none."),
    _option("-I", "include_dirs", multiple=True, metavar="DIR", section="Input",
            help='Directory searched by #include "..."; repeatable. [tool.opgen] include_dirs; default: none.'),
    _option("--allow", metavar="FILE", section="Input",
            help="Selective registration: a file of op names to keep. [tool.opgen] allow; default: every op."),
    _option("--include-internal", is_flag=True, section="Input",
            help="Keep ops whose name starts with _. [tool.opgen] include_internal; default: false (dropped, as "
                 "TensorFlow's generator drops them)."),
    _option("--strict-includes", is_flag=True, section="Input",
            help='A #include "..." that cannot be found is an error. [tool.opgen] strict_includes; '
                 "default: false (a warning)."),
    _option("--strict-defines", is_flag=True, section="Input",
            help="Registrations an #if on an undefined project macro skips, or whose name or spec comes from "
                 "a #define such an #if chose, are an error. [tool.opgen] strict_defines; default: false (a note)."),
]


def _overrides_option(section: str) -> _Decorator:
    return _option("--overrides", metavar="DIR", section=section,
                   help="OpGenOverride/ApiDef override files. [tool.opgen] overrides; "
                        "default: overrides (when it exists).")


def _output_option(what: str) -> _Decorator:
    return _option("-o", "--output", metavar="FILE", section="Output", callback=_checked_output_file,
                   help=f"Write {what} here (its directory must exist); default: stdout.")


def _format_option(choices: list[str], default: str, what: str = "") -> _Decorator:
    return _option("--format", type=click.Choice(choices), default=default, show_default=False, section="Output",
                   help=f"Output format{what}; default: {default}.")


def _group_params(ctx: click.Context) -> list[dict[str, Any]]:
    """The options given before the command: to `opgen`, and to a group of commands
    (`opgen overrides -q check`)."""
    params = []
    parent = ctx.parent
    while parent is not None:
        params.append(parent.params)
        parent = parent.parent
    return params


def _settings_source(config: Config) -> str:
    """Where `config` came from, as -v names it: which pyproject.toml, or none."""
    pyproject = config.root / "pyproject.toml"
    if not pyproject.is_file():
        return "no pyproject.toml (none in the working directory or above it, up to its repository's root): defaults"
    table = "[tool.opgen]" if config.written else "no [tool.opgen] keys: defaults"
    return f"{printable_path(config.path(pyproject.name))} ({table})"  # (as other messages name paths)


def _settings_callback(name: str, module: str) -> Callable[..., Invocation]:
    """The click callback of command `name`: its options, resolved against `[tool.opgen]`, as
    the `Settings` of `opgen.commands.<module>` (imported when the command runs: a command
    line loads only its own command), with the shared --quiet/--verbose."""

    def callback(**options: Any) -> Invocation:
        ctx = click.get_current_context()
        groups = _group_params(ctx)
        quiet = options.pop("quiet") or any(g.get("quiet", False) for g in groups)
        verbose = options.pop("verbose") or any(g.get("verbose", False) for g in groups)
        if quiet and verbose:
            raise click.UsageError("--quiet and --verbose exclude each other", ctx)
        config = ctx.meta[_CONFIG]
        if verbose:
            _report(f"opgen: settings from {_settings_source(config)}")
        # The configured paths this command reads (it has the option) and no option replaces.
        check_paths(config, [key for key in PATH_KEYS
                             if key in options and ctx.get_parameter_source(key) is not ParameterSource.COMMANDLINE])
        # the default `op_specs` must exist when sources are read (`oplist --from-library`/`--from-tensorflow`: none)
        if ("sources" in options and not options.get("from_library") and not options.get("from_tensorflow")
                and ctx.get_parameter_source("sources") is not ParameterSource.COMMANDLINE):
            check_default_sources(config, f"pass the sources ({opgen_command(name)} ops/*.cc)")
        command = importlib.import_module(f"opgen.commands.{module}")
        if "input" in command.Settings.field_names():
            options = {key: value for key, value in options.items() if key not in SpecInput.OPTIONS} | {
                "input": SpecInput.from_options(options, config)}
        return Invocation(name, command.run, command.Settings(config=config, quiet=quiet, verbose=verbose, **options))

    return callback


def _define(group: click.Group, name: str, help_text: str, decorators: list[_Decorator], short_help: str) -> None:
    """Command `name` of `group`, run by `opgen.commands.<name>` (`overrides check`: overrides_check)."""
    module = f"{group.name}_{name}" if group is not cli else name
    callback = _settings_callback(f"{group.name} {name}" if group is not cli else name, module)
    for decorator in reversed([*decorators, *_VERBOSITY]):
        callback = decorator(callback)
    command = group.command(name, cls=_SectionedCommand, help=help_text, short_help=short_help)(callback)
    command.params.insert(0, _ProjectConfig())


class _OpgenGroup(click.Group):
    """The `opgen` group. Its main() runs the command line through `main`, the one error
    boundary, so the console script, `python -m opgen`, `main([...])` and click's CliRunner
    give the same output and exit status."""

    def main(  # type: ignore[override]  # click's overloads: NoReturn when standalone (sys.exit)
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> int:
        status = main(args)
        if standalone_mode:
            sys.exit(status)
        return status


@click.group(context_settings=_CONTEXT, cls=_OpgenGroup, epilog=(
    "Options default to [tool.opgen] in the nearest pyproject.toml. Exit status: 0 ok, 1 stale, breaking "
    "or reported (--check), 2 user error (located: path:line:col: error: ...). Shell completion: "
    'eval "$(_OPGEN_COMPLETE=bash_source opgen)" (zsh_source, fish_source likewise).'))
@click.version_option(__version__, "--version", prog_name="opgen", message="%(prog)s %(version)s")
@click.option("-C", "--directory", multiple=True, type=_Directory(), metavar="DIR", expose_value=False,
              callback=_enter_directory,
              help="Run as if opgen had been started in DIR (as git -C and make -C): pyproject.toml is looked for "
                   "there, and relative paths, given or printed, are relative to DIR. Repeatable: a relative DIR "
                   "is relative to the one before it (-C a -C b is a/b).")
@click.option("--debug", is_flag=True, help="Print the traceback of an internal error (accepted anywhere on the line).")
@_VERBOSITY[0]
@_VERBOSITY[1]
def cli(debug: bool, quiet: bool, verbose: bool) -> None:
    """Generate Python op-wrapper modules (gen_*_ops.py) from TensorFlow REGISTER_OP declarations,
    keep them up to date in a build, and review changes to their API.

    \b
    opgen build            write the modules, the source map and the API snapshot
    opgen build --check    exit 1 when the generated tree is stale (CI)
    opgen diff --git REV   classify API changes since a git revision
    """
    # --debug is listed here for --help; `main` reads it from the whole line before parsing.
    # --quiet/--verbose given here reach the command through `_settings_callback`.


_define(cli, "oplist", "Gather REGISTER_OP specs into an OpList (pbtxt, pb or json).\n\n" + _SOURCES, [
    *_SPEC_INPUT,
    _option("--from-library", metavar="SO", section="Input", multiple=True,
            help="Read a compiled op library's OpList through TensorFlow instead of SOURCES; repeatable "
                 "(their ops together). --allow and --include-internal select its ops."),
    _option("--from-tensorflow", is_flag=True, section="Input",
            help="Read the installed TensorFlow's registry (its OpDefs, without docs: TensorFlow keeps those in "
                 "ApiDef files) instead of SOURCES; --allow FILE takes a subset."),
    _overrides_option("Input"),
    _option("--api", is_flag=True, section="Output", help="Print the per-op Python API model after overrides."),
    _option("--report-shapes", is_flag=True, section="Output",
            help="Print how each op's shape function reaches opgen's runtime (translated from C++ or not, and why) "
            "and the share translated, instead of the OpList."),
    _format_option(["pbtxt", "pb", "json"], "pbtxt", " (with --api or --report-shapes: pbtxt prints text, json JSON)"),
    _output_option("the OpList"),
], "Gather REGISTER_OP specs into an OpList.")

_define(cli, "kernels", "Gather REGISTER_KERNEL_BUILDER registrations into a KernelList, and "
        "cross-check each kernel against the ops of the same sources (printed as warnings).\n\n" + _SOURCES, [
    *_SPEC_INPUT,
    _format_option(["pbtxt", "pb", "json", "md"], "pbtxt", " (md: per op, a table of devices x allowed types)"),
    _output_option("the KernelList"),
    _option("--check", is_flag=True, section="Output",
            help="Print only the cross-check's findings (the KernelList still goes to -o); exit 1 when it reports "
                 "a kernel."),
], "Gather REGISTER_KERNEL_BUILDER registrations into a KernelList.")

_define(
    cli,
    "specs",
    "Write REGISTER_OP C++ (with Doc) for the OpList file OPLIST (.pbtxt or .pb).",
    [
        click.argument("oplist"),
        _option(
            "-o",
            "--output",
            metavar="FILE.cc",
            section="Output",
            callback=_checked_output_file,
            help="Write the C++ here (its directory must exist); default: stdout.",
        ),
        _option(
            "--skip-inexpressible",
            is_flag=True,
            section="Output",
            help="Write a comment for OpDefs REGISTER_OP cannot express instead of failing.",
        ),
    ],
    "Write REGISTER_OP C++ for an OpList file.",
)

_define(
    cli,
    "build",
    "Render gen_*_ops.py modules, their source map and the API snapshot into the "
    "output directory (incremental and all-or-nothing). Kernels the cross-check of `opgen kernels` reports are "
    "warnings.\n\n" + _SOURCES,
    [
        *_SPEC_INPUT,
        _overrides_option("Rendering"),
        _option(
            "--templates",
            metavar="DIR",
            section="Rendering",
            help="Jinja templates replacing the shipped ones. [tool.opgen] templates; "
            "default: the templates shipped with opgen.",
        ),
        _option(
            "--formatter",
            type=click.Choice(FORMATTERS),
            section="Rendering",
            help="Formatter (same bytes either way). [tool.opgen] formatter; default: black.",
        ),
        _option(
            "-j",
            "--jobs",
            type=click.IntRange(min=0, max=MAX_JOBS),
            metavar="N",
            section="Rendering",
            help="Render/format worker processes (used from 256 ops), and readers of a text OpList "
            "(from 2 MB); [tool.opgen] jobs; "
            "default: 0, one per core.",
        ),
        _option(
            "--max-ops-per-module",
            type=click.IntRange(min=1),
            metavar="N",
            section="Rendering",
            help="Write a module of more than N ops as a package of parts of N ops each, whose __init__.py "
            "re-exports them (imports stay `from gen_x import f`): each file compiles with less memory and an "
            "edit recompiles one part, but importing the module still compiles (or loads) every part. "
            "[tool.opgen] max_ops_per_module; default: never split.",
        ),
        _option(
            "--library",
            metavar="PATH",
            section="Rendering",
            callback=_checked_library,
            help="Compiled op library that registers the modules' ops with TensorFlow (loaded at import, or when "
            "TensorFlow is imported): a path relative to the modules, or package:resource; modules that "
            "[tool.opgen.libraries] matches use theirs. [tool.opgen] library; default: none.",
        ),
        _option(
            "-o",
            "--out",
            metavar="DIR",
            section="Output",
            help="Output directory; the whole tree moves there, the API snapshot ([tool.opgen] api, a path "
            "inside out) to the same place inside it. [tool.opgen] out; default: generated.",
        ),
        _option(
            "--depfile",
            metavar="FILE",
            section="Output",
            callback=_checked_output_file,
            help="Also write a depfile (its directory must exist): every output, and every file the build read.",
        ),
        _option(
            "--depfile-format",
            type=click.Choice(["make", "ninja"]),
            default="make",
            section="Output",
            help="Whose depfile syntax to write: GNU make's (also for CMake) or ninja's; a file name the tool "
            "cannot read back exactly is an error. Default: make.",
        ),
        _option(
            "--depfile-relative-to",
            type=click.Path(exists=True, file_okay=False),
            metavar="DIR",
            section="Output",
            help="Write the depfile's paths relative to DIR (absolute when not below it), e.g. CMake's "
            "CMAKE_CURRENT_BINARY_DIR; default: the working directory (as make and ninja read them).",
        ),
        _option("--list-outputs", is_flag=True, section="Output", help="Print every file the build writes, and exit."),
        _option(
            "--list-inputs",
            is_flag=True,
            section="Output",
            help="Print every file the build reads, as --depfile lists them (sources and the headers they include, "
            "the directories searched, overrides, templates, pyproject.toml, the formatter's METADATA), and exit; "
            "with --list-outputs, after the outputs (what a source distribution must hold).",
        ),
        _option(
            "--check",
            is_flag=True,
            section="Review (write nothing)",
            help="List each stale file; exit 1 when anything is stale.",
        ),
        _option(
            "--diff",
            is_flag=True,
            section="Review (write nothing)",
            help="Print a unified diff, paths relative to the project root (for git apply); "
            "with --check also exit 1 when anything is stale.",
        ),
        _option("--dry-run", is_flag=True, section="Review (write nothing)", help="Say what would change."),
        _option(
            "--warnings-as-errors/--no-warnings-as-errors",
            section="General",
            help="Fail on any warning the build reports (notes do not count): exit 2 and write nothing, also with "
            "--check, --diff and --dry-run, which then compare nothing. [tool.opgen] warnings_as_errors; "
            "default: false.",
        ),
    ],
    "Render gen_*_ops.py modules.",
)


_define(
    cli,
    "init",
    "Scaffold a custom-op package in DIRECTORY (created if needed; no file is "
    "overwritten): pyproject.toml with [tool.opgen], an op with its CPU kernel in ops/<package>.cc, the "
    "package's __init__.py registering its gradient, and a setup.py that compiles the op library into the "
    "wheel with g++ and TensorFlow's flags (opgen.setup_helpers). Then: opgen build, and "
    "pip wheel --no-build-isolation .",
    [
        click.argument("directory"),
        _option(
            "--package",
            metavar="NAME",
            section="Output",
            help="The Python package (a lower-case identifier); also names the distribution (_ as -), the op "
            "source and the library. Default: DIRECTORY's name, - as _.",
        ),
    ],
    "Scaffold a custom-op package that builds a wheel.",
)


@cli.group("overrides", context_settings=_CONTEXT)
@_VERBOSITY[0]
@_VERBOSITY[1]
def overrides_group(quiet: bool, verbose: bool) -> None:
    """Override files (OpGenOverride, ApiDef)."""
    # --quiet/--verbose given here reach the command through `_settings_callback`.


_define(
    overrides_group,
    "check",
    "Validate the override files against the OpList of SOURCES.\n\n" + _SOURCES,
    [*_SPEC_INPUT, _overrides_option("Input")],
    "Validate override files against the OpList.",
)

_define(
    cli,
    "api",
    "Print the API snapshot of the generated modules: per module each function's "
    "signature, outputs and graph op (opgen build writes it to [tool.opgen] api).\n\n" + _SOURCES,
    [
        *_SPEC_INPUT,
        _overrides_option("Input"),
        _format_option(["md", "json"], "md"),
        _output_option("the snapshot"),
    ],
    "Print the API snapshot of the generated modules.",
)

_define(
    cli,
    "diff",
    "Compare two APIs and classify each change (graph or Python API; breaking or "
    "not); exit 1 on a breaking change.\n\nOLD and NEW are spec trees, projects, OpList files "
    "(.pbtxt/.pb/.json) or API snapshots (API.md, .json); NEW defaults to the work tree. With --git REV, "
    "OLD is read from that git revision; with --git A..B both sides are. A side that is a project is read with "
    "its own pyproject.toml ([tool.opgen] sources, defines, include_dirs, exclude, overrides, modules), as its "
    "`opgen build` reads it.",
    [
        click.argument("old", required=False),
        click.argument("new", required=False),
        _option(
            "--git",
            metavar="REV",
            section="Input",
            help="Read OLD from this git revision (the work tree is untouched); A..B compares the project at "
            "A with it at B, A...B at the merge base of A and B with B.",
        ),
        _format_option(["text", "md", "json", "github"], "text", " (md for PR comments, github for annotations)"),
        _option("--allow-breaking", is_flag=True, section="Output", help="Exit 0 even on breaking changes."),
    ],
    "Compare two APIs and classify the changes.",
)


def os_error(e: OSError) -> OpgenError:
    """An OS error no layer located (a write to `-o`, `--depfile`, stdout, ...): the file it
    concerns and the system's reason."""
    where = e.filename if isinstance(e.filename, (str, bytes)) else None
    if isinstance(where, bytes):
        where = where.decode("utf-8", "backslashreplace")
    if where and e.errno == errno.EISDIR:
        return OpgenError(
            "a directory where a file is expected",
            Location(where),
            hint="-o and --depfile name the file to write: give a file's path (e.g. one inside this directory)",
        )
    reason = e.strerror or str(e)
    return OpgenError(
        f"cannot access file: {reason}" if where else f"I/O error: {reason}", Location(where) if where else None
    )


def _parse(argv: list[str]) -> Invocation | int:
    """The command line as the command to run, or the exit status of --help/--version (printed)."""
    result = click.Group.main(cli, args=argv, prog_name="opgen", standalone_mode=False)  # also shell completion
    return result if isinstance(result, Invocation) else int(result or 0)


def _closest(typed: str, options: Sequence[str]) -> list[str]:
    """click's guesses for a misspelt option (difflib's close matches), less those clearly
    farther than the best: `--chek` gets `--check`, not `--help` as well."""
    ratios = {option: difflib.SequenceMatcher(None, typed, option).ratio() for option in options}
    best = max(ratios.values())
    return [option for option in options if ratios[option] >= best - 0.1]


def _usage_error(e: click.UsageError) -> str:
    """click's usage error as one located-style message, with the usage line and a hint."""
    ctx = e.ctx
    if ctx is None:
        return f"opgen: error: {e.format_message()}"
    if isinstance(e, click.exceptions.NoArgsIsHelpError):
        return ctx.get_help()
    hint, message = "", e.format_message()
    if isinstance(e, click.NoSuchOption) and isinstance(cli, click.Group):
        # `opgen build --report-shapes`: the option of another command (click's guesses among
        # this command's options are then beside the point)
        owners = [name for name, command in sorted(cli.commands.items()) if command is not ctx.command
                  and any(e.option_name in p.opts or e.option_name in p.secondary_opts for p in command.params)]
        # `opgen build -C DIR`: an option of opgen itself, as in git (--version and --help, eager, stand alone)
        own = next((p for p in cli.params if e.option_name in p.opts and not p.is_eager), None)
        if isinstance(own, click.Option) and own.metavar:
            message = click.NoSuchOption(e.option_name, ctx=ctx).format_message()
            hint = (f"\n  hint: {e.option_name} is an option of 'opgen' itself: give it before the command "
                    f"('opgen {e.option_name} {own.metavar} {ctx.command_path.removeprefix('opgen ')} ...')")
        elif owners:
            message = click.NoSuchOption(e.option_name, ctx=ctx).format_message()
            hint = f"\n  hint: {e.option_name} is an option of " + " and ".join(f"'opgen {o}'" for o in owners)
        elif e.possibilities:
            guesses = _closest(e.option_name, e.possibilities)
            message = click.NoSuchOption(e.option_name, possibilities=guesses, ctx=ctx).format_message()
    return (f"{ctx.get_usage()}\nopgen: error: {message}{hint}\n"
            f"Try '{ctx.command_path} --help' for help.")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. The only error boundary: user and I/O errors print located and exit 2
    (click's usage errors too), a bug prints one line (its traceback only with --debug) and
    exits 1."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # accepted anywhere on the line
    if sys.stdout is None:  # started with file descriptor 1 closed
        sys.stdout = _ClosedStdout()
    started = time.perf_counter()
    with _termination_as_interrupt(), _working_directory_kept():
        return _main(argv, debug, started)


@contextlib.contextmanager
def _working_directory_kept() -> Iterator[None]:
    """The working directory as it was before `-C` changed it, once the command ends: a caller
    running `main` in-process (tests, click's CliRunner) goes on where it was, and its next
    command's hints name no `-C` it was not given (`given_directory`)."""
    try:
        before: str | None = os.getcwd()
    except OSError:  # removed while opgen runs in it: nowhere to return to
        before = None
    try:
        yield
    finally:
        given_directory("")
        if before is not None:
            with contextlib.suppress(OSError):  # (removed by the command meanwhile)
                os.chdir(before)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (a CI job cancelled, `kill`, ninja or make passing a TERM on), raised
    like Ctrl-C's KeyboardInterrupt so the output tree is left as Ctrl-C leaves it (the old
    tree, or the new one once committed: tree_writer), not as a SIGKILL would."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _termination_as_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise `Terminated` while a command runs (main thread only: a caller
    running `main` in a thread keeps its own handling), the previous handlers restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum: int, _frame: object) -> None:
        raise Terminated(signum)

    previous = {signum: signal.signal(signum, raise_terminated) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _main(argv: list[str], debug: bool, started: float) -> int:
    try:
        invocation = _parse([a for a in argv if a != "--debug"])
        if isinstance(invocation, int):
            return invocation
        status = invocation.run(invocation.settings)
        flush_stdout()
        if invocation.settings.verbose:
            _report(f"opgen {invocation.command}: exit {status} after {time.perf_counter() - started:.2f}s")
        return status
    except click.UsageError as e:  # an unknown option, a bad choice, a missing argument, ...
        _report(_usage_error(e))
        return 2
    except OpgenError as e:
        _report(e.report())
        return e.exit_code
    except (KeyboardInterrupt, click.Abort) as e:
        # (after the commit point the build completes first, then ends with the interrupt)
        interrupt, done = ((e.interrupt, " after the build completed") if isinstance(e, InterruptedAfterCommit)
                           else (e, ""))
        if isinstance(interrupt, Terminated):
            _report(f"opgen: terminated ({signal.Signals(interrupt.signum).name}){done}")
            return 128 + interrupt.signum
        _report(f"opgen: interrupted{done}")
        return 130
    except OSError as e:  # stdout closed (EPIPE), disk full on -o, -o naming a directory, ...
        if isinstance(e, BrokenPipeError) or e.errno == errno.EPIPE:
            _silence_stdout()
            _report("opgen: error: standard output was closed before everything was written")
        else:
            _report(os_error(e).format())
        return 2
    except Exception as e:  # noqa: BLE001 - the boundary: a bug must not dump a traceback on users
        if debug:
            traceback.print_exc()
        _report(f"opgen: internal error, please report ({e!r}); rerun with --debug for the traceback")
        return 1


class _ClosedStdout:
    """Stands in for a closed standard output: writing fails like an OS write would."""

    def write(self, data: str | bytes) -> int:
        raise OSError(errno.EBADF, "standard output is closed", "<stdout>")

    def flush(self) -> None:
        pass

    @property
    def buffer(self) -> _ClosedStdout:
        return self


def _silence_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so the interpreter's final flush stays quiet."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
