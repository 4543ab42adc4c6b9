"""Reading override files: format detection, TF's `<<END` multi-line format, text-format
parsing, and the line/column of every field (`opgen.tf_text.proto_positions`: protobuf's
Python parser keeps none).

An override file is text-format protobuf holding either `opgen.OpGenOverrides` or TF's
`ApiDefs`; both have a repeated top-level `op`. The format is decided by parsing: a file
whose text contains a `graph_op_name` field is an ApiDefs file, any other file is an
OpGenOverrides file (OpGenOverride names its op with `name`, ApiDef with `graph_op_name`,
which every useful ApiDef entry must have). Parse errors name the format that was assumed.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from google.protobuf import descriptor_pool, text_encoding, text_format

from opgen.errors import Location, OpgenError, did_you_mean, plain_proto_names
from opgen.limits import MAX_TEXT_NESTING, decode_utf8, read_input_bytes, text_nesting_problem
from opgen.proto import api_def_pb2, op_gen_overrides_pb2
from opgen.tf_text.proto_positions import Node, Token, scan, tokens

Format = Literal["opgen", "apidef"]
FORMAT_TITLES = {"opgen": "OpGenOverrides", "apidef": "ApiDefs"}


@dataclass
class OverrideFile:
    path: str  # as the user named it (for Location)
    format: Format
    message: op_gen_overrides_pb2.OpGenOverrides | api_def_pb2.ApiDefs
    root: Node  # the file's fields with their locations; root.all("op")[i] is entry i
    # parse errors of entries (or of their fields) left out of `message`, so that one faulty
    # entry does not hide the others' errors
    errors: list[OpgenError] = field(default_factory=list)
    partial: frozenset[int] = frozenset()  # indices of entries in `message` that lost a field


def convert_multiline(text: str, path: str) -> tuple[str, list[int]]:
    """TF's PBTxtFromMultiline (`op_gen_lib.cc`) plus, per output line, the 1-based input line it came from.

    A line whose first colon is followed by spaces and `<<TAG` starts a block; lines up to
    one starting with TAG (in its first column, as TF's `ConsumePrefix` reads it: an indented
    TAG is text of the value) form the value, emitted C-escaped in quotes; text after TAG on
    the closing line is kept.
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
        while i < len(lines) and not lines[i].startswith(tag):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            indented = next((start + 2 + k for k, b in enumerate(body) if b.lstrip().startswith(tag)), None)
            raise OpgenError(f"multi-line value has no end tag {tag!r}", Location(path, start + 1, colon + 2),
                             hint=f"end the block with a line starting with {tag} in its first column"
                             + (f" (line {indented} indents it, which makes it text of the value, as in TensorFlow)"
                                if indented else ""))
        rest = lines[i][len(tag):]
        escaped = text_encoding.CEscape("\n".join(body).encode(), as_utf8=True)
        out.append(f'{line[:colon + 1]} "{escaped}"{rest}')
        line_map.append(start + 1)
        i += 1
    return "\n".join(out), line_map


_GRAPH_OP_NAME = re.compile(r"^[^#\"']*\bgraph_op_name\s*:", re.MULTILINE)


def detect_format(text: str) -> Format:
    return "apidef" if _GRAPH_OP_NAME.search(text) else "opgen"


def read_override_file(path: Path, display: str) -> OverrideFile:
    """The file's entries; an entry (or a field of one) that does not parse is left out and
    its error kept in `errors`, unless the file's structure itself is broken (an error)."""
    raw = decode_utf8(read_input_bytes(path, "override file"), display, "override file")
    deep = text_nesting_problem(raw)
    if deep is not None:
        raise OpgenError(f"override file nests messages more than {MAX_TEXT_NESTING} deep (opgen's limit)",
                         Location(display, deep))
    text, line_map = convert_multiline(raw, display)
    fmt = detect_format(text)
    reader = _Reader(text, fmt, display, line_map)
    errors: list[OpgenError] = []
    partial: set[int] = set()
    message = _FILE_TYPES[fmt]()
    error = reader.parse_error(0, len(text), _FILE_TYPES[fmt])
    if error is not None:
        text, errors, partial = reader.recover(error)
        if reader.parse_error(0, len(text), _FILE_TYPES[fmt], text) is not None:  # what is left combines badly
            raise error
    text_format.Parse(text, message)
    root = scan(text, display, line_map)
    return OverrideFile(display, fmt, message, root, errors, frozenset(partial))


# The message classes a file, or one of its entries, parses as.
_MessageClass = type[
    op_gen_overrides_pb2.OpGenOverrides | op_gen_overrides_pb2.OpGenOverride | api_def_pb2.ApiDefs | api_def_pb2.ApiDef
]
_FILE_TYPES: dict[str, _MessageClass] = {"opgen": op_gen_overrides_pb2.OpGenOverrides, "apidef": api_def_pb2.ApiDefs}
_ENTRY_TYPES: dict[str, _MessageClass] = {"opgen": op_gen_overrides_pb2.OpGenOverride, "apidef": api_def_pb2.ApiDef}


