"""Reading override files: format detection, TF's `<<END` multi-line format, text-format
parsing, and the line/column of every field (protobuf's Python parser keeps none).

An override file is text-format protobuf holding either `opgen.OpGenOverrides` or TF's
`ApiDefs`; both have a repeated top-level `op`. The format is decided by parsing: a file
whose text contains a `graph_op_name` field is an ApiDefs file, any other file is an
OpGenOverrides file (OpGenOverride names its op with `name`, ApiDef with `graph_op_name`,
which every useful ApiDef entry must have). Parse errors name the format that was assumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from google.protobuf import text_encoding, text_format

from opgen.errors import Location, OpgenError
from opgen.limits import MAX_TEXT_NESTING, decode_utf8, read_input_bytes, text_nesting_problem
from opgen.proto import api_def_pb2, op_gen_overrides_pb2

Format = Literal["opgen", "apidef"]
FORMAT_TITLES = {"opgen": "OpGenOverrides", "apidef": "ApiDefs"}


@dataclass
class Node:
    """A field occurrence in a text-format file: where it stands and its sub-fields."""

    name: str
    loc: Location
    children: list[Node] = field(default_factory=list)

    def all(self, name: str) -> list[Node]:
        return [c for c in self.children if c.name == name]

    def nth(self, name: str, index: int) -> Node:
        """The `index`-th occurrence of field `name` (a repeated field's element `index`)."""
        found = self.all(name)
        return found[index] if index < len(found) else (found[-1] if found else self)

    def first(self, name: str) -> Node:
        return self.nth(name, 0)


@dataclass
class OverrideFile:
    path: str  # as the user named it (for Location)
    format: Format
    message: op_gen_overrides_pb2.OpGenOverrides | api_def_pb2.ApiDefs
    root: Node  # the file's fields with their locations; root.all("op")[i] is entry i


def convert_multiline(text: str, path: str) -> tuple[str, list[int]]:
    """TF's PBTxtFromMultiline (`op_gen_lib.cc`) plus, per output line, the 1-based input line it came from.

    A line whose first colon is followed by spaces and `<<TAG` starts a block; lines up to
    one starting (after indentation) with TAG form the value, emitted C-escaped in quotes;
    text after TAG on the closing line is kept.
    """
    lines = text.split("\n")
    out: list[str] = []
    line_map: list[int] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        colon = line.find(":")
        match = re.match(r" *<<(.*)$", line[colon + 1:]) if colon >= 0 else None
        if match is None:
            out.append(line)
            line_map.append(i + 1)
            i += 1
            continue
        tag = match.group(1).strip()
        if not tag:
            raise OpgenError("multi-line value `<<` needs an end tag, e.g. `<<END`",
                             Location(path, i + 1, colon + 2))
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].lstrip().startswith(tag):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise OpgenError(f"multi-line value has no end tag {tag!r}", Location(path, start + 1, colon + 2),
                             hint=f"end the block with a line starting with {tag}")
        rest = lines[i].lstrip()[len(tag):]
        escaped = text_encoding.CEscape("\n".join(body).encode(), as_utf8=True)
        out.append(f'{line[:colon + 1]} "{escaped}"{rest}')
        line_map.append(start + 1)
        i += 1
    return "\n".join(out), line_map


_GRAPH_OP_NAME = re.compile(r"^[^#\"']*\bgraph_op_name\s*:", re.MULTILINE)


def detect_format(text: str) -> Format:
    return "apidef" if _GRAPH_OP_NAME.search(text) else "opgen"


def read_override_file(path: Path, display: str) -> OverrideFile:
    raw = decode_utf8(read_input_bytes(path, "override file"), display, "override file")
    deep = text_nesting_problem(raw)
    if deep is not None:
        raise OpgenError(f"override file nests messages more than {MAX_TEXT_NESTING} deep (opgen's limit)",
                         Location(display, deep))
    text, line_map = convert_multiline(raw, display)
    fmt = detect_format(text)
    message = api_def_pb2.ApiDefs() if fmt == "apidef" else op_gen_overrides_pb2.OpGenOverrides()
    try:
        text_format.Parse(text, message)
    except text_format.ParseError as e:
        line = e.GetLine() or 0
        loc = Location(display, line_map[line - 1] if 0 < line <= len(line_map) else line, e.GetColumn() or 0)
        message_text = re.sub(r"^\d+:\d+ ?: ?", "", str(e))
        raise OpgenError(
            f"cannot parse as {FORMAT_TITLES[fmt]}: {message_text}", loc,
            hint="a file with a `graph_op_name` field is read as TF ApiDefs, any other as opgen "
            "OpGenOverrides (fields: name, skip, hide, rename_to, alias, attr_default, attr_rename, "
            "input_rename, output_rename)",
        ) from None
    root = Node("", Location(display, 1, 1), _scan(text, display, line_map))
    return OverrideFile(display, fmt, message, root)


# --- Locating fields: a scanner for (already validly parsed) text-format protobuf ---

_TOKEN = re.compile(
    r"""(?P<ws>\s+|\#[^\n]*)
      | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
      | (?P<punct>[{}<>\[\]:,;])
      | (?P<word>[^\s{}<>\[\]:,;"'\#]+)""",
    re.VERBOSE,
)


def _scan(text: str, path: str, line_map: list[int]) -> list[Node]:
    tokens: list[tuple[str, str, Location]] = []
    line, line_start = 1, 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or ""
        if kind != "ws":
            tokens.append((kind, m.group(), Location(path, line_map[line - 1], m.start() - line_start + 1)))
        for nl in re.finditer("\n", m.group()):
            line += 1
            line_start = m.start() + nl.end()
    nodes, _ = _scan_fields(tokens, 0, None)
    return nodes


def _scan_fields(tokens, pos: int, close: str | None) -> tuple[list[Node], int]:
    nodes: list[Node] = []
    while pos < len(tokens) and tokens[pos][1] != close:
        _, name, loc = tokens[pos]
        pos += 1
        if tokens[pos][1] == ":":
            pos += 1
        if tokens[pos][1] == "[":
            pos += 1
            while tokens[pos][1] != "]":
                elem_loc = tokens[pos][2]
                children, pos = _scan_value(tokens, pos)
                nodes.append(Node(name, elem_loc, children))
                if tokens[pos][1] == ",":
                    pos += 1
            pos += 1
        else:
            children, pos = _scan_value(tokens, pos)
            nodes.append(Node(name, loc, children))
        if pos < len(tokens) and tokens[pos][1] in (",", ";"):
            pos += 1
    return nodes, pos + 1


def _scan_value(tokens, pos: int) -> tuple[list[Node], int]:
    kind, text, _ = tokens[pos]
    if text in ("{", "<"):
        return _scan_fields(tokens, pos + 1, "}" if text == "{" else ">")
    pos += 1
    if kind == "str":
        while pos < len(tokens) and tokens[pos][0] == "str":
            pos += 1
    elif text == "-":
        pos += 1
    return [], pos
