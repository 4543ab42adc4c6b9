"""TF's text readers for attr values: C escapes and the generated "proto_text" parser.

* `c_escape` / `c_unescape`: absl `CEscape` / `CUnescape` (octal escapes; absl's error
  texts, e.g. `Unknown escape sequence: \\q`).
* `parse_proto_text(text, msg)`: TF's `ProtoParseFromString`. TF does not read attr
  defaults with stock protobuf text format but with the parser its `tools/proto_text`
  generates per message, whose quirks we reproduce: `#` comments, unknown identifiers
  silently skipped (`i: 1 2` is 1), no adjacent-string concatenation, enum values by
  name or int32 number, numbers via absl `SimpleAtoi` / `SimpleAtof` (no hex, no `1f`,
  one leading zero at most), and a space before `,` ends a list of enums.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor

from opgen_runtime.proto.c_escape import c_escape

__all__ = ["SPACE", "ParseError", "c_escape", "c_unescape", "parse_proto_text", "to_float32"]

# C isspace() / absl::ascii_isspace: the whitespace TF's scanners skip.
SPACE = " \t\n\v\f\r"


class ParseError(ValueError):
    """A C escape sequence TF's CUnescape rejects; `str(e)` is absl's error text."""


# ----------------------------------------------------------------------------- C escapes

_HEX = frozenset(b"0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {
    ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("n"): 10, ord("r"): 13, ord("t"): 9,
    ord("v"): 11, ord("\\"): 92, ord("?"): 63, ord("'"): 39, ord('"'): 34,
}


def c_unescape(src: bytes) -> bytes:
    """absl::CUnescape: C escapes to bytes; raises ParseError with absl's message."""
    if b"\\" not in src:
        return src
    out = bytearray()
    p, n = 0, len(src)
    while p < n:
        c = src[p]
        if c != 0x5C:
            out.append(c)
            p += 1
            continue
        p += 1
        if p >= n:
            raise ParseError("String cannot end with \\")
        c = src[p]
        if c in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[c])
        elif 0x30 <= c <= 0x37:
            start = p
            ch = c - 0x30
            for _ in range(2):
                if p + 1 < n and 0x30 <= src[p + 1] <= 0x37:
                    p += 1
                    ch = ch * 8 + src[p] - 0x30
            if ch > 0xFF:
                raise ParseError(f"Value of \\{src[start:p + 1].decode('latin-1')} exceeds 0xff")
            out.append(ch)
        elif c in (ord("x"), ord("X")):
            if p + 1 >= n:
                raise ParseError("String cannot end with \\x")
            if src[p + 1] not in _HEX:
                raise ParseError("\\x cannot be followed by a non-hex digit")
            start = p
            ch = 0
            while p + 1 < n and src[p + 1] in _HEX:
                p += 1
                ch = (ch << 4) + int(chr(src[p]), 16)
            if ch > 0xFF:
                raise ParseError(f"Value of \\{src[start:p + 1].decode('latin-1')} exceeds 0xff")
            out.append(ch)
        elif c in (ord("u"), ord("U")):
            digits = 4 if c == ord("u") else 8
            start = p
            if p + digits >= n:
                raise ParseError(f"\\{chr(c)} must be followed by {digits} hex digits")
            rune = 0
            for _ in range(digits):
                if src[p + 1] not in _HEX:
                    raise ParseError(f"\\{chr(c)} must be followed by {digits} hex digits: "
                                     f"\\{src[start:p + 1].decode('latin-1')}")
                p += 1
                new = (rune << 4) + int(chr(src[p]), 16)
                if digits == 8 and new > 0x10FFFF:
                    raise ParseError(f"Value of \\{src[start:p + 1].decode('latin-1')} "
                                     "exceeds Unicode limit (0x10FFFF)")
                rune = new
            if 0xD800 <= rune <= 0xDFFF:
                raise ParseError("invalid surrogate character (0xD800-DFFF): "
                                 f"\\{src[start:start + digits + 1].decode('latin-1')}")
            out += chr(rune).encode("utf-8")
        else:
            raise ParseError(f"Unknown escape sequence: \\{chr(c)}")
        p += 1
    return bytes(out)


# ----------------------------------------------------------------------------- proto_text

