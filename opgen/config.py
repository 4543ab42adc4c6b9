"""`[tool.opgen]` settings from the nearest pyproject.toml, checked and located; the options
that override them, and how, are `opgen.settings`."""

from __future__ import annotations

import difflib
import glob
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from opgen.errors import Location, OpgenError, OpgenErrors, did_you_mean, opgen_command, printable_path
from opgen.fsutil import LiteralPath, glob_paths
from opgen.limits import read_text_file
from opgen.toml_positions import key_positions

_GLOB_CHARS = set("*?[")
_CPP_NAME = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*", re.ASCII)
FORMATTERS = ("black", "ruff")  # what `--formatter` and `[tool.opgen] formatter` choose from
_KNOWN_KEYS = {
    "sources",  # list of C++ files/dirs/globs or OpList files
    "exclude",  # list of globs: files of directory and glob sources not to read
    "overrides",  # directory of OpGenOverride / ApiDef files
    "templates",  # Jinja template directory (default: the templates shipped with opgen)
    "out",  # output directory of generated modules
    "modules",  # table: op-name glob -> module name
    "helpers",  # table: C++ helper function name -> the string it returns
    "defines",  # list of NAME or NAME=VALUE, like -D
    "undefines",  # list of NAME, like -U: predefined macros (or defines) to leave undefined
    "strict_defines",  # registrations an #if on an undefined project macro skips (or chose a #define of) are an error
    "core_ops",  # list of globs: TF core op names to generate wrappers for anyway
    "kernels_elsewhere",  # list of globs: ops whose kernels another library registers (no kernel finding)
    "include_dirs",  # list of directories, like -I
    "external_includes",  # list of globs of #include targets of other libraries: skipped unfound without a warning
    "allow",  # file of allowed op names (selective registration)
    "jobs",  # parallel formatter workers
    "max_ops_per_module",  # split a module with more ops into a package of parts (default: never)
    "formatter",  # "black" or "ruff"
    "merge_overrides",  # allow several override files to touch one op
    "api",  # path of the committed API snapshot
    "library",  # compiled op library the modules load for TensorFlow (path from the module, or pkg:resource)
    "libraries",  # table: module-name glob -> its op library (else `library`)
    "strict_includes",  # a #include "..." that cannot be found is an error, not a warning
    "include_internal",  # keep ops whose name starts with `_` (like --include-internal)
    "docstring_kernels",  # docstrings say which devices and types the op's kernels run on
    "warnings_as_errors",  # opgen build fails on any warning it reports (CI)
}


DEFAULT_SOURCES = ("op_specs",)  # what a project without [tool.opgen] sources reads (this repository's layout)


