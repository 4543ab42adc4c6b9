"""`[tool.opgen]` settings from the nearest pyproject.toml; CLI options override them."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from opgen.errors import Location, OpgenError
from opgen.limits import read_text_file

_KNOWN_KEYS = {
    "sources",  # list of C++ files/dirs/globs or OpList files
    "overrides",  # directory of OpGenOverride / ApiDef files
    "templates",  # Jinja template directory (default: the templates shipped with opgen)
    "out",  # output directory of generated modules
    "modules",  # table: op-name glob -> module name
    "helpers",  # table: C++ helper function name -> the string it returns
    "defines",  # list of NAME or NAME=VALUE, like -D
    "include_dirs",  # list of directories, like -I
    "allow",  # file of allowed op names (selective registration)
    "jobs",  # parallel formatter workers
    "formatter",  # "black" or "ruff"
    "merge_overrides",  # allow several override files to touch one op
    "api",  # path of the committed API snapshot
    "library",  # compiled op library the modules load for TensorFlow (path from the module, or pkg:resource)
    "strict_includes",  # a #include "..." that cannot be found is an error, not a warning
    "docstring_kernels",  # docstrings say which devices and types the op's kernels run on
}


@dataclass(frozen=True)
class Config:
    root: Path  # directory holding pyproject.toml (or cwd when there is none)
    sources: tuple[str, ...] = ("op_specs",)
    overrides: str | None = "overrides"
    templates: str | None = None
    out: str = "generated"
    modules: dict[str, str] = field(default_factory=dict)
    helpers: dict[str, str] = field(default_factory=dict)
    defines: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    allow: str | None = None
    # Rendering/formatting worker processes (0 = one per core). 1 by default: on the 2-core
    # development machine a cold build of TF's registry measured 0.54 s with 1 and 0.63-0.70 s
    # with 2 (bench/build_bench.py --jobs N); forking only pays with idle cores.
    jobs: int = 1
    formatter: str = "black"
    merge_overrides: bool = False
    api: str | None = None
    library: str | None = None
    strict_includes: bool = False
    docstring_kernels: bool = False

    def path(self, value: str) -> Path:
        """A configured path, resolved against the pyproject.toml directory."""
        p = Path(value)
        return p if p.is_absolute() else self.root / p


def find_pyproject(start: Path) -> Path | None:
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(start: Path | None = None) -> Config:
    start = (start or Path.cwd()).resolve()
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Config(root=start)
    where = Location(str(pyproject))
    try:
        data = tomllib.loads(read_text_file(pyproject))
    except tomllib.TOMLDecodeError as e:
        raise OpgenError(f"cannot parse pyproject.toml: {e}", where) from None
    except RecursionError:
        raise OpgenError("cannot parse pyproject.toml: arrays or tables nested too deeply", where) from None
    tool = data.get("tool", {})
    table = tool.get("opgen", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise OpgenError("[tool.opgen] must be a table", where, hint="write [tool.opgen] followed by key = value lines")
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        raise OpgenError(
            f"unknown [tool.opgen] key(s): {', '.join(unknown)}",
            Location(str(pyproject)),
            hint=f"known keys: {', '.join(sorted(_KNOWN_KEYS))}",
        )
    kwargs: dict[str, object] = {}
    for key, value in table.items():
        if key in ("sources", "defines", "include_dirs"):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise OpgenError(f"[tool.opgen] {key} must be a list of strings", Location(str(pyproject)))
            value = tuple(value)
        elif key in ("modules", "helpers"):
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()) or \
                    not all("\0" not in k for k in value):
                raise OpgenError(f"[tool.opgen.{key}] must map names to strings", Location(str(pyproject)))
        elif key == "jobs":
            if not isinstance(value, int) or value < 0:
                raise OpgenError("[tool.opgen] jobs must be a non-negative integer", Location(str(pyproject)))
        elif key in ("merge_overrides", "strict_includes", "docstring_kernels"):
            if not isinstance(value, bool):
                raise OpgenError(f"[tool.opgen] {key} must be true or false", Location(str(pyproject)))
        elif not isinstance(value, str):
            raise OpgenError(f"[tool.opgen] {key} must be a string", Location(str(pyproject)))
        elif key == "library":
            check_library(value, Location(str(pyproject)))
        kwargs[key] = value
    return Config(root=pyproject.parent, **kwargs)  # type: ignore[arg-type]


def check_library(value: str, where: Location) -> None:
    """`library` names a file: not empty, one line, printable (it is written into the modules)."""
    if not value or not value.isprintable():
        raise OpgenError(
            f"[tool.opgen] library {value!r} is not a usable path",
            where,
            hint='give the op library as a path relative to the generated modules ("_my_ops.so") or as "package:resource"',
        )
