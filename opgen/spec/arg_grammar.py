"""`.Input(spec)` / `.Output(spec)` / `.ControlOutput(name)`: TF 2.21's arg grammar (`op_def_builder.cc`
FinalizeInputOrOutput).

Mirrors C++ `FinalizeInputOrOutput` / `FinalizeControlOutput`: the ArgDef is appended
first and filled while parsing; attrs are looked up in the OpDef as built so far (all
Attr specs are processed before any arg, so `.Attr`/`.Input` call order does not matter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.spec.attr_grammar import SpecError
from opgen_runtime.proto import op_def_pb2
from opgen_runtime.proto.datatypes import data_type_from_string

_WS = "[ \t\n\v\f\r]*"
_RE_NAME = re.compile(rf"([a-z][a-z0-9_]*){_WS}:{_WS}")
_RE_REF_OPEN = re.compile(rf"Ref{_WS}\({_WS}")
_RE_NAME_OR_TYPE = re.compile(rf"([A-Za-z][A-Za-z0-9_]*){_WS}")
_RE_TIMES = re.compile(rf"\*{_WS}([A-Za-z][A-Za-z0-9_]*){_WS}")
_RE_REF_CLOSE = re.compile(rf"\){_WS}")
_RE_CONTROL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
DT_RESOURCE = 20


AttrIndex = dict[str, op_def_pb2.OpDef.AttrDef]


def attr_index(op_def: op_def_pb2.OpDef) -> AttrIndex:
    """Name -> first attr of that name (what FindAttr finds), built once per op."""
    index: AttrIndex = {}
    for attr in op_def.attr:
        index.setdefault(attr.name, attr)
    return index


def finalize_arg(spec: str, is_output: bool, op_def: op_def_pb2.OpDef, attrs: AttrIndex | None = None,
                 ) -> SpecError | None:
    """Parse one Input/Output spec into a new ArgDef of `op_def`; TF's error or None.

    `attrs` (from `attr_index`, valid once all Attr specs are processed) saves the
    per-arg attr search.
    """
    arg = op_def.output_arg.add() if is_output else op_def.input_arg.add()
    problem = _parse(spec, arg, op_def, attr_index(op_def) if attrs is None else attrs)
    if problem is None:
        return None
    head, at = problem
    return SpecError(f'{head} from {"Output" if is_output else "Input"}("{spec}") for Op {op_def.name}', at)


@dataclass(frozen=True)
class _Syntax:
    """What an arg spec says before attrs are consulted (cached per spec text)."""

    error: str | None  # a parse error before the type/attr token (nothing else is known)
    error_at: int | None = None  # where in the spec the part the error (or late_error) is about starts
    name: str = ""
    is_ref: bool = False
    number_attr: str = ""
    number_attr_at: int = 0
    token: str = ""  # the DataType name or attr name
    token_at: int = 0
    late_error: str | None = None  # Ref close / leftovers, reported once the token resolved


_CACHE: dict[str, _Syntax] = {}
_CACHE_LIMIT = 50_000


def clear_cache() -> None:
    _CACHE.clear()


def _syntax(spec: str) -> _Syntax:
    m = _RE_NAME.match(spec)
    if m is None:
        return _Syntax("Trouble parsing 'name:'")
    name = m.group(1)
    rest = spec[m.end():]
    m = _RE_REF_OPEN.match(rest)
    is_ref = m is not None
    if m is not None:
        rest = rest[m.end():]
    m = _RE_NAME_OR_TYPE.match(rest)
    if m is None:
        at = len(spec) - len(rest)
        return _Syntax(f"Trouble parsing either a type or an attr name at '{rest}'", at, name, is_ref)
    token, token_at = m.group(1), len(spec) - len(rest)
    rest = rest[m.end():]
    number_attr, number_attr_at = "", 0
    m = _RE_TIMES.match(rest)
    if m is not None:
        number_attr, number_attr_at = token, token_at
        token, token_at = m.group(1), len(spec) - len(rest) + m.start(1)
        rest = rest[m.end():]
    late = None
    if is_ref:
        m = _RE_REF_CLOSE.match(rest)
        if m is None:
            late = f"Did not find closing ')' for 'Ref(', instead found: '{rest}'"
        else:
            rest = rest[m.end():]
    if late is None and rest:
        late = f"Extra '{rest}' unparsed at the end"
    return _Syntax(None, len(spec) - len(rest) if late else None, name, is_ref, number_attr, number_attr_at, token,
                   token_at, late)


def field_offset(spec: str, arg_field: str) -> int | None:
    """Where an Input/Output spec writes its ArgDef's field `arg_field` (`name`, `number_attr`,
    `type_attr`, `type_list_attr`, `type`), for the errors ValidateOpDef finds in it."""
    syntax = _cached_syntax(spec)
    if arg_field == "name":
        return 0
    if arg_field == "number_attr":
        return syntax.number_attr_at
    return syntax.token_at if arg_field in ("type_attr", "type_list_attr", "type") else None


def _cached_syntax(spec: str) -> _Syntax:
    syntax = _CACHE.get(spec)
    if syntax is None:
        syntax = _syntax(spec)
        if len(_CACHE) < _CACHE_LIMIT:
            _CACHE[spec] = syntax
    return syntax


def _parse(spec: str, arg: op_def_pb2.OpDef.ArgDef, op_def: op_def_pb2.OpDef, attrs: AttrIndex,
           ) -> tuple[str, int | None] | None:
    """Fill `arg` from `spec`; TF's error message head and where in the spec its part starts, or None."""
    syntax = _cached_syntax(spec)
    if syntax.name:
        arg.name = syntax.name
    if syntax.is_ref:
        arg.is_ref = True
    if syntax.error is not None:
        return syntax.error, syntax.error_at
    if syntax.number_attr:
        arg.number_attr = syntax.number_attr
    token = syntax.token
    dt = data_type_from_string(token)
    if dt is not None:
        arg.type = dt  # type: ignore[assignment]  # DataType is an int enum
    else:
        attr = attrs.get(token)
        if attr is None:
            return f"Reference to unknown attr '{token}'", syntax.token_at
        if attr.type == "type":
            arg.type_attr = token
        elif attr.type == "list(type)":
            arg.type_list_attr = token
        else:
            return f"Reference to attr '{token}' with type {attr.type} that isn't type or list(type)", syntax.token_at
    if syntax.late_error is not None:
        return syntax.late_error, syntax.error_at

    # Implicit minimum 1 for the attrs giving an arg's length or type list (`op_def_builder.cc` FinalizeInputOrOutput).
    if arg.number_attr:
        attr = attrs.get(arg.number_attr)
        if attr is not None and not attr.has_minimum:
            attr.has_minimum = True
            attr.minimum = 1
    elif arg.type_list_attr:
        attr = attrs.get(arg.type_list_attr)
        if attr is not None and attr.type == "list(type)" and not attr.has_minimum:
            attr.has_minimum = True
            attr.minimum = 1
    # A fixed resource arg marks the op stateful (`op_def_builder.cc` FinalizeInputOrOutput).
    if dt == DT_RESOURCE:
        op_def.is_stateful = True
    return None


def finalize_control_output(name: str, op_def: op_def_pb2.OpDef) -> SpecError | None:
    """`ControlOutput(name)`: trailing garbage is ignored; a bad name still appends ""."""
    m = _RE_CONTROL_NAME.match(name)
    op_def.control_output.append(m.group() if m else "")
    if m is None:
        return SpecError(f"Trouble parsing 'name:' from ControlOutput(\"{name}\") for Op {op_def.name}")
    return None