@dataclass(frozen=True)
class Config:
    root: Path  # directory holding pyproject.toml (or cwd when there is none)
    sources: tuple[str, ...] = DEFAULT_SOURCES
    exclude: tuple[str, ...] = ()
    overrides: str | None = "overrides"
    templates: str | None = None
    out: str = "generated"
    modules: dict[str, str] = field(default_factory=dict)
    helpers: dict[str, str] = field(default_factory=dict)
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    strict_defines: bool = False
    core_ops: tuple[str, ...] = ()
    kernels_elsewhere: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    external_includes: tuple[str, ...] = ()
    allow: str | None = None
    # Rendering/formatting worker processes (0 = one per core, the default): on the 2-core
    # development machine a cold build of TF's registry took 2.47 s with 1 and 1.50 s with 2
    # (bench/build_bench.py --jobs N, 2026-11-26); fewer than 256 ops render in-process anyway.
    jobs: int = 0
    max_ops_per_module: int | None = None
    formatter: str = "black"
    merge_overrides: bool = False
    api: str | None = None
    library: str | None = None
    libraries: dict[str, str] = field(default_factory=dict)
    strict_includes: bool = False
    include_internal: bool = False
    docstring_kernels: bool = False
    warnings_as_errors: bool = False
    # Where each [tool.opgen] key (and array element) stands in pyproject.toml, by its path
    # below [tool.opgen] (`("sources", 1)`, `("modules", "Nope*")`); empty without a file.
    positions: Mapping[tuple[str | int, ...], tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)
    written: frozenset[str] = frozenset()  # the keys pyproject.toml sets (the others are defaults)

    def path(self, value: str) -> Path:
        """A configured path, resolved against the pyproject.toml directory (relative to the
        working directory when below it, so messages name it as the command line would)."""
        p = Path(value)
        return p if p.is_absolute() else _below_cwd(self.root / p)

    def source_paths(self) -> list[str]:
        """`sources` as `gather.expand_sources` takes them: a plain entry as a `LiteralPath`;
        a glob entry with the project directory escaped, so only the entry's own `*?[` glob
        (a project in `proj[1]` must not read a sibling `proj1`)."""
        return [self.source_pattern(entry) if _GLOB_CHARS & set(entry) else LiteralPath(self.path(entry))
                for entry in self.sources]

    def exclude_patterns(self) -> list[str]:
        """`exclude` as `gather.expand_sources` takes it: each entry a glob (`source_pattern`)."""
        return [self.source_pattern(entry) for entry in self.exclude]

    def source_pattern(self, entry: str) -> str:
        """The glob of a `sources` entry, below the escaped project directory when relative."""
        if Path(entry).is_absolute():
            return entry
        root = _below_cwd(self.root)
        return entry if root == Path() else os.path.join(glob.escape(str(root)), entry)

    def where(self, *key: str | int) -> Location:
        """pyproject.toml at `key` (below [tool.opgen]), or at its nearest written ancestor."""
        return _located(self.root / "pyproject.toml", self.positions, key)


def _below_cwd(path: Path) -> Path:
    """Absolute `path` relative to the working directory when below it (`Path()` for the
    directory itself), else as it is."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


# The most worker processes `jobs` may ask for (each is a fork of the build).
MAX_JOBS = 1024

# What TOML calls a value of each type tomllib gives, for messages.
_TOML_KINDS = {bool: "a boolean", int: "an integer", float: "a float", dict: "a table", list: "an array"}


def _located(
    pyproject: Path, positions: Mapping[tuple[str | int, ...], tuple[int, int]], key: tuple[str | int, ...]
) -> Location:
    shown = str(_below_cwd(pyproject))
    for end in range(len(key), -1, -1):
        found = positions.get(tuple(key[:end]))
        if found:
            return Location(shown, *found)
    return Location(shown)


# What marks the root of a repository: the search for pyproject.toml stops there.
_REPOSITORY_MARKERS = (".git", ".hg")


def find_pyproject(start: Path) -> Path | None:
    """The project's pyproject.toml: in `start` or the nearest directory above it, up to the
    root of the repository holding `start` (a directory with `.git` or `.hg`, where black
    stops looking too). A repository inside another project's tree (a clone, a submodule, a
    vendored project) never takes that project's settings: a `--check` in it would check the
    other project's output and pass."""
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
        if any((directory / marker).exists() for marker in _REPOSITORY_MARKERS):
            return None
    return None


def _below_table_hint(table: str) -> str:
    """The fix of a [tool.opgen] key written below `[tool.opgen.<table>]`, where TOML puts it."""
    return f"a table's keys end at the next [header]: move it above [tool.opgen.{table}]"


