"""`OpDefBuilder::Attr(spec)`: the attr spec grammar of TF 2.21 (`op_def_builder.cc` FinalizeAttr).

`finalize_attr` mirrors C++ `FinalizeAttr` step by step, including its mutation order: the
AttrDef is appended first and filled as parsing proceeds, so a half-parsed attr stays in
the OpDef (later Input/Output specs may still resolve against it, exactly as in TF).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


@dataclass(frozen=True)
class SpecError:
    """TF's error message for an Attr, Input or Output spec, and where in the spec the part it
    is about starts (the text its message quotes); None: the spec as a whole."""

    message: str
    at: int | None = None


class _Stop(Exception):
    """A VERIFY failed: processing of this spec stops with this message head, about the part
    of the spec that `rest` (a suffix of it) starts with, if given (its first word)."""

    def __init__(self, head: str, rest: str | None = None):
        super().__init__(head)
        self.head = head
        self.rest = rest


@dataclass(frozen=True)
class _Parsed:
    """What an attr spec parses to (the result depends on the spec text alone)."""

    attr: op_def_pb2.OpDef.AttrDef
    head: str | None  # TF's error message head
    at: int | None  # where in the spec the part the error is about starts
    default_at: int | None  # where the default value starts, when there is one


# spec -> what it parses to: real op libraries repeat specs ("T: type") a lot.
_CACHE: dict[str, _Parsed] = {}
_CACHE_LIMIT = 50_000


def clear_cache() -> None:
    _CACHE.clear()


def _parsed(spec: str) -> _Parsed:
    cached = _CACHE.get(spec)
    if cached is None:
        attr = op_def_pb2.OpDef.AttrDef()
        head = at = default_at = None
        try:
            default_at = _parse(spec, attr)
        except _Stop as stop:
            head = stop.head
            at = None if stop.rest is None else len(spec) - len(stop.rest.lstrip(SPACE))  # (TF quotes the space)
        cached = _Parsed(attr, head, at, default_at)
        if len(_CACHE) < _CACHE_LIMIT:
            _CACHE[spec] = cached
    return cached


def finalize_attr(spec: str, op_def: op_def_pb2.OpDef) -> SpecError | None:
    """Parse one Attr spec into a new AttrDef of `op_def`; TF's error or None."""
    parsed = _parsed(spec)
    op_def.attr.add().CopyFrom(parsed.attr)
    if parsed.head is not None:
        return SpecError(f'{parsed.head} from Attr("{spec}") for Op {op_def.name}', parsed.at)
    return None


def field_offset(spec: str, attr_field: str) -> int | None:
    """Where an attr spec writes its AttrDef's field `attr_field` (`name`, `default_value`),
    for the errors ValidateOpDef finds in it."""
    if attr_field == "name":
        return 0
    return _parsed(spec).default_at if attr_field == "default_value" else None


def _parse(spec: str, attr: op_def_pb2.OpDef.AttrDef) -> int | None:
    """Fill `attr` from `spec`; where its default value starts, if it has one."""
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
            raise _Stop(f"Trouble parsing type string at '{rest}'", rest)
        compound = next((c for c in TOP_LEVEL_COMPOUND if rest.startswith(c)), None)
        if compound is not None:
            types = COMPOUND_TYPES.get(compound)
            allowed = attr.allowed_values
            allowed.SetInParent()
            if types is None:
                raise _Stop(f"Expected to see a compound type, saw: {compound}", rest)
            base, rest = "type", rest[len(compound):]
            allowed.list.type.extend(types)
        elif rest.startswith("{"):
            base, rest = _parse_set(rest[1:].lstrip(SPACE), attr)
        else:
            raise _Stop(f"Trouble parsing type string at '{rest}'", rest)
    rest = rest.lstrip(SPACE)

    if is_list:
        if not rest.startswith(")"):
            raise _Stop(f"Expected ) to close 'list(', not: '{rest}'", rest)
        rest = rest[1:].lstrip(SPACE)
        attr.type = f"list({base})"
    else:
        attr.type = base

    if (is_list or base == "int") and rest.startswith(">="):
        rest = rest[2:]
        m = _RE_NUMBER.match(rest)
        value = int(m.group(1)) if m else None
        if value is None or not -(2**63) <= value < 2**63:
            raise _Stop(f"Could not parse integer lower limit after '>=', found '{rest}' instead", rest)
        rest = rest[m.end():]  # type: ignore[union-attr]
        attr.has_minimum = True
        attr.minimum = value

    if rest.startswith("="):
        rest = rest[1:].lstrip(SPACE)
        default = parse_attr_value(attr.type, rest)
        if default is None:
            raise _Stop(f"Could not parse default value '{rest}'", rest)
        attr.default_value.CopyFrom(default)
        return len(spec) - len(rest)
    if rest:
        raise _Stop(f"Extra '{rest}' unparsed at the end", rest)
    return None


def _parse_set(rest: str, attr: op_def_pb2.OpDef.AttrDef) -> tuple[str, str]:
    """The inside of `{...}` (after `{` and whitespace): a string set or a type set."""
    allowed = attr.allowed_values
    allowed.SetInParent()
    if rest.startswith(('"', "'")):
        while True:
            m = _RE_QUOTED['"'].match(rest) or _RE_QUOTED["'"].match(rest)
            if m is None:
                raise _Stop(f"Trouble parsing allowed string at '{rest}'", rest)
            escaped = m.group(1)
            try:
                allowed.list.s.append(c_unescape(escaped.encode("utf-8")))
            except ParseError as e:
                raise _Stop(f'Trouble unescaping "{escaped}", got error: {e}', rest) from None
            rest = rest[m.end():]
            if rest.startswith(","):
                rest = rest[1:].lstrip(SPACE)
                if rest.startswith("}"):
                    return "string", rest[1:]
            elif rest.startswith("}"):
                return "string", rest[1:]
            else:
                raise _Stop(f"Expected , or }} after strings in list, not: '{rest}'", rest)
    while True:
        m = _RE_TYPE_TOKEN.match(rest)
        if m is None:
            raise _Stop(f"Trouble parsing type string at '{rest}'", rest)
        token = m.group(1)
        compound = COMPOUND_TYPES.get(token)
        if compound is not None:
            allowed.list.type.extend(compound)
        else:
            dt = data_type_from_string(token)
            if dt is None:
                raise _Stop(f"Unrecognized type string '{token}'", rest)
            allowed.list.type.append(dt)
        rest = rest[m.end():]
        if rest.startswith(","):
            rest = rest[1:].lstrip(SPACE)
            if rest.startswith("}"):
                return "type", rest[1:]
        elif rest.startswith("}"):
            return "type", rest[1:]
        else:
            raise _Stop(f"Expected , or }} after types in list, not: '{rest}'", rest)