_RE_SPACE_COMMENTS = re.compile(r"(?:[ \t\n\v\f\r]+|#[^\n]*)*")
_RE_IDENT = re.compile(r"[A-Za-z0-9_]+")
_RE_NUMERIC = re.compile(r"[A-Za-z0-9.+\-]+")
_RE_ENUM = re.compile(r"[A-Za-z0-9\-_]+")
_RE_BOOL = re.compile(r"[A-Za-z0-9]+")
_RE_ATOI = re.compile(r"[+-]?[0-9]{1,25}\Z")  # more digits: out of range for any int field
_RE_ATOF = re.compile(r"-?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))\Z")
_RE_HEX_FLOAT = re.compile(r"-?0[xX](?:[0-9A-Fa-f]+\.?[0-9A-Fa-f]*|\.[0-9A-Fa-f]+)(?:[pP][+-]?[0-9]+)?\Z")
_BOOLS = {"true": True, "True": True, "1": True, "false": False, "False": False, "0": False}

_INT_RANGES = {
    FieldDescriptor.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
}
_FLOAT_TYPES = (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE)


class _Fail(Exception):
    """Internal: the proto_text parser returned false."""


def to_float32(x: float) -> float:
    """Round a double to the nearest float32 (overflow gives +-inf, like SimpleAtof)."""
    try:
        rounded: float = struct.unpack("<f", struct.pack("<f", x))[0]  # typed: unpack gives Any
        return rounded
    except OverflowError:
        return math.copysign(math.inf, x)


def _atoi(text: str, lo: int, hi: int) -> int:
    if not _RE_ATOI.match(text):
        raise _Fail
    v = int(text)
    if not lo <= v <= hi:
        raise _Fail
    return v


def _atof(text: str) -> float:
    """The double TF's proto_text reads (`SafeStringToNumeric`; a float field is then cast):
    one leading '+' is skipped ("+-1" is rejected), then a decimal, `inf`/`infinity`/`nan`, or
    a hexadecimal number (`0x10`, `0x1.8p1`: measured against TF 2.21's OpDefBuilder)."""
    if text.startswith("+"):
        text = text[1:]
        if text.startswith("-"):
            raise _Fail
    if _RE_ATOF.match(text):
        return float(text)
    if not _RE_HEX_FLOAT.match(text):
        raise _Fail
    try:
        return float.fromhex(text)  # correctly rounded, as strtod
    except OverflowError:  # past the double range: infinity, as strtod
        return -math.inf if text.startswith("-") else math.inf


