"""A linear-time reader for the protobuf text format, for OpList files.

protobuf's `text_format.Parse` is pure Python in the upb build and reads a 10 MB OpList in
about 15 s: its tokenizer makes several Python calls per token. `read_text_message` writes
the wire format of the same message instead and has protobuf's C parser read it. Lines as
`text_format.MessageToString` writes them (`name {`, `}`, `name: value`) are read with
string methods, each distinct line of a message type converted once; any other text with
one compiled regex match per field (`_STEP`: name, `:`, value and separator). Values are
converted with text_format's own `ParseInteger` / `ParseFloat` / `ParseBool` / `ParseEnum`
and escaped strings with `text_encoding.CUnescape`, and the checks of
`text_format._Parser._MergeField` are made (a singular field met twice, two members of a
oneof), so the message is the one `text_format.Parse` builds. It takes every form
`text_format.Parse` takes for a message without extensions or `Any`: `#` comments, `{}` and
`<>` delimiters, `:` before a message or not, repeated fields as `f: a f: b` or
`f: [a, b]`, adjacent strings, `,` or `;` after a field. It reports no error: on anything
else (a syntax or value error, a duplicate field, extension or `Any` syntax, nesting beyond
`MAX_TEXT_NESTING`) it raises `Unread` saying where it stopped, and the caller asks
`text_format.Parse` for the verdict (`protobuf_error` reads just the top-level field where
the reader stopped).
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any, NamedTuple

from google.protobuf import text_encoding, text_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError

from opgen.limits import MAX_TEXT_NESTING

__all__ = ["Unread", "protobuf_error", "read_text_message"]

# text_format.Tokenizer's whitespace and comments (`(\s|(#.*$))+` on each line; lines are
# split at "\n" only). A comment runs to the end of its line: the lookahead keeps the regex
# from backtracking into a comment and reading its text as fields.
_WS = r"\s*(?:#[^\n]*(?![^\n])\s*)*"
# Tokenizer._TOKEN's identifier and number alternatives, in its order (the first that
# matches is the token), and its quoted strings, here only the terminated ones.
_WORD = r"[a-zA-Z_][0-9a-zA-Z_+-]*|(?:[0-9+-]|\.[0-9])[0-9a-zA-Z_.+-]*"
_STRING = r""""[^"\n\\]*(?:\\.[^"\n\\]*)*"|'[^'\n\\]*(?:\\.[^'\n\\]*)*'"""
_VALUE = rf"(?P<strings>(?P<first>{_STRING})(?:{_WS}(?:{_STRING}))*)|(?P<word>{_WORD})"
# One step of a message's body: the end of the message, or a field: its name, an optional
# `:`, then an opening bracket or a scalar value, and the optional `,`/`;` after the field
# (after a message field it follows the closing bracket).
_STEP = re.compile(
    rf"{_WS}(?:(?P<close>[}}>])(?:{_WS}[,;])?|(?P<name>[a-zA-Z_][0-9a-zA-Z_+-]*){_WS}(?P<colon>:)?{_WS}"
    rf"(?:(?P<open>[{{<\[])|(?:{_VALUE})(?:{_WS}[,;])?))"
)
_LIST_VALUE = re.compile(rf"{_WS}(?:{_VALUE})")
_LIST_MESSAGE = re.compile(rf"{_WS}(?P<open>[{{<])")
_LIST_NEXT = re.compile(rf"{_WS}(?:(?P<comma>,)|\](?:{_WS}[,;])?)")
_LIST_EMPTY = re.compile(rf"{_WS}\](?:{_WS}[,;])?")
_END = re.compile(rf"{_WS}\Z")
_SEPARATOR = re.compile(rf"{_WS}[,;]")
_ONE_STRING = re.compile(rf"{_STRING}|#[^\n]*")
_WORD_ONLY = re.compile(_WORD)
# A token of text_format.Tokenizer (a lone character when nothing else matches).
_TOKEN = re.compile(rf"{_WS}(?:{_WORD}|[\"'][^\n]*|\S)")

_MESSAGE, _STR, _BYTES, _ENUM, _BOOL, _FLOAT, _INT = range(7)
_T = FieldDescriptor
_INT_TYPES = {
    _T.TYPE_INT32: (True, False), _T.TYPE_SINT32: (True, False), _T.TYPE_SFIXED32: (True, False),
    _T.TYPE_INT64: (True, True), _T.TYPE_SINT64: (True, True), _T.TYPE_SFIXED64: (True, True),
    _T.TYPE_UINT32: (False, False), _T.TYPE_FIXED32: (False, False),
    _T.TYPE_UINT64: (False, True), _T.TYPE_FIXED64: (False, True),
}
# Scalar types written other than as a varint: struct format and wire type.
_PACKED = {
    _T.TYPE_FIXED32: ("<I", 5), _T.TYPE_SFIXED32: ("<i", 5), _T.TYPE_FLOAT: ("<f", 5),
    _T.TYPE_FIXED64: ("<Q", 1), _T.TYPE_SFIXED64: ("<q", 1), _T.TYPE_DOUBLE: ("<d", 1),
}
_SMALL_VARINTS = [bytes([n]) for n in range(128)]


def _varint(n: int) -> bytes:
    """Base-128 varint of 0 <= n < 2**64."""
    if n < 128:
        return _SMALL_VARINTS[n]
    out = bytearray()
    while n > 127:
        out.append(n & 127 | 128)
        n >>= 7
    out.append(n)
    return bytes(out)


class Unread(Exception):
    """The reader stopped: `offset` is where the step it could not read starts, `top` where the
    top-level field around it starts."""

    def __init__(self, offset: int, top: int):
        super().__init__(offset, top)
        self.offset = offset
        self.top = top


class _Field(NamedTuple):
    name: str
    kind: int
    repeated: bool
    check: int  # what text_format checks before setting it: _NONE, _TRUTH or _FULL (see _seen_before)
    oneof: str | None  # "(name)" of its oneof: a key of _Frame.seen no field name can be
    descriptor: FieldDescriptor
    key: bytes  # its tag (number and wire type) as a varint
    enum_numbers: dict[str, int]
    int_form: tuple[bool, bool]  # (signed, 64-bit) for integers
    table: _Table  # a message field's message's


class _Table(NamedTuple):
    """A message type's fields by name, and its message fields by the line `MessageToString`
    opens them with (`name {`); `number` numbers the tables (one cache of lines per table)."""

    fields: dict[str, _Field]
    opens: dict[str, _Field]
    number: int


_NONE, _TRUTH, _FULL = range(3)
_TABLES: dict[Descriptor, _Table] = {}


def _table(message_type: Descriptor) -> _Table:
    """The fields text_format finds by name in `message_type` (`fields_by_name`: groups, which
    it also finds by type name, are not in the protos an OpList uses; the reader stops there)."""
    table = _TABLES.get(message_type)
    if table is not None:
        return table
    table = _TABLES[message_type] = _Table({}, {}, len(_TABLES))  # before the types it contains
    for f in message_type.fields:
        if f.type == _T.TYPE_GROUP:
            continue
        wire = 2
        if f.message_type is not None:  # a map too: its entries are messages on the wire
            kind = _MESSAGE
        elif f.type == _T.TYPE_STRING:
            kind = _STR
        elif f.type == _T.TYPE_BYTES:
            kind = _BYTES
        else:
            kind = {_T.TYPE_ENUM: _ENUM, _T.TYPE_BOOL: _BOOL, _T.TYPE_FLOAT: _FLOAT,
                    _T.TYPE_DOUBLE: _FLOAT}.get(f.type, _INT)
            wire = _PACKED[f.type][1] if f.type in _PACKED else 0
        oneof = f"({f.containing_oneof.name})" if f.containing_oneof is not None else None
        if f.is_repeated:
            check = _NONE
        elif oneof is None and kind != _MESSAGE and not f.has_presence:
            check = _TRUTH
        else:
            check = _FULL
        enums = {v.name: v.number for v in f.enum_type.values} if f.enum_type is not None else {}
        field = _Field(f.name, kind, f.is_repeated, check, oneof, f, _varint(f.number << 3 | wire), enums,
                       _INT_TYPES.get(f.type, (True, True)),
                       _table(f.message_type) if f.message_type is not None else _EMPTY)
        table.fields[f.name] = field
        if kind == _MESSAGE:
            table.opens[f.name + " {"] = field
    return table


_EMPTY = _Table({}, {}, -1)


def _value(field: _Field, strings: str | None, single: bool, word: str | None) -> Any:
    """The value of a scalar field as text_format's `_MergeScalarField` converts it: from a run
    of adjacent `strings` (`single`: just one) or a `word`; raises ValueError (UnicodeDecodeError
    among them) where it raises ParseError."""
    kind = field.kind
    if kind in (_STR, _BYTES):
        if strings is None:
            raise ValueError("not a string")
        if single:
            pieces = [strings[1:-1]]
        else:
            pieces = [s[1:-1] for s in _ONE_STRING.findall(strings) if s[0] != "#"]
        data = b"".join(text_encoding.CUnescape(p) if "\\" in p else p.encode("utf-8") for p in pieces)
        return data.decode("utf-8") if kind == _STR else data
    if word is None:
        raise ValueError("not a word")
    if kind == _ENUM:
        number = field.enum_numbers.get(word)
        if number is None:
            number = text_format.ParseEnum(field.descriptor, word)
            if not -(1 << 31) <= number < 1 << 31:  # what setattr refuses
                raise ValueError("enum number out of range")
        return number
    if kind == _INT:
        signed, long = field.int_form
        return text_format.ParseInteger(word, is_signed=signed, is_long=long)
    if kind == _FLOAT:
        return text_format.ParseFloat(word)
    return text_format.ParseBool(word)


def _encode(field: _Field, value: Any) -> tuple[bytes, bool]:
    """The field with `value` on the wire, and whether the value is not its type's default
    (protobuf's `decoder.IsDefaultScalarValue`: -0.0 is not)."""
    kind = field.kind
    if kind in (_STR, _BYTES):
        data = value.encode("utf-8") if kind == _STR else value
        return field.key + _varint(len(data)) + data, bool(data)
    t = field.descriptor.type
    if t in _PACKED:
        try:
            data = struct.pack(_PACKED[t][0], value)
        except (OverflowError, struct.error):  # beyond float: protobuf stores it its own way
            raise ValueError("out of range") from None
        return field.key + data, bool(value) or math.copysign(1.0, value) < 0
    number = int(value)
    if t in (_T.TYPE_SINT32, _T.TYPE_SINT64):
        number = number << 1 ^ number >> 63
    return field.key + _varint(number & 0xFFFF_FFFF_FFFF_FFFF), bool(number)


def _seen_before(seen: dict[str, str], field: _Field, set_value: bool) -> bool:
    """Whether text_format.Parse rejects `field` here ("should not have multiple" a singular
    field whose presence is set, or one of another oneof member): `seen` holds what is set;
    records the field when `set_value` (a value that is not the default, for fields without
    presence)."""
    name = field.name
    if name in seen:
        return True
    oneof = field.oneof
    if oneof is not None:
        if seen.get(oneof, name) != name:
            return True
        seen[oneof] = name
    if set_value or field.check == _FULL:
        seen[name] = name
    return False


class _Frame(NamedTuple):
    table: _Table
    cache: dict[str, tuple[_Field, bytes, bool]]  # what the lines read so far mean in its message type
    end: str  # the closing bracket ("\n", which no stripped line equals, for the top level)
    depth: int  # brackets open around the message's fields, `[` included (text_nesting_problem's count)
    in_list: bool  # an element of `field: [...]`
    seen: dict[str, str]  # for _seen_before
    header: int  # index in the output of the message's tag and length, written when it ends
    field: _Field | None  # the field the message is


# A _Frame built without NamedTuple's constructor, a Python function.
_new_tuple = tuple.__new__


class _Output:
    """The wire format being written, and the line caches of one read."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        # What a line means in a message of each table: an opening `name {` (no bytes), or
        # a scalar field on the wire and whether its value is not the default.
        self.caches: list[dict[str, tuple[_Field, bytes, bool]]] = [{} for _ in range(len(_TABLES))]
        for table in _TABLES.values():
            self.caches[table.number].update((line, (field, b"", True)) for line, field in table.opens.items())

    def open(self, field: _Field, bracket: str, in_list: bool, depth: int) -> _Frame:
        """Start the message of `field` (its tag and length are written when it ends)."""
        self.chunks.append(b"")
        table = field.table
        return _Frame(table, self.caches[table.number], ">" if bracket == "<" else "}", depth, in_list, {},
                      len(self.chunks) - 1, field)

    def close(self, frame: _Frame) -> None:
        """End the message of `frame`: its tag and length before it."""
        chunks = self.chunks
        h = frame.header
        assert frame.field is not None
        chunks[h] = frame.field.key + _varint(sum(map(len, chunks[h + 1:])))


def read_text_message(text: str, message: Any) -> list[int]:
    """Merge text-format `text` into the empty `message` as `text_format.Parse` would; the
    offsets of its top-level fields (one per name, a list counting once). Raises `Unread`
    when `text_format.Parse` must decide."""
    table = _table(message.DESCRIPTOR)
    out = _Output()
    chunks = out.chunks
    caches = out.caches
    root = _Frame(table, caches[table.number], "\n", 0, False, {}, -1, None)
    frame = root
    stack: list[_Frame] = []
    starts: list[int] = []
    top = pos = 0
    raw = text.split("\n")
    lines = list(map(str.strip, raw))
    count = len(lines)
    i = known = 0  # lines[known] starts at `pos`
    step = _STEP.match
    while True:
        table, cache, closing, depth, in_list, seen, header, closing_field = frame
        for i in range(known, count):  # a line at a time
            line = lines[i]
            if line == closing:
                if in_list:
                    break
                n = sum(map(len, chunks[header + 1:]))
                assert closing_field is not None  # the top level is not closed
                chunks[header] = closing_field.key + (_SMALL_VARINTS[n] if n < 128 else _varint(n))
                frame = stack.pop()
                table, cache, closing, depth, in_list, seen, header, closing_field = frame
                continue
            hit = cache.get(line)
            if hit is None:
                if not line or line[0] == "#":
                    continue
                hit = _line_scalar(table, line) if depth else None
                if hit is None:
                    break
                cache[line] = hit
            field, data, set_value = hit
            check = field.check
            if check:
                if check == _TRUTH:  # the common case of _seen_before
                    if field.name in seen:
                        break
                    if set_value:
                        seen[field.name] = field.name
                elif _seen_before(seen, field, set_value):
                    break
            if data:
                chunks.append(data)
                continue
            if depth >= MAX_TEXT_NESTING:  # a message field's `name {`
                break
            if not depth:
                pos += sum(map(len, raw[known:i])) + i - known
                known = i
                top = pos + len(raw[i]) - len(raw[i].lstrip())
                starts.append(top)
            stack.append(frame)
            header = len(chunks)
            chunks.append(b"")
            table = field.table
            depth += 1
            frame = _new_tuple(_Frame, (table, caches[table.number], "}", depth, False, {}, header, field))
            cache, closing, in_list, seen, closing_field = frame[1], "}", False, frame[5], field
        else:
            i = count
        pos += sum(map(len, raw[known:i])) + i - known
        known = i
        if i == count:
            if frame is not root:
                raise Unread(len(text), top)
            break
        entry = pos
        while True:  # a step at a time, until one ends a line
            m = step(text, pos)
            if m is None:
                if frame is root and _END.match(text, pos):
                    i = count
                    break
                # At the top level, a `,` or `;` may end the field before it (read by lines,
                # without it): that field is where text_format's verdict starts.
                raise Unread(pos, top if stack or (starts and _SEPARATOR.match(text, pos)) else pos)
            close = m.group("close")
            if close is not None:
                if close != frame.end:
                    raise Unread(pos, top)
                out.close(frame)
                closed, frame = frame, stack.pop()
                if closed.in_list:
                    after, frame = _list_rest(out, text, m.end("close"), frame, closed.field, stack, top)
                else:
                    after = m.end()
            else:
                at_root = frame is root
                after, frame = _step_field(out, text, m, frame, root, stack, starts, top)
                if at_root:
                    top = starts[-1]
            end = text.find("\n", after)
            if end >= 0 and (end == after or text[after:end].isspace()):
                i = known = i + text.count("\n", entry, end + 1)
                pos = end + 1
                break
            pos = after
        if i == count:
            break
    try:
        message.MergeFromString(b"".join(chunks))
    except DecodeError:  # not expected: the reader wrote it
        raise Unread(0, 0) from None
    return starts


def _line_scalar(table: _Table, line: str) -> tuple[_Field, bytes, bool] | None:
    """A `name: value` line as `MessageToString` writes it (one string without escapes, or a
    word), on the wire; None for any other line."""
    name, colon, value = line.partition(": ")
    field = table.fields.get(name)
    if field is None or not colon or field.kind == _MESSAGE:
        return None
    try:
        if field.kind == _STR or field.kind == _BYTES:
            if value[0] != '"' or value[-1] != '"' or value.count('"') != 2 or "\\" in value:
                return None
            scalar = _value(field, value, True, None)
        elif _WORD_ONLY.fullmatch(value):
            scalar = _value(field, None, False, value)
        else:
            return None
        data, set_value = _encode(field, scalar)
    except ValueError:  # `_STEP` stops there
        return None
    return field, data, set_value


def _step_field(out: _Output, text: str, m: re.Match[str], frame: _Frame, root: _Frame, stack: list[_Frame],
                starts: list[int], top: int) -> tuple[int, _Frame]:
    """A field read by `_STEP`: the position after it and the frame it leaves open."""
    pos = m.start()
    field = frame.table.fields.get(m.group("name"))
    if field is None:
        raise Unread(pos, top if stack else pos)
    if frame is root:
        top = m.start("name")
        starts.append(top)
    opened = m.group("open")
    if opened == "[":
        if not field.repeated or (field.kind != _MESSAGE and m.group("colon") is None):
            raise Unread(pos, top)
        return _list_start(out, text, m.end(), frame, field, stack, top)
    if field.kind == _MESSAGE:
        if opened is None or frame.depth >= MAX_TEXT_NESTING or (
                field.check and _seen_before(frame.seen, field, True)):
            raise Unread(pos, top)
        stack.append(frame)
        return m.end(), out.open(field, opened, False, frame.depth + 1)
    if opened is not None or m.group("colon") is None:
        raise Unread(pos, top)
    try:
        data, set_value = _encode(field, _value(field, m.group("strings"), m.end("first") == m.end("strings"),
                                                m.group("word")))
    except ValueError:  # a value text_format rejects
        raise Unread(pos, top) from None
    if field.check and _seen_before(frame.seen, field, set_value):
        raise Unread(pos, top)
    out.chunks.append(data)
    return m.end(), frame


def _list_start(out: _Output, text: str, pos: int, frame: _Frame, field: _Field, stack: list[_Frame],
                top: int) -> tuple[int, _Frame]:
    """After `field: [`: an empty list, all of a list of scalars, or the first message of a list."""
    if frame.depth >= MAX_TEXT_NESTING:
        raise Unread(pos, top)
    empty = _LIST_EMPTY.match(text, pos)
    if empty is not None:
        return empty.end(), frame
    if field.kind == _MESSAGE:
        return _list_message(out, text, pos, frame, field, stack, top)
    while True:
        value = _LIST_VALUE.match(text, pos)
        if value is None:
            raise Unread(pos, top)
        try:
            data, _ = _encode(field, _value(field, value.group("strings"), value.end("first") == value.end("strings"),
                                            value.group("word")))
        except ValueError:
            raise Unread(value.start(), top) from None
        out.chunks.append(data)
        after = _LIST_NEXT.match(text, value.end())
        if after is None:
            raise Unread(value.end(), top)
        pos = after.end()
        if after.group("comma") is None:
            return pos, frame


def _list_message(out: _Output, text: str, pos: int, frame: _Frame, field: _Field, stack: list[_Frame],
                  top: int) -> tuple[int, _Frame]:
    m = _LIST_MESSAGE.match(text, pos)
    if m is None or frame.depth + 2 > MAX_TEXT_NESTING:
        raise Unread(pos, top)
    stack.append(frame)
    return m.end(), out.open(field, m.group("open"), True, frame.depth + 2)


def _list_rest(out: _Output, text: str, pos: int, frame: _Frame, field: _Field | None, stack: list[_Frame],
               top: int) -> tuple[int, _Frame]:
    """After a message of `field: [...]`: the next one, or the end of the list."""
    after = _LIST_NEXT.match(text, pos)
    if after is None or field is None:
        raise Unread(pos, top)
    if after.group("comma") is None:
        return after.end(), frame
    return _list_message(out, text, after.end(), frame, field, stack, top)


def protobuf_error(text: str, stop: Unread, message_class: Any) -> text_format.ParseError | None:
    """`text_format.Parse`'s error for `text`, read from the top-level field where the reader
    stopped to a few tokens past the stop (line and column those of `text`); None when that
    piece parses or ends too soon to tell (the caller parses all of `text`). The piece starts
    on its line's column, after spaces; protobuf's quote of that line is replaced by the line."""
    end = stop.offset
    for _, m in zip(range(8), _TOKEN.finditer(text, stop.offset)):
        end = m.end()
    cut = text.find("\n", end)
    cut = len(text) if cut < 0 else cut
    line_start = text.rfind("\n", 0, stop.top) + 1
    piece = " " * (stop.top - line_start) + text[stop.top:cut]
    try:
        text_format.Parse(piece, message_class())
    except text_format.ParseError as e:
        detail = re.sub(r"^\d+:\d+ : ", "", str(e))
        at_end = detail.startswith("'': ") or detail in ('Expected "}".', 'Expected ">".')
        if at_end and cut < len(text):
            return None
        line = e.GetLine()
        if line is None:
            return text_format.ParseError(detail)
        if line == 1:
            first = piece.split("\n", 1)[0]
            line_end = text.find("\n", line_start)
            real = text[line_start:line_end if line_end >= 0 else len(text)]
            if detail.startswith(f"'{first}': "):
                detail = f"'{real}': " + detail[len(first) + 4:]
        return text_format.ParseError(detail, line + text.count("\n", 0, line_start), e.GetColumn())
    except ValueError as e:  # protobuf's own for a value its field cannot hold (an enum number past int32)
        line = text.count("\n", 0, stop.offset) + 1
        return text_format.ParseError(str(e), line, stop.offset - text.rfind("\n", 0, stop.offset))
    return None
