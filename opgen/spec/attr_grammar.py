"""`OpDefBuilder::Attr(spec)`: the attr spec grammar of TF 2.21 (`op_def_builder.cc` FinalizeAttr).

`finalize_attr` mirrors C++ `FinalizeAttr` step by step, including its mutation order: the
AttrDef is appended first and filled as parsing proceeds, so a half-parsed attr stays in
the OpDef (later Input/Output specs may still resolve against it, exactly as in TF).
"""

from __future__ import annotations

import re

from opgen.tf_text.attr_text import parse_attr_value
from opgen.tf_text.proto_text import SPACE, ParseError, c_unescape
from opgen_runtime.proto import op_def_pb2
from opgen_runtime.proto.datatypes import data_type_from_string

_WS = "[ \t\n\v\f\r]*"
_RE_NAME = re.compile(rf"([A-Za-z][A-Za-z0-9_]*){_WS}:{_WS}")
_RE_LIST = re.compile(rf"list{_WS}\({_WS}")
_RE_TYPE_TOKEN = re.compile(rf"([a-z0-9]+){_WS}")
_RE_QUOTED = {
    '"': re.compile(rf'"((?:[^"\\]|\\[\s\S])*)"{_WS}'),
    "'": re.compile(rf"'((?:[^'\\]|\\[\s\S])*)'{_WS}"),
}
_RE_NUMBER = re.compile(rf"{_WS}(-?[0-9]{{1,25}})(?![0-9]){_WS}")  # longer: out of int64 range anyway

# The base type words, tried in TF's order as plain prefixes (no word boundary: `int32`
# is `int` followed by `32`).
_RE_BASE = re.compile("string|int|float|bool|type|shape|tensor|func")
# DataType enum numbers of TF's compound type names, in ascending enum order (`op_def_builder.cc` ProcessCompoundType).
NUMBER_TYPES = (1, 2, 3, 4, 5, 6, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 22, 23)
REAL_NUMBER_TYPES = (1, 2, 3, 4, 5, 6, 9, 14, 17, 19, 22, 23)
QUANTIZED_TYPES = (11, 12, 13, 15, 16)
COMPOUND_TYPES = {
    "numbertype": NUMBER_TYPES,
    "numerictype": NUMBER_TYPES,
    "quantizedtype": QUANTIZED_TYPES,
    "realnumbertype": REAL_NUMBER_TYPES,
    "realnumerictype": REAL_NUMBER_TYPES,
}
# Prefixes recognised at top level (note TF's misspelling, and no "realnumerictype").
TOP_LEVEL_COMPOUND = ("numbertype", "numerictype", "quantizedtype", "realnumbertype", "realnumberictype")


class _Stop(Exception):
    """A VERIFY failed: processing of this spec stops with this message head."""


# spec -> (the AttrDef it parses to, error head or None). The result depends on the spec
# text alone, and real op libraries repeat specs ("T: type") a lot.
_CACHE: dict[str, tuple[op_def_pb2.OpDef.AttrDef, str | None]] = {}
_CACHE_LIMIT = 50_000


def clear_cache() -> None:
    _CACHE.clear()


def finalize_attr(spec: str, op_def: op_def_pb2.OpDef) -> str | None:
    """Parse one Attr spec into a new AttrDef of `op_def`; TF's error message or None."""
    cached = _CACHE.get(spec)
    if cached is None:
        parsed = op_def_pb2.OpDef.AttrDef()
        head = None
        try:
            _parse(spec, parsed)
        except _Stop as stop:
            head = stop.args[0]
        if len(_CACHE) < _CACHE_LIMIT:
            _CACHE[spec] = (parsed, head)
        cached = (parsed, head)
    template, head = cached
    op_def.attr.add().CopyFrom(template)
    if head is not None:
        return f'{head} from Attr("{spec}") for Op {op_def.name}'
    return None


