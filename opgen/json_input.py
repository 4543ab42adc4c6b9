"""Strict reading of JSON input (API snapshots, JSON OpLists): what Python's `json` lets
through and a reader must not (duplicate keys, `NaN`/`Infinity`, numbers too big to be
one, nesting beyond opgen's limit) is a located error, and `proto_json_problem` checks a
value against a protobuf message's JSON form, naming the field path of the first problem.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from opgen.errors import Location, OpgenError, did_you_mean
from opgen.limits import MAX_JSON_NESTING, MAX_TEXT_NESTING

__all__ = ["JsonProblem", "field_location", "json_kind", "load_json", "proto_json_problem"]

# Tokens the number check needs: strings (skipped), the non-standard constants and numbers.
_JSON_NUMBER_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN|-?\d[0-9.eE+-]*')
_MAX_INT_DIGITS = 25  # int64 and uint64 need at most 20; as for attr defaults (README "Limits")


class JsonProblem(Exception):
    """A value that does not have the shape its reader needs: `field` names where (`ops[3].graph`)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JsonProblem("", f"duplicate key {key!r} in one object (JSON readers disagree on which one counts)")
        out[key] = value
    return out


def _bad_number(text: str) -> tuple[int, str] | None:
    """(offset, token) of the first `NaN`/`Infinity`, infinite or oversized number."""
    for m in _JSON_NUMBER_TOKEN.finditer(text):
        tok = m.group()
        if tok[0] == '"':
            continue
        digits = tok.lstrip("-")
        if tok.endswith(("Infinity", "NaN")) or (digits.isdigit() and len(digits) > _MAX_INT_DIGITS):
            return m.start(), tok
        try:
            if not math.isfinite(float(tok)):
                return m.start(), tok
        except ValueError:  # not a JSON number: json.loads reports it
            continue
    return None


