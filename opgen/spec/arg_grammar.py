"""`.Input(spec)` / `.Output(spec)` / `.ControlOutput(name)`: TF 2.21's arg grammar (`op_def_builder.cc`
FinalizeInputOrOutput).

Mirrors C++ `FinalizeInputOrOutput` / `FinalizeControlOutput`: the ArgDef is appended
first and filled while parsing; attrs are looked up in the OpDef as built so far (all
Attr specs are processed before any arg, so `.Attr`/`.Input` call order does not matter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


def finalize_arg(spec: str, is_output: bool, op_def: op_def_pb2.OpDef, attrs: AttrIndex | None = None) -> str | None:
    """Parse one Input/Output spec into a new ArgDef of `op_def`; TF's error message or None.

    `attrs` (from `attr_index`, valid once all Attr specs are processed) saves the
    per-arg attr search.
    """
    arg = op_def.output_arg.add() if is_output else op_def.input_arg.add()
    head = _parse(spec, arg, op_def, attr_index(op_def) if attrs is None else attrs)
    if head is None:
        return None
    return f'{head} from {"Output" if is_output else "Input"}("{spec}") for Op {op_def.name}'


@dataclass(frozen=True)
class _Syntax:
    """What an arg spec says before attrs are consulted (cached per spec text)."""

    error: str | None  # a parse error before the type/attr token (nothing else is known)
    name: str = ""
    is_ref: bool = False
    number_attr: str = ""
    token: str = ""  # the DataType name or attr name
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
        return _Syntax(f"Trouble parsing either a type or an attr name at '{rest}'", name, is_ref)
    token = m.group(1)
    rest = rest[m.end():]
    number_attr = ""
    m = _RE_TIMES.match(rest)
    if m is not None:
        number_attr, token = token, m.group(1)
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
    return _Syntax(None, name, is_ref, number_attr, token, late)


def _parse(spec: str, arg: op_def_pb2.OpDef.ArgDef, op_def: op_def_pb2.OpDef, attrs: AttrIndex) -> str | None:
    syntax = _CACHE.get(spec)
    if syntax is None:
        syntax = _syntax(spec)
        if len(_CACHE) < _CACHE_LIMIT:
            _CACHE[spec] = syntax
    if syntax.name:
        arg.name = syntax.name
    if syntax.is_ref:
        arg.is_ref = True
    if syntax.error is not None:
        return syntax.error
    if syntax.number_attr:
        arg.number_attr = syntax.number_attr
    token = syntax.token
    dt = data_type_from_string(token)
    if dt is not None:
        arg.type = dt  # type: ignore[assignment]  # DataType is an int enum
    else:
        attr = attrs.get(token)
        if attr is None:
            return f"Reference to unknown attr '{token}'"
        if attr.type == "type":
            arg.type_attr = token
        elif attr.type == "list(type)":
            arg.type_list_attr = token
        else:
            return f"Reference to attr '{token}' with type {attr.type} that isn't type or list(type)"
    if syntax.late_error is not None:
        return syntax.late_error

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


def finalize_control_output(name: str, op_def: op_def_pb2.OpDef) -> str | None:
    """`ControlOutput(name)`: trailing garbage is ignored; a bad name still appends ""."""
    m = _RE_CONTROL_NAME.match(name)
    op_def.control_output.append(m.group() if m else "")
    if m is None:
        return f"Trouble parsing 'name:' from ControlOutput(\"{name}\") for Op {op_def.name}"
    return None