class _Reader:
    """Parses parts of one file (the file, an entry, a field of an entry) with the locations
    of the whole file, and recovers from parse errors entry by entry, field by field."""

    def __init__(self, text: str, fmt: Format, display: str, line_map: list[int]):
        self.text, self.fmt, self.display, self.line_map = text, fmt, display, line_map
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def _piece(self, start: int, end: int, text: str | None = None) -> tuple[str, int]:
        """text[start:end] (default: the file's) indented to its column, and the lines before it."""
        line = bisect.bisect_right(self.line_starts, start) - 1
        return " " * (start - self.line_starts[line]) + (self.text[start:end] if text is None else text), line

    def parse_error(
        self, start: int, end: int, message_type: _MessageClass, text: str | None = None
    ) -> OpgenError | None:
        """The error of parsing text[start:end] (or `text` standing there) as `message_type`,
        located in the file; None if it parses."""
        piece, lines_before = self._piece(start, end, text)
        try:
            text_format.Parse(piece, message_type())
        except text_format.ParseError as e:
            return self._located(e, piece, lines_before)
        except ValueError as e:  # protobuf's own for a value its field cannot hold (an enum number past int32)
            return self._located(text_format.ParseError(str(e), 1, len(piece) - len(piece.lstrip(" ")) + 1), piece,
                                 lines_before)
        return None

    def _located(self, e: text_format.ParseError, piece: str, lines_before: int) -> OpgenError:
        opener = _unclosed(piece)
        if opener is not None and self._unclosed_entry_error(str(e)):
            # protobuf points at the last value read, or at the next entry read as a field of the
            # unclosed one; what is wrong is a brace the file never closes
            line = piece.count("\n", 0, opener) + 1
            column = opener - (piece.rfind("\n", 0, opener) + 1) + 1
            closing = _CLOSING[piece[opener]]
            return OpgenError(
                f'cannot parse as {FORMAT_TITLES[self.fmt]}: this "{piece[opener]}" is never closed: the file ends '
                f'before its "{closing}"', self._location(line + lines_before, column),
                hint=f'add "{closing}" where its entry ends: after its last field, before the next entry')
        line = e.GetLine() or 0
        loc = self._location(line + lines_before, e.GetColumn() or 0)
        message = re.sub(r"^\d+:\d+ ?: ?", "", str(e))
        piece_lines = piece.split("\n")
        if 0 < line <= len(piece_lines):  # protobuf echoes the line: it is in the location already
            message = message.removeprefix(f"'{piece_lines[line - 1]}': ")
        before = piece_lines[line - 1][: max((e.GetColumn() or 1) - 1, 0)] if 0 < line <= len(piece_lines) else ""
        return OpgenError(f"cannot parse as {FORMAT_TITLES[self.fmt]}: {plain_proto_names(message)}", loc,
                          hint=parse_hint(message, self.fmt, before))

    def _unclosed_entry_error(self, message: str) -> bool:
        """Whether protobuf's `message` is what an entry left open gives: the end of the file where
        its closing brace was expected, or the next entry read as a field of it."""
        if re.fullmatch(r'\d+:\d+ ?: ?Expected "[}>\]]".', message):
            return True
        unknown = re.search(r'Message type "([\w.]+)" has no field named "(\w+)"', message)
        return (unknown is not None and unknown[1] == _ENTRY_TYPES[self.fmt].DESCRIPTOR.full_name
                and unknown[2] in _FILE_TYPES[self.fmt].DESCRIPTOR.fields_by_name)

    def _location(self, line: int, column: int) -> Location:
        """Line `line` of the text as read (multi-line strings joined) at its line in the file."""
        return Location(self.display, self.line_map[line - 1] if 0 < line <= len(self.line_map) else line, column)

    def recover(self, error: OpgenError) -> tuple[str, list[OpgenError], set[int]]:
        """The text with each entry or field that does not parse blanked out, their errors
        and the indices of entries that lost a field. `error` (the whole file's) is raised
        when the file cannot be split into entries and fields."""
        toks = tokens(self.text)
        items = _fields(toks, 0, len(toks))
        if items is None:
            raise error
        errors: list[OpgenError] = []
        partial: set[int] = set()
        blanks: list[tuple[int, int]] = []
        kept = 0
        for first, value_start, value_end, last in items:
            start, end = toks[first][1], toks[last - 1][2]
            entry_error = self.parse_error(start, end, _FILE_TYPES[self.fmt])
            if entry_error is None:
                kept += 1
                continue
            inner = _fields(toks, value_start + 1, value_end - 1) if toks[value_start][0] in "{<" else None
            field_errors, field_blanks = [], []
            for field_first, _, _, field_last in inner or []:
                span = (toks[field_first][1], toks[field_last - 1][2])
                problem = self.parse_error(*span, _ENTRY_TYPES[self.fmt])
                if problem is not None:
                    field_errors.append(problem)
                    field_blanks.append((span[0] - start, span[1] - start))
            rest = _blank(self.text[start:end], field_blanks)
            if field_errors and self.parse_error(start, end, _FILE_TYPES[self.fmt], rest) is None:
                errors.extend(field_errors)
                blanks += [(a + start, b + start) for a, b in field_blanks]
                partial.add(kept)
                kept += 1
            else:  # the entry as a whole is wrong (a brace, a field given twice, ...)
                errors.append(entry_error)
                blanks.append((start, end))
        return _blank(self.text, blanks), errors, partial


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span's characters but newlines replaced by spaces (locations stay)."""
    out, pos = [], 0
    for a, b in sorted(spans):
        out += [text[pos:a], re.sub(r"[^\n]", " ", text[a:b])]
        pos = b
    out.append(text[pos:])
    return "".join(out)