def _deep_path(data: Any) -> str | None:
    """The path of a value nested more than MAX_JSON_NESTING deep, else None (iterative)."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_JSON_NESTING:
            return (path if len(path) <= 120 else path[:117] + "...") or "(top level)"
        if isinstance(value, dict):
            stack += [(v, f"{path}.{k}" if path else str(k), depth + 1) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return None


def _location(text: str, offset: int, path: str, first_line: int) -> Location:
    """Where `offset` of `text` is in `path`, whose line `first_line` holds the first line of `text`."""
    line = text.count("\n", 0, offset)
    return Location(path, first_line + line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


# One step of a JsonProblem's field path: `.key` (or a first `key`), `[3]`, `['key']` (a map's).
_FIELD_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]|\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _field_offset(text: str, field: str) -> int | None:
    """The offset in `text` (valid JSON) of what `field` names: a member's key, an element's
    value; None when the path is not there. Values passed over are skipped by the json module's
    scanner, so the walk is linear in the text."""
    steps = []
    end = 0
    for m in _FIELD_STEP.finditer(field):
        if m.start() != end:
            return None
        end = m.end()
        steps.append(m[1] if m[1] is not None else int(m[2]) if m[2] is not None else ast.literal_eval(m[3]))
    if end != len(field):
        return None
    skip = json.JSONDecoder().raw_decode
    pos = _JSON_SPACE.match(text).end()  # type: ignore[union-attr]  # matches the empty string
    found = pos
    for step in steps:
        opening, closing = ("[", "]") if isinstance(step, int) else ("{", "}")
        if text[pos : pos + 1] != opening:
            return None
        pos = _JSON_SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        index = 0
        while text[pos : pos + 1] != closing:
            found = pos
            if isinstance(step, int):
                if index == step:
                    break
            else:
                key, pos = skip(text, pos)
                pos = _JSON_SPACE.match(text, _JSON_SPACE.match(text, pos).end() + 1).end()  # type: ignore[union-attr]
                if key == step:
                    break
            pos = _JSON_SPACE.match(text, skip(text, pos)[1]).end()  # type: ignore[union-attr]
            if text[pos : pos + 1] == ",":
                pos = _JSON_SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
            index += 1
        else:
            return None
    return found


def field_location(text: str, field: str, path: str, first_line: int = 1) -> Location:
    """Where the field a JsonProblem names (`ops[0].graph.attrs[1].minimum`) is in `text`, the
    JSON of `path` from its line `first_line`: its key's line and column; the text's first line
    when the path is not found."""
    offset = _field_offset(text, field)
    return Location(path, first_line) if offset is None else _location(text, offset, path, first_line)


def load_json(text: str, path: str, what: str, first_line: int = 1) -> Any:
    """`text` parsed as strict JSON; errors located in `path` (whose line `first_line` holds
    the first line of `text`)."""

    def at(offset: int) -> Location:
        return _location(text, offset, path, first_line)

    bad = _bad_number(text)
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise OpgenError(f"{what} is not valid JSON: {e.msg}", at(e.pos)) from None
    except RecursionError:
        raise OpgenError(f"{what} nests JSON more than {MAX_JSON_NESTING} deep (opgen's limit)",
                         Location(path, first_line)) from None
    except JsonProblem as e:
        raise OpgenError(f"{what}: {e.message}", Location(path, first_line)) from None
    except ValueError as e:  # an integer beyond Python's digit limit, which `bad` locates
        if bad is None:
            raise OpgenError(f"{what} is not valid JSON: {e}", Location(path, first_line)) from None
        data = None
    if bad is not None:
        offset, tok = bad
        shown = tok if len(tok) <= 20 else tok[:17] + "..."
        raise OpgenError(f"{what} has the number {shown}, which is not finite or too long "
                         "(JSON has no NaN or Infinity; integers have at most "
                         f"{_MAX_INT_DIGITS} digits)", at(offset)) from None
    deep = _deep_path(data)
    if deep is not None:
        raise OpgenError(f"{what} nests JSON more than {MAX_JSON_NESTING} deep at {deep} (opgen's limit)",
                         Location(path, first_line))
    return data


_INT_RANGES = {
    FieldDescriptor.CPPTYPE_INT32: (-(1 << 31), (1 << 31) - 1),
    FieldDescriptor.CPPTYPE_INT64: (-(1 << 63), (1 << 63) - 1),
    FieldDescriptor.CPPTYPE_UINT32: (0, (1 << 32) - 1),
    FieldDescriptor.CPPTYPE_UINT64: (0, (1 << 64) - 1),
}
_FLOAT_WORDS = ("NaN", "Infinity", "-Infinity")  # proto3 JSON spells non-finite floats as strings


def _int_problem(value: Any, cpp_type: int) -> str | None:
    if isinstance(value, str) and re.fullmatch(r"-?\d{1,25}", value):
        value = int(value)  # proto3 JSON writes 64-bit integers as strings
    if type(value) is not int:
        return f"expected an integer, got {json_kind(value)}"
    lo, hi = _INT_RANGES[cpp_type]
    return None if lo <= value <= hi else f"{value} is outside [{lo}, {hi}]"


def _scalar_problem(value: Any, field: FieldDescriptor) -> str | None:
    cpp = field.cpp_type
    if cpp in _INT_RANGES:
        return _int_problem(value, cpp)
    if cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        if value in _FLOAT_WORDS or type(value) in (int, float):
            return None
        return f"expected a number (or one of {', '.join(_FLOAT_WORDS)}), got {json_kind(value)}"
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return None if isinstance(value, bool) else f"expected true or false, got {json_kind(value)}"
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        enum = field.enum_type
        if isinstance(value, str):
            return None if value in enum.values_by_name else (
                f"{value!r} is not a {enum.name}" + (f"; {hint}" if (hint := did_you_mean(value, enum.values_by_name))
                                                     else ""))
        if type(value) is int:  # proto3 enums are open: any int32 (validation names unknown ones)
            return _int_problem(value, FieldDescriptor.CPPTYPE_INT32)
        return f"expected a {enum.name} name, got {json_kind(value)}"
    # string or bytes (base64, checked by json_format)
    return None if isinstance(value, str) else f"expected a string, got {json_kind(value)}"


def proto_json_problem(value: Any, descriptor: Descriptor, path: str = "", depth: int = 0) -> JsonProblem | None:
    """The first way `value` is not the JSON form of a `descriptor` message (proto3 JSON:
    field names as declared or in lowerCamelCase, null for an unset field), else None."""
    if not isinstance(value, dict):
        return JsonProblem(path, f"expected an object ({descriptor.name}), got {json_kind(value)}")
    if depth >= MAX_TEXT_NESTING:
        return JsonProblem(path, f"messages nested more than {MAX_TEXT_NESTING} deep (opgen's limit)")
    fields = {**{f.json_name: f for f in descriptor.fields}, **{f.name: f for f in descriptor.fields}}
    for key, item in value.items():
        here = f"{path}.{key}" if path else key
        field = fields.get(key)
        if field is None:
            hint = did_you_mean(key, [f.name for f in descriptor.fields], "'")
            return JsonProblem(here, f"{descriptor.name} has no field {key!r}" + (f"; {hint}" if hint else ""))
        if item is None:
            continue
        entry = field.message_type
        if entry is not None and entry.GetOptions().map_entry:
            if not isinstance(item, dict):
                return JsonProblem(here, f"expected an object (a map), got {json_kind(item)}")
            value_field = entry.fields_by_name["value"]
            items = [(f"{here}[{k!r}]", v) for k, v in item.items()]
        elif field.is_repeated:
            if not isinstance(item, list):
                return JsonProblem(here, f"expected an array, got {json_kind(item)}")
            value_field = field
            items = [(f"{here}[{i}]", v) for i, v in enumerate(item)]
            if any(v is None for v in item):
                return JsonProblem(next(p for p, v in items if v is None), "null in an array")
        else:
            value_field = field
            items = [(here, item)]
        for where, v in items:
            if value_field.message_type is not None:
                problem = proto_json_problem(v, value_field.message_type, where, depth + 1)
                if problem is not None:
                    return problem
            elif (message := _scalar_problem(v, value_field)) is not None:
                return JsonProblem(where, message)
    return None

