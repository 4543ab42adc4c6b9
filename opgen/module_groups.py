"""Which generated module each op goes into: `[tool.opgen.modules]` globs, else the op's
source file stem; and which op library each module loads (`[tool.opgen.libraries]` globs on
module names, else `[tool.opgen] library`). `opgen build` renders these groups and the API
snapshot lists them, so both ask this one module."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from opgen.errors import Location, OpgenError
from opgen.globs import glob_list
from opgen.model import OpSource
from opgen.python_api.names import module_name_problem
from opgen_runtime.proto import op_def_pb2


def validate_module_name(name: str, where: Location) -> str:
    """A module name from config: a plain identifier, so its file lands directly in --out."""
    problem = module_name_problem(name)
    if problem:
        raise OpgenError(
            f"invalid module name {name!a}: it {problem}",
            where,
            hint="module names must be ASCII Python identifiers (letters, digits, _), without dots or slashes, "
            "and must not shadow opgen, a package the runtime or TensorFlow imports (google, numpy, ...), "
            "a standard-library module or a dunder name",
        )
    return name


@functools.lru_cache(maxsize=4096)
def module_for_source(path: str) -> str:
    """`math_ops.cc` -> `gen_math_ops`; an OpList file `ops.pbtxt` -> `gen_ops`."""
    stem = Path(path).name.split(".", 1)[0]
    stem = re.sub(r"[^A-Za-z0-9_]", "_", stem) or "ops"
    return stem if stem.startswith("gen_") else f"gen_{stem}"


def module_rule(op_name: str, rules: dict[str, str]) -> str | None:
    """The module of the first `[tool.opgen.modules]` glob matching `op_name`; None if none does."""
    pattern = module_pattern(op_name, rules)
    return None if pattern is None else rules[pattern]


def module_pattern(op_name: str, rules: dict[str, str]) -> str | None:
    """The first `[tool.opgen.modules]` glob matching `op_name`; None if none does."""
    return glob_list(tuple(rules)).first(op_name) if rules else None


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
        groups.setdefault(module_of(op.name, sources, rules), []).append(op)
    return dict(sorted(groups.items()))


def module_of(op_name: str, sources: dict[str, OpSource], rules: dict[str, str]) -> str:
    """The module of op `op_name`: its first matching `[tool.opgen.modules]` glob's, else its source's stem's."""
    rule = module_rule(op_name, rules) if rules else None
    if rule is not None:
        return rule
    src = sources.get(op_name)
    return module_for_source(src.location.path) if src else "gen_ops"


# The suffixes of a source or header name (`a.cc`, `a.cu.cc`, `a.h`): files whose names differ
# only in these, in one directory, are one name's variants (TF's `foo_op.cc` beside
# `foo_op.cu.cc`, ops registered in a header `ops.h` beside `ops.cc`), not a surprise to share a module.
_SOURCE_NAME_SUFFIXES = frozenset({"cc", "cpp", "cxx", "c++", "cu", "h", "hh", "hpp", "hxx", "h++", "inc", "inl",
                                   "ipp"})


def _source_unit(path: str) -> tuple[str, str]:
    """The directory and the name without its source suffixes: `ops/a.cu.cc` -> ('ops', 'a'),
    `ops/x.y.cc` -> ('ops', 'x.y')."""
    where = Path(path)
    parts = where.name.split(".")
    while len(parts) > 1 and parts[-1].lower() in _SOURCE_NAME_SUFFIXES:
        parts.pop()
    return str(where.parent), ".".join(parts)


def same_named_sources(
    op_list: op_def_pb2.OpList, sources: dict[str, OpSource], rules: dict[str, str]
) -> dict[str, list[tuple[str, OpSource]]]:
    """Module name -> the first op (name, source) of the first file of each name, for a module
    named after files of different names that give one module name: one name in different
    directories (`a/ops.cc`, `b/ops.cc`), names that become one module name (`a-b.cc`, `a_b.cc`)
    or share the part before the first dot (`x.cc`, `x.y.cc`). One module, whose ops may come
    from different libraries although it loads one. A name's variants in one directory (`a.cc`,
    `a.cu.cc`, `a.h`) are one name."""
    by_module: dict[str, dict[tuple[str, str], tuple[str, OpSource]]] = {}
    for op in op_list.op:
        src = sources.get(op.name)
        if src is None or src.from_op_list or (rules and module_rule(op.name, rules) is not None):
            continue
        by_module.setdefault(module_for_source(src.location.path), {}).setdefault(
            _source_unit(src.location.path), (op.name, src))
    return {module: list(units.values()) for module, units in by_module.items() if len(units) > 1}


T = TypeVar("T")

PACKAGE_INIT = "__init__"  # the split module's package file: it re-exports the parts
# A module of more ops than this written as one file (`max_ops_per_module` unset) is worth a
# warning hinting the setting: its first import compiles for some 3 s and peaks at some 500 MB
# in CPython's compiler, more with every op (docs/rendering.md, "Big modules").
BIG_MODULE_OPS = 5_000


def module_files(module: str, ops: Sequence[T], max_ops: int | None) -> list[tuple[str, Sequence[T]]]:
    """The files `module` is written to (paths relative to --out, without `.py`) and their ops:
    `module` itself, unless it has more than `max_ops` ops (`[tool.opgen] max_ops_per_module`):
    then the package `module`, whose parts `module/_part1` ... hold `max_ops` consecutive ops each
    (numbered with leading zeros, so names sort in order) and whose `module/__init__` (no ops)
    re-exports them (docs/rendering.md says why and what it costs)."""
    if max_ops is None or len(ops) <= max_ops:
        return [(module, ops)]
    count = -(-len(ops) // max_ops)
    width = len(str(count))
    parts = [(f"{module}/_part{i + 1:0{width}d}", ops[i * max_ops : (i + 1) * max_ops]) for i in range(count)]
    return [(f"{module}/{PACKAGE_INIT}", ops[:0]), *parts]


def module_library(module: str, libraries: dict[str, str], default: str | None) -> str | None:
    """The op library of `module`: the first `[tool.opgen.libraries]` glob on module names
    that matches it, else `[tool.opgen] library` (`default`)."""
    pattern = glob_list(tuple(libraries)).first(module) if libraries else None
    return default if pattern is None else libraries[pattern]


def unmatched_patterns(names: Iterable[str], patterns: Iterable[str]) -> list[str]:
    """The globs of `patterns` no name matches: a misspelt `[tool.opgen.modules]` pattern
    (on op names) routes nothing, a `[tool.opgen.libraries]` one (on module names) names
    the library of no module."""
    globs = glob_list(tuple(patterns))
    matched = {pattern for name in names for pattern in globs.matching(name)}
    return [pattern for pattern in globs.patterns if pattern not in matched]


__all__ = [
    "BIG_MODULE_OPS",
    "PACKAGE_INIT",
    "group_ops",
    "module_files",
    "module_for_source",
    "module_library",
    "module_of",
    "module_rule",
    "unmatched_patterns",
    "validate_module_name",
]