def load_config(start: Path | None = None) -> Config:
    start = (start or Path.cwd()).resolve()
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Config(root=start)
    try:
        text = read_text_file(pyproject)
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # tomllib puts the position in the message: "... (at line 3, column 9)".
        m = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(e), re.S)
        message, line, col = (m.group(1), int(m.group(2)), int(m.group(3))) if m else (str(e), 0, 0)
        hint = None
        if message.endswith(" (at end of document)"):  # at the last character (trial37 #9: not past it)
            message = message.removesuffix(" (at end of document)") + " where the file ends"
            body = text.rstrip("\n") or text
            line, col = body.count("\n") + 1, len(body) - body.rfind("\n") - 1
            hint = "an array, inline table or string there is not closed, or a value is missing: finish it"
        at = Location(str(_below_cwd(pyproject)), line, max(col, 1))
        raise OpgenError(f"cannot parse pyproject.toml: {message}", at, hint=hint) from None
    except RecursionError:
        raise OpgenError("cannot parse pyproject.toml: arrays or tables nested too deeply",
                         Location(str(_below_cwd(pyproject)))) from None
    every_position = key_positions(text)
    positions = {key[2:]: at for key, at in every_position.items() if key[:2] == ("tool", "opgen")}

    def where(*key: str | int) -> Location:
        return _located(pyproject, positions, key)

    tool = data.get("tool", {})
    if not isinstance(tool, dict):  # `tool = 1` would otherwise hide any [tool.opgen] silently
        raise OpgenError("[tool] must be a table (of tool settings, such as [tool.opgen])",
                         _located(pyproject, every_position, ("tool",)),
                         hint="write [tool.opgen] followed by key = value lines")
    table = tool.get("opgen", {})
    if not isinstance(table, dict):
        raise OpgenError("[tool.opgen] must be a table", where(),
                         hint="write [tool.opgen] followed by key = value lines")
    errors: list[OpgenError] = []
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        first = min(unknown, key=where)  # (every key's location is in pyproject.toml: by line, then column)
        close = did_you_mean(first, _KNOWN_KEYS, "'")
        errors.append(OpgenError(
            f"unknown [tool.opgen] key(s): {', '.join(unknown)}",
            where(first),
            hint=f"{close + ' ' if close else ''}known keys: {', '.join(sorted(_KNOWN_KEYS))}",
        ))
    kwargs: dict[str, object] = {}
    for key, value in table.items():
        if key in _KNOWN_KEYS:
            try:
                kwargs[key] = _checked_value(key, value, where)
            except OpgenErrors as e:  # every key's mistakes in one run
                errors += e.errors
            except OpgenError as e:
                errors.append(e)
    _raise_in_file_order(errors)
    return Config(root=pyproject.parent, positions=positions, written=frozenset(table), **kwargs)  # type: ignore[arg-type]


def _raise_in_file_order(errors: list[OpgenError]) -> None:
    """Raise the mistakes found in pyproject.toml (if any) in the order of its lines."""
    errors.sort(key=lambda e: (e.location.line, e.location.col) if e.location else (0, 0))
    if errors:
        raise errors[0] if len(errors) == 1 else OpgenErrors(errors)