def _parse(spec: str, attr: op_def_pb2.OpDef.AttrDef) -> None:
    m = _RE_NAME.match(spec)
    if m is None:
        raise _Stop("Trouble parsing '<name>:'")
    attr.name = m.group(1)
    rest = spec[m.end():]

    m = _RE_LIST.match(rest)
    is_list = m is not None
    if m is not None:
        rest = rest[m.end():]

    m = _RE_BASE.match(rest)
    if m is not None:
        base, rest = m.group(), rest[m.end():]
    else:
        if rest.startswith("any"):  # consumed even though AllowAttrTypeAny is never set
            rest = rest[3:]
            raise _Stop(f"Trouble parsing type string at '{rest}'")
        compound = next((c for c in TOP_LEVEL_COMPOUND if rest.startswith(c)), None)
        if compound is not None:
            base, rest = "type", rest[len(compound):]
            types = COMPOUND_TYPES.get(compound)
            allowed = attr.allowed_values
            allowed.SetInParent()
            if types is None:
                raise _Stop(f"Expected to see a compound type, saw: {compound}")
            allowed.list.type.extend(types)
        elif rest.startswith("{"):
            base, rest = _parse_set(rest[1:].lstrip(SPACE), attr)
        else:
            raise _Stop(f"Trouble parsing type string at '{rest}'")
    rest = rest.lstrip(SPACE)

    if is_list:
        if not rest.startswith(")"):
            raise _Stop(f"Expected ) to close 'list(', not: '{rest}'")
        rest = rest[1:].lstrip(SPACE)
        attr.type = f"list({base})"
    else:
        attr.type = base

    if (is_list or base == "int") and rest.startswith(">="):
        rest = rest[2:]
        m = _RE_NUMBER.match(rest)
        value = int(m.group(1)) if m else None
        if value is None or not -(2**63) <= value < 2**63:
            raise _Stop(f"Could not parse integer lower limit after '>=', found '{rest}' instead")
        rest = rest[m.end():]  # type: ignore[union-attr]
        attr.has_minimum = True
        attr.minimum = value

    if rest.startswith("="):
        rest = rest[1:].lstrip(SPACE)
        default = parse_attr_value(attr.type, rest)
        if default is None:
            raise _Stop(f"Could not parse default value '{rest}'")
        attr.default_value.CopyFrom(default)
    elif rest:
        raise _Stop(f"Extra '{rest}' unparsed at the end")


def _parse_set(rest: str, attr: op_def_pb2.OpDef.AttrDef) -> tuple[str, str]:
    """The inside of `{...}` (after `{` and whitespace): a string set or a type set."""
    allowed = attr.allowed_values
    allowed.SetInParent()
    if rest.startswith(('"', "'")):
        while True:
            m = _RE_QUOTED['"'].match(rest) or _RE_QUOTED["'"].match(rest)
            if m is None:
                raise _Stop(f"Trouble parsing allowed string at '{rest}'")
            escaped = m.group(1)
            try:
                allowed.list.s.append(c_unescape(escaped.encode("utf-8")))
            except ParseError as e:
                raise _Stop(f'Trouble unescaping "{escaped}", got error: {e}') from None
            rest = rest[m.end():]
            if rest.startswith(","):
                rest = rest[1:].lstrip(SPACE)
                if rest.startswith("}"):
                    return "string", rest[1:]
            elif rest.startswith("}"):
                return "string", rest[1:]
            else:
                raise _Stop(f"Expected , or }} after strings in list, not: '{rest}'")
    while True:
        m = _RE_TYPE_TOKEN.match(rest)
        if m is None:
            raise _Stop(f"Trouble parsing type string at '{rest}'")
        token = m.group(1)
        rest = rest[m.end():]
        compound = COMPOUND_TYPES.get(token)
        if compound is not None:
            allowed.list.type.extend(compound)
        else:
            dt = data_type_from_string(token)
            if dt is None:
                raise _Stop(f"Unrecognized type string '{token}'")
            allowed.list.type.append(dt)
        if rest.startswith(","):
            rest = rest[1:].lstrip(SPACE)
            if rest.startswith("}"):
                return "type", rest[1:]
        elif rest.startswith("}"):
            return "type", rest[1:]
        else:
            raise _Stop(f"Expected , or }} after types in list, not: '{rest}'")