class _ProtoText:
    """The parser TF's `tools/proto_text` generates for every proto, driven by descriptors."""

    __slots__ = ("n", "s")

    def __init__(self, s: str):
        self.s = s
        self.n = len(s)

    def skip(self, i: int) -> int:
        return _RE_SPACE_COMMENTS.match(self.s, i).end()  # type: ignore[union-attr]

    def peek(self, i: int) -> str:
        return self.s[i] if i < self.n else "\0"

    def message(self, i: int, nested: bool, close: str, msg: Any) -> int:
        desc = msg.DESCRIPTOR
        seen: set[str] = set()
        map_entry = desc.GetOptions().map_entry
        while True:
            i = self.skip(i)
            if nested and self.peek(i) == close:
                return self.skip(i + 1)
            if not nested and i >= self.n:
                return i
            m = _RE_IDENT.match(self.s, i)
            if m is None:
                raise _Fail
            ident = m.group()
            i = self.skip(m.end())
            colon = False
            if self.peek(i) == ":":
                colon = True
                i = self.skip(i + 1)
            field = desc.fields_by_name.get(ident)
            if field is None:
                continue  # TF's generated parser has no `else`: unknown names are skipped
            if field.is_repeated:
                is_list = self.peek(i) == "["
                while True:
                    if is_list:
                        if i >= self.n:
                            raise _Fail
                        i = self.skip(i + 1)
                    i = self.repeated_value(i, colon, msg, field)
                    if not (is_list and self.peek(i) == ","):
                        break
                if is_list:
                    if self.peek(i) != "]":
                        raise _Fail
                    i += 1
                continue
            oneof = field.containing_oneof
            if oneof is not None and not map_entry and msg.WhichOneof(oneof.name) is not None:
                raise _Fail
            if not map_entry:
                if ident in seen:
                    raise _Fail
                seen.add(ident)
            i = self.singular_value(i, colon, msg, field)

    def nested(self, i: int, sub: Any) -> int:
        open_char = self.peek(i)
        if open_char not in "{<" or i >= self.n:
            raise _Fail
        return self.message(self.skip(i + 1), True, "}" if open_char == "{" else ">", sub)

    def scalar(self, i: int, colon: bool, field: FieldDescriptor) -> tuple[Any, int]:
        if not colon:
            raise _Fail
        cpp = field.cpp_type
        if cpp == FieldDescriptor.CPPTYPE_STRING:
            quote = self.peek(i)
            if quote not in "'\"" or i >= self.n:
                raise _Fail
            j = i + 1
            s = self.s
            while True:
                if j >= self.n:
                    raise _Fail
                c = s[j]
                if c == quote:
                    break
                j += 1
                if c == "\\":
                    if j >= self.n:
                        raise _Fail
                    j += 1
            raw = s[i + 1:j].encode("utf-8")
            i = self.skip(j + 1)
            try:
                value: Any = c_unescape(raw)
            except ParseError:
                raise _Fail from None
            if field.type == FieldDescriptor.TYPE_STRING:
                try:
                    value = value.decode("utf-8")
                except UnicodeDecodeError:
                    raise _Fail from None
            return value, i
        if cpp == FieldDescriptor.CPPTYPE_ENUM:
            m = _RE_ENUM.match(self.s, i)
            if m is None:
                raise _Fail
            text = m.group()
            ev = field.enum_type.values_by_name.get(text)
            value = ev.number if ev is not None else _atoi(text, -(2**31), 2**31 - 1)
            return value, m.end()
        if cpp == FieldDescriptor.CPPTYPE_BOOL:
            m = _RE_BOOL.match(self.s, i)
            if m is None or m.group() not in _BOOLS:
                raise _Fail
            return _BOOLS[m.group()], self.skip(m.end())
        # Numbers: capture [A-Za-z0-9.+-]+, reject multiple leading zeros, then absl.
        m = _RE_NUMERIC.match(self.s, i)
        if m is None:
            raise _Fail
        text = m.group()
        zeros = 0
        for ch in text:
            if ch == "0":
                zeros += 1
                if zeros > 1:
                    raise _Fail
            elif ch != "-":
                break
        i = self.skip(m.end())
        if cpp in _FLOAT_TYPES:
            v = _atof(text)
            return (to_float32(v) if cpp == FieldDescriptor.CPPTYPE_FLOAT else v), i
        lo, hi = _INT_RANGES[cpp]
        return _atoi(text, lo, hi), i

    def singular_value(self, i: int, colon: bool, msg: Any, field: FieldDescriptor) -> int:
        if field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
            if isinstance(msg, _MapEntry):
                return self.nested(i, msg.value_message())
            sub = getattr(msg, field.name)
            i = self.nested(i, sub)
            sub.SetInParent()
            return i
        value, i = self.scalar(i, colon, field)
        setattr(msg, field.name, value)
        return i

    def repeated_value(self, i: int, colon: bool, msg: Any, field: FieldDescriptor) -> int:
        container = getattr(msg, field.name)
        if field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
            entry_type = field.message_type
            if entry_type.GetOptions().map_entry:
                entry = _MapEntry(entry_type)
                i = self.nested(i, entry)
                entry.store(container)
                return i
            return self.nested(i, container.add())
        value, i = self.scalar(i, colon, field)
        container.append(value)
        return i


class _MapEntry:
    """One `attr { key: ... value { ... } }` block: TF requires both key and value."""

    def __init__(self, entry_type: Any):
        self.DESCRIPTOR = entry_type
        self.key: Any = None
        self.value: Any = None

    def value_message(self) -> Any:
        if self.value is None:
            value_type = self.DESCRIPTOR.fields_by_name["value"].message_type
            self.value = message_factory.GetMessageClass(value_type)()
        return self.value

    def store(self, container: Any) -> None:
        if self.key is None or self.value is None:
            raise _Fail
        container[self.key].CopyFrom(self.value)


def _parse_into(text: str, msg: Any) -> bool:
    try:
        _ProtoText(text).message(0, False, "", msg)
    except _Fail:
        return False
    return True


def parse_proto_text(text: str, msg: Any) -> bool:
    """TF's `ProtoParseFromString(text, &msg)`: clears `msg`, fills it, False on any error."""
    msg.Clear()
    return _parse_into(text, msg)