def _checked_value(key: str, value: object, where: Callable[..., Location]) -> object:
    """The value of [tool.opgen] `key` as `Config` holds it, or its errors located by `where`:
    every bad entry of a list or table, not just the first (OpgenErrors when several)."""
    problems: list[OpgenError] = []
    strings = value if isinstance(value, list) else [value]
    for i, text in enumerate(strings):
        if isinstance(text, str) and "\0" in text:  # no path, name or define holds one
            problems.append(OpgenError(f"[tool.opgen] {key} holds a NUL character (\\u0000)",
                                       where(key, *([i] if isinstance(value, list) else [])), hint="remove it"))
    _raise_in_file_order(problems)
    if key in ("sources", "exclude", "defines", "include_dirs", "external_includes", "undefines",
               "core_ops", "kernels_elsewhere"):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise OpgenError(f"[tool.opgen] {key} must be a list of strings", where(key))
        problems += [OpgenError(f"[tool.opgen] {key} must be a list of strings: entry {i + 1} is "
                                f"{_TOML_KINDS.get(type(v), 'not a string')}", where(key, i))
                     for i, v in enumerate(value) if not isinstance(v, str)]
        for i, entry in enumerate(value):
            if not isinstance(entry, str):
                continue
            try:
                if key == "defines":
                    _check_define(entry, where(key, i))
                elif key == "undefines" and not entry.isidentifier():
                    raise OpgenError(f"[tool.opgen] undefines entry {entry!r}: macro names must be identifiers",
                                     where(key, i), hint='write "NAME"')
            except OpgenError as e:
                problems.append(e)
        value = tuple(value)
    elif key in _TABLE_KEYS:
        if not isinstance(value, dict):
            raise OpgenError(f"[tool.opgen.{key}] must map names to strings", where(key))
        for name, v in value.items():
            try:
                _check_table_entry(key, name, v, where)
            except OpgenError as e:
                problems.append(e)
    elif key == "jobs":
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_JOBS:
            raise OpgenError(f"[tool.opgen] jobs must be an integer from 0 to {MAX_JOBS}", where(key),
                             hint="write jobs = 2 (worker processes), or jobs = 0 for one per core")
    elif key == "max_ops_per_module":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise OpgenError("[tool.opgen] max_ops_per_module must be a positive integer", where(key),
                             hint="write max_ops_per_module = 2000, or leave it out to never split a module")
    elif key in ("merge_overrides", "strict_includes", "strict_defines", "docstring_kernels", "include_internal",
                 "warnings_as_errors"):
        if not isinstance(value, bool):
            raise OpgenError(f"[tool.opgen] {key} must be true or false", where(key))
    elif not isinstance(value, str):
        # `[tool.opgen.library]`: a table named like one of opgen's tables ([tool.opgen.libraries])
        meant = difflib.get_close_matches(key, _TABLE_KEYS, n=1) if isinstance(value, dict) else []
        table = f", not a table ([tool.opgen.{key}])" if meant else ""
        if meant:
            hint = f"did you mean [tool.opgen.{meant[0]}]?"
        elif isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            hint = f"write {key} = {json.dumps(value[0])}: one string, not a list"  # (trial37 #9)
        else:
            hint = f'write {key} = "..." (a quoted string)'
        if key == "library" and not meant:
            hint += "; modules that load different libraries: [tool.opgen.libraries] maps module globs to them"
        raise OpgenError(f"[tool.opgen] {key} must be a string{table}", where(key), hint=hint)
    elif key == "library":
        check_library(value, where(key), "[tool.opgen] library")
    elif key == "formatter" and value not in FORMATTERS:
        raise OpgenError(f"[tool.opgen] formatter {value!r} is not one of {', '.join(FORMATTERS)}", where(key),
                         hint='write formatter = "black" (the default) or formatter = "ruff"')
    _raise_in_file_order(problems)
    return value


def _check_table_entry(key: str, name: str, value: object, where: Callable[..., Location]) -> None:
    """An entry `name = value` of [tool.opgen.<key>] (`_TABLE_KEYS`), or its error."""
    if key != "helpers" and name in _KNOWN_KEYS:
        # No op (CamelCase) nor generated module is named like a [tool.opgen] key: it was
        # written below the table's header, where it lands in the table.
        raise OpgenError(f"[tool.opgen.{key}] key {name!r} is a [tool.opgen] key, not a pattern",
                         where(key, name), hint=_below_table_hint(key))
    if not isinstance(value, str) or "\0" in name:
        # A key of [tool.opgen] written after a [tool.opgen.<key>] header lands in that table.
        scope = f"'{name}' is a [tool.opgen] key: {_below_table_hint(key)}" if name in _KNOWN_KEYS else None
        what = "a string" if isinstance(value, str) else _TOML_KINDS.get(type(value), "not a string")
        raise OpgenError(f"[tool.opgen.{key}] must map names to strings: {name!r} is {what}"
                         + (" but its name holds a NUL" if isinstance(value, str) else ""),
                         where(key, name), hint=scope)
    if key == "helpers" and not _CPP_NAME.fullmatch(name):
        raise OpgenError(f"[tool.opgen.helpers] key {name!r} is not a C++ name", where(key, name),
                         hint='name the helper as the sources call it: GetAttrs = "..." or '
                              '"ns::GetAttrs" = "..." (for that namespace only)')
    if key == "modules":
        from opgen.module_groups import validate_module_name

        validate_module_name(value, where(key, name))
    elif key == "libraries":
        check_library(value, where(key, name), f"[tool.opgen.libraries] {name!r}")