def parse_hint(message: str, fmt: Format, before: str = "") -> str | None:
    """How to fix a text-format parse error: the field or enum value meant (difflib), the
    range of an integer, the format a misplaced field belongs to, the shape of an attr
    value; `before`: the error's line up to it."""
    unknown = re.match(r'Message type "([\w.]+)" has no field named "(\w+)"', message)
    if unknown:
        fields = list(descriptor_pool.Default().FindMessageTypeByName(unknown.group(1)).fields_by_name)
        name = unknown.group(2)
        other = "apidef" if fmt == "opgen" else "opgen"
        if unknown.group(1) in (_ENTRY_TYPES[fmt].DESCRIPTOR.full_name, _FILE_TYPES[fmt].DESCRIPTOR.full_name) \
                and name in _ENTRY_TYPES[other].DESCRIPTOR.fields_by_name:
            return (f"`{name}` is a field of {FORMAT_TITLES[other]} entries: a file with a `graph_op_name` field is "
                    "read as TF ApiDefs, any other as opgen OpGenOverrides")
        return did_you_mean(name, fields, "`") or f"its fields: {', '.join(fields)}"
    enum = re.match(r'Enum type "([\w.]+)" has no value named (\w+)', message)
    if enum:
        values = list(descriptor_pool.Default().FindEnumTypeByName(enum.group(1)).values_by_name)
        return did_you_mean(enum.group(2), values, "") or f"its values: {', '.join(values)}"
    if message == 'Expected "{".' and re.search(r"\b(?:value|default_value)\s*:?\s*\Z", before):
        return ('an attr value is an AttrValue message of one field: value { i: 8 }, { f: 0.5 }, { b: true }, '
                '{ s: "text" }, { type: DT_FLOAT }, { shape { dim { size: 2 } } } or { list { i: [1, 2] } }')
    if message.startswith("Value out of range") and re.search(r"\bi\s*:\s*\Z", before):
        return ("an int attr value (`i`) is a signed 64-bit integer: -9223372036854775808 to "
                "9223372036854775807")
    if message.startswith("Value out of range"):
        return "an enum field takes one of its value names (visibility: HIDDEN), or its number"
    return None


_CLOSING = {"{": "}", "<": ">", "[": "]"}


def _unclosed(text: str) -> int | None:
    """The offset of the innermost brace (`{`, `<`, `[`) `text` opens and never closes, when its
    braces are otherwise balanced; else None."""
    stack = []
    for kind, start, _ in tokens(text):
        if kind in _CLOSING:
            stack.append(start)
        elif kind in ("}", ">", "]") and (not stack or _CLOSING[text[stack.pop()]] != kind):
            return None
    return stack[-1] if stack else None


def _fields(tokens: list[Token], pos: int, end: int) -> list[tuple[int, int, int, int]] | None:
    """The fields in tokens[pos:end] as (first token, value's first token, value's end, end
    with its separator); None when they cannot be told apart (a stray brace, ...)."""
    out = []
    while pos < end:
        first = pos
        if tokens[pos][0] != "word":
            return None
        pos += 1
        if pos < end and tokens[pos][0] == ":":
            pos += 1
        if pos >= end:
            return None
        value = pos
        kind = tokens[pos][0]
        if kind in _CLOSING:
            stack = []
            while pos < end:
                kind = tokens[pos][0]
                if kind in _CLOSING:
                    stack.append(_CLOSING[kind])
                elif kind in ("}", ">", "]") and (not stack or stack.pop() != kind):
                    return None
                pos += 1
                if not stack:
                    break
            if stack:
                return None
        elif kind == "str":
            while pos < end and tokens[pos][0] == "str":
                pos += 1
        elif kind == "-" and pos + 1 < end and tokens[pos + 1][0] == "word":
            pos += 2
        elif kind == "word":
            pos += 1
        else:
            return None
        value_end = pos
        if pos < end and tokens[pos][0] in (",", ";"):
            pos += 1
        out.append((first, value, value_end, pos))
    return out
