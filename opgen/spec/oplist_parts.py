"""Where each part of each op of a text OpList file is written, as `OpSource.parts` gives it for
a C++ registration, so a review of an OpList-file op points at the line that changed.

A C++ part is one builder call (`.Attr("T: {float}")`); a text OpList spells a part over
several lines (`attr {`, `name: "T"`, `type: "type"`, `allowed_values { ... }`), so besides
the part (`attr T`, at its `attr {` line) each field of it is located (`attr T allowed_values`,
`attr T default_value` at its value's line, `input x type_attr`, ...): a diff locates a change at the field that
says it when the side has one, else at the part. Op-level fields: `flag is_stateful` (each
flag), `deprecation`, `doc` (the first of `summary`/`description`), `doc summary`,
`doc description`, and `doc input x` (an arg's or attr's `description`).

The text was parsed already (`oplist_io`): this scan only finds where fields stand. It is
made for `opgen diff` alone (a build never asks), so reading an OpList stays as fast as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from opgen.errors import Location

__all__ = ["op_list_part_locations"]

# whitespace (newlines counted apart), `#` comments, strings, punctuation, and anything else
# up to one of those (a field name, an enum, a number)
_TOKEN = re.compile(r"""(?P<nl>\n)|[ \t\r\f\v]+|\#[^\n]*|(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
                    r"""|(?P<punct>[{}<>\[\]:,;])|(?P<word>[^\s{}<>\[\]:,;"'\#]+)""")
_ARG_KINDS = {"input_arg": "input", "output_arg": "output", "attr": "attr"}  # OpDef field -> part key
_FLAGS = frozenset({"is_stateful", "is_commutative", "is_aggregate", "allows_uninitialized_input",
                    "is_distributed_communication"})


@dataclass
class _Frame:
    """A message being read (or, `is_list`, a `field: [...]` list): its field's name and where
    that stands, and what it holds."""

    name: str
    loc: Location
    is_list: bool = False
    scalars: dict[str, str] = field(default_factory=dict)  # first value of each string field (`name`)
    fields: dict[str, Location] = field(default_factory=dict)  # where each field first stands
    args: list[tuple[str, _Frame]] = field(default_factory=list)  # an op's args and attrs, in order
    value_at: Location | None = None  # where its first scalar is written (`b: true` in a default_value)


def _op_parts(op: _Frame) -> tuple[tuple[str, Location], ...]:
    parts: dict[str, Location] = {}
    for kind_field, arg in op.args:
        key = f"{_ARG_KINDS[kind_field]} {arg.scalars.get('name', '')}"
        parts.setdefault(key, arg.loc)
        for name, loc in arg.fields.items():
            parts.setdefault(f"doc {key}" if name == "description" else f"{key} {name}", loc)
    for name, loc in op.fields.items():
        if name in _FLAGS:
            parts.setdefault(f"flag {name}", loc)
        elif name == "deprecation":
            parts.setdefault("deprecation", loc)
        elif name in ("summary", "description"):
            parts.setdefault("doc", loc)
            parts.setdefault(f"doc {name}", loc)
    return tuple(parts.items())


def op_list_part_locations(text: str, path: str) -> dict[str, tuple[tuple[str, Location], ...]]:
    """Op name -> the locations of its parts (the module docstring), for the text of an OpList
    that parsed (of two entries of one name, the first)."""
    out: dict[str, tuple[tuple[str, Location], ...]] = {}
    stack: list[_Frame] = []  # the messages (and lists) open; the first message is an `op` entry
    pending: tuple[str, Location] | None = None  # a field's name, read before its value
    line, line_start = 1, 0

    def holder() -> _Frame | None:  # the innermost message
        return next((f for f in reversed(stack) if not f.is_list), None)

    def scalar(name: str, at: Location, value: str, quoted: bool) -> None:
        frame = holder()
        if frame is not None:
            frame.fields.setdefault(name, at)
            frame.value_at = frame.value_at or at
            if quoted:
                frame.scalars.setdefault(name, value[1:-1])  # OpDef names are identifiers: no escapes

    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "nl":
            line, line_start = line + 1, m.end()
            continue
        if kind is None or m.group() in (":", ",", ";"):
            continue
        tok = m.group()
        loc = Location(path, line, m.start() - line_start + 1)
        in_list = bool(stack) and stack[-1].is_list
        if tok in ("{", "<"):
            name, at = (stack[-1].name, loc) if in_list else pending or ("", loc)
            stack.append(_Frame(name, at))
            pending = None
        elif tok in ("}", ">"):
            frame = stack.pop()
            parent = holder()
            if parent is None:
                if frame.name == "op" and "name" in frame.scalars:
                    out.setdefault(frame.scalars["name"], _op_parts(frame))
                continue
            # a default is located at its value (`b: true`), the line that changes with it
            parent.fields.setdefault(frame.name, frame.value_at if frame.name == "default_value" and frame.value_at
                                     else frame.loc)
            parent.value_at = parent.value_at or frame.value_at
            if parent is next(f for f in stack if not f.is_list) and frame.name in _ARG_KINDS:
                parent.args.append((frame.name, frame))
        elif tok == "[":
            name, at = pending or ("", loc)
            stack.append(_Frame(name, at, is_list=True))
            pending = None
        elif tok == "]":
            stack.pop()
        elif in_list:  # a list's scalar element
            scalar(stack[-1].name, stack[-1].loc, tok, kind == "str")
        elif pending is not None:  # the field's value
            scalar(*pending, tok, kind == "str")
            pending = None
        elif kind == "word":  # a field's name (a string here continues the one before)
            pending = (tok, loc)
    return out