# The [tool.opgen] keys that are tables of their own ([tool.opgen.modules], ...).
_TABLE_KEYS = ("modules", "helpers", "libraries")


# Path keys that must name something existing when pyproject.toml sets them: what each must be.
# (`out` and `api` name what `opgen build` writes; `library`, a file next to the modules.)
PATH_KEYS = {"sources": "source", "include_dirs": "directory", "overrides": "directory", "templates": "directory",
              "allow": "file"}


def check_paths(config: Config, keys: Iterable[str]) -> None:
    """Every path of `keys` that pyproject.toml sets names something that exists, located at
    its entry: a misspelt `overrides = "overides"` must not silently drop every override. A
    key left at its default stays optional (`overrides`: used when the directory exists)."""
    errors: list[OpgenError] = []
    for key in keys:
        if key not in config.written or key not in PATH_KEYS:
            continue
        value = getattr(config, key)
        if value == "":  # `overrides = ""`: none
            continue
        for i, entry in enumerate(value if isinstance(value, tuple) else (value,)):
            where = config.where(key, i) if isinstance(value, tuple) else config.where(key)
            path = config.path(entry)
            if key == "sources" and _GLOB_CHARS & set(entry):
                problem = None if glob_paths(config.source_pattern(entry)) else "matches no files"
            elif not path.exists():
                problem = "does not exist"
            elif PATH_KEYS[key] == "directory" and not path.is_dir():
                problem = "is not a directory"
            elif PATH_KEYS[key] == "file" and not path.is_file():
                problem = "is not a file"
            else:
                problem = None
            if problem:
                resolved = f" ({printable_path(path)})" if path.as_posix() != entry else ""
                errors.append(OpgenError(
                    f"[tool.opgen] {key} {'entry ' if isinstance(value, tuple) else ''}{entry!r} {problem}{resolved}",
                    where,
                    hint=f"paths in [tool.opgen] are relative to {printable_path(config.root)}"
                    + ("; remove the key to use the default (overrides, when it exists)"
                       if key == "overrides" else "")))
    _raise_in_file_order(errors)


def check_default_sources(config: Config, pass_them: str) -> None:
    """When pyproject.toml sets no `sources` and the default folder is missing, say that no
    sources are configured rather than report `op_specs` (a name a new user never chose) as
    a missing file; `pass_them`: how the command takes its sources instead."""
    if "sources" in config.written or any(config.path(entry).exists() for entry in config.sources):
        return
    missing = ", ".join(f"{entry}/" for entry in config.sources)
    raise OpgenError(
        f"no op sources: {missing} (the default) does not exist",
        Location(str(config.path(config.sources[0]))),  # in a git revision's copy: shown as REV:op_specs
        hint=f"{pass_them}, set [tool.opgen] sources in pyproject.toml, or run `{opgen_command('init')}` to start "
        "a project")


def _check_define(define: str, where: Location) -> None:
    """A `defines` entry is what `-D` takes; its error points at the entry, not the command line."""
    from opgen.spec.preprocessor import check_define_option, parse_define_option

    try:
        parse_define_option(define)
    except OpgenError:
        raise OpgenError(f"[tool.opgen] defines entry {define!r}: macro names must be identifiers", where,
                         hint='write "NAME" or "NAME=VALUE"') from None
    try:
        check_define_option(define)
    except OpgenError as e:
        raise OpgenError(f"[tool.opgen] defines entry {define!r}: {e.message}", where,
                         hint='write "NAME" or "NAME=VALUE", VALUE being what follows `#define NAME`') from None


def check_library(value: str, where: Location, what: str) -> None:
    """An op library (`what`: the setting) names a file: not empty, one line, printable (it is
    written into the modules)."""
    if not value or not value.isprintable():
        raise OpgenError(
            f"{what} {value!r} is not a usable path",
            where,
            hint='give the op library as a path relative to the generated modules ("_my_ops.so") or as '
                 '"package:resource"',
        )
