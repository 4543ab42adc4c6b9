"""Attr values as text, exactly as TensorFlow 2.21 reads and prints them.

* `parse_attr_value(attr_type, text)`: C++ `ParseAttrValue`, used for attr defaults
  (`Attr("x: int = 3")`, tf_semantics.md A7). TF does not use stock protobuf text format
  here but its own generated "proto_text" parser, whose quirks we reproduce: `#` comments,
  unknown identifiers silently skipped (`int = 1 2` is 1), no adjacent-string
  concatenation, enum values by name or int32 number, numbers via absl `SimpleAtoi` /
  `SimpleAtof` (no hex, no `1f`), a space before `,` ends a list of enums.
* `c_escape` / `c_unescape`: absl `CEscape` / `CUnescape` (octal escapes, absl's error texts).
* `summarize_attr_value` / `summarize_op_def`: C++ `SummarizeAttrValue` / `SummarizeOpDef`
  (tf_semantics.md D7, checked against TF 2.21's OpDefCompatible messages), the one-line
  forms used in compatibility messages; `format_float` is TF's float-to-text.

Everything here is pure Python over opgen's own protos; renderers and apidiff reuse it.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor

from opgen.fingerprint import fingerprint64
from opgen.proto import attr_value_pb2, op_def_pb2, tensor_shape_pb2
from opgen.proto.datatypes import cpp_name, enum_name

__all__ = [
    "ParseError",
    "c_escape",
    "c_unescape",
    "format_float",
    "parse_attr_value",
    "parse_proto_text",
    "summarize_attr_value",
    "summarize_op_def",
    "summarize_shape",
]

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


def _build_escape_table() -> list[str]:
    table = []
    for b in range(256):
        if b == 10:
            table.append("\\n")
        elif b == 13:
            table.append("\\r")
        elif b == 9:
            table.append("\\t")
        elif b == 34:
            table.append('\\"')
        elif b == 39:
            table.append("\\'")
        elif b == 92:
            table.append("\\\\")
        elif 0x20 <= b < 0x7F:
            table.append(chr(b))
        else:
            table.append(f"\\{b // 64}{(b % 64) // 8}{b % 8}")
    return table


_ESCAPE = _build_escape_table()


def c_escape(data: bytes | str) -> str:
    """absl::CEscape: `\\n \\r \\t \\" \\' \\\\` and 3-digit octal for non-printable bytes."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return "".join([_ESCAPE[b] for b in data])


# ----------------------------------------------------------------------------- proto_text

_RE_SPACE_COMMENTS = re.compile(r"(?:[ \t\n\v\f\r]+|#[^\n]*)*")
_RE_IDENT = re.compile(r"[A-Za-z0-9_]+")
_RE_NUMERIC = re.compile(r"[A-Za-z0-9.+\-]+")
_RE_ENUM = re.compile(r"[A-Za-z0-9\-_]+")
_RE_BOOL = re.compile(r"[A-Za-z0-9]+")
_RE_ATOI = re.compile(r"[+-]?[0-9]+\Z")
_RE_ATOF = re.compile(r"-?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))\Z")
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
        return struct.unpack("<f", struct.pack("<f", x))[0]
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
    # absl SimpleAtof: one leading '+' is skipped ("+-1" is rejected), then from_chars.
    if text.startswith("+"):
        text = text[1:]
        if text.startswith("-"):
            raise _Fail
    if not _RE_ATOF.match(text):
        raise _Fail
    return float(text)


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


# ----------------------------------------------------------------------------- ParseAttrValue

_FIELD_FOR_TYPE = (
    ("string", "s"), ("int", "i"), ("float", "f"), ("bool", "b"), ("type", "type"),
    ("shape", "shape"), ("tensor", "tensor"), ("func", "func"), ("placeholder", "placeholder"),
)
_MAX_TENSOR_NEST_DEPTH = 100


def _field_for_type(attr_type: str) -> tuple[str, bool] | None:
    is_list = attr_type.startswith("list(")
    rest = attr_type[5:] if is_list else attr_type
    for prefix, field in _FIELD_FOR_TYPE:
        if rest.startswith(prefix):
            rest = rest[len(prefix):]
            break
    else:
        return None
    if is_list and not rest.startswith(")"):
        return None
    return field, is_list


def _tensor_nests_under_limit(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch in "{<":
            depth += 1
            if depth >= _MAX_TENSOR_NEST_DEPTH:
                return False
        elif ch in "}>":
            depth -= 1
    return True


def parse_attr_value(attr_type: str, text: str) -> attr_value_pb2.AttrValue | None:
    """C++ `ParseAttrValue(type, text)`: the AttrValue for a default's text, or None.

    `attr_type` is an AttrDef type (`int`, `list(shape)`, ...). Lists must be written in
    brackets (`[1, 2]`, `[]`); scalars are the text of the proto field (`3`, `"a"`,
    `DT_INT32`, `{ dim { size: 2 } }`).
    """
    found = _field_for_type(attr_type)
    if found is None:
        return None
    field, is_list = found
    out = attr_value_pb2.AttrValue()
    if is_list:
        cleaned = text.strip(SPACE)
        if len(cleaned) < 2 or cleaned[0] != "[" or cleaned[-1] != "]":
            return None
        if len(cleaned[1:].lstrip(SPACE)) == 1:
            out.list.SetInParent()
            return out
        to_parse = f"list {{ {field}: {text} }}"
    else:
        fast = _fast_scalar(field, text)
        if fast is not None:
            return fast
        to_parse = f"{field}: {text}"
    if field == "tensor" and not _tensor_nests_under_limit(to_parse):
        return None
    return out if _parse_into(to_parse, out) else None


_RE_FAST_INT = re.compile(r"(-?(?:0|[1-9][0-9]*))[ \t\n\v\f\r]*\Z")
_RE_FAST_ENUM = re.compile(r"(DT_[A-Z0-9_]+)[ \t\n\v\f\r]*\Z")
_RE_FAST_BOOL = re.compile(r"(true|false)[ \t\n\v\f\r]*\Z")
_RE_FAST_STR = re.compile(r'"([^"\\#]*)"[ \t\n\v\f\r]*\Z')
_DATATYPE_VALUES = attr_value_pb2.AttrValue.DESCRIPTOR.fields_by_name["type"].enum_type.values_by_name


def _fast_scalar(field: str, text: str) -> attr_value_pb2.AttrValue | None:
    """The common defaults without the general parser (same result, ~10x faster)."""
    if field == "i":
        m = _RE_FAST_INT.match(text)
        if m and -(2**63) <= (v := int(m.group(1))) < 2**63:
            return attr_value_pb2.AttrValue(i=v)
    elif field == "b":
        m = _RE_FAST_BOOL.match(text)
        if m:
            return attr_value_pb2.AttrValue(b=m.group(1) == "true")
    elif field == "type":
        m = _RE_FAST_ENUM.match(text)
        if m and (ev := _DATATYPE_VALUES.get(m.group(1))) is not None:
            return attr_value_pb2.AttrValue(type=ev.number)
    elif field == "s":
        m = _RE_FAST_STR.match(text)
        if m:
            return attr_value_pb2.AttrValue(s=m.group(1).encode("utf-8"))
    return None


# ----------------------------------------------------------------------------- Summaries


def format_float(x: float) -> str:
    """TF's `strings::StrCat(float)` (FloatToBuffer): `%.6g`, or `%.9g` when that does not
    read back as the same float32: `0.1`, `1e-05`, `1234567`, `inf`, `nan`."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    text = f"{x:.6g}"
    if to_float32(float(text)) != to_float32(x):
        text = f"{x:.9g}"
    return text


def format_double(x: float) -> str:
    """TF's `strings::StrCat(double)` (DoubleToBuffer): `%.15g`, else `%.17g`."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    text = f"{x:.15g}"
    if float(text) != x:
        text = f"{x:.17g}"
    return text


def _summarize_string(data: bytes) -> str:
    escaped = c_escape(data)
    if len(escaped) >= 80:
        return f'"{escaped[:10]}...{escaped[-10:]}"'
    return f'"{escaped}"'


def summarize_shape(shape: tensor_shape_pb2.TensorShapeProto) -> str:
    """PartialTensorShape::DebugString: `[?,3]`, `[]`, `<unknown>`."""
    if shape.unknown_rank:
        return "<unknown>"
    return "[" + ",".join("?" if d.size < 0 else str(d.size) for d in shape.dim) + "]"


_TENSOR_VALUES: dict[int, tuple[str, Callable[[Any], str]]] = {  # dtype -> (field, element printer)
    1: ("float_val", format_float), 2: ("double_val", format_double), 3: ("int_val", str),
    4: ("int_val", str), 5: ("int_val", str), 6: ("int_val", str), 9: ("int64_val", str),
    10: ("bool_val", lambda b: "1" if b else "0"), 17: ("int_val", str), 22: ("uint32_val", str),
    23: ("uint64_val", str), 7: ("string_val", c_escape),
}
_MAX_TENSOR_ENTRIES = 3


def _summarize_tensor(tensor: Any) -> str:
    """Tensor::DebugString (3 values) for tensors given by *_val fields; otherwise the
    proto's short text, as TF prints tensors it cannot rebuild."""
    from google.protobuf import text_format

    dims = [d.size for d in tensor.tensor_shape.dim]
    known = _TENSOR_VALUES.get(tensor.dtype)
    count = math.prod(dims)
    values = list(getattr(tensor, known[0])) if known else []
    if (known is None or tensor.tensor_content or tensor.tensor_shape.unknown_rank
            or any(d < 0 for d in dims) or len(values) > count):
        return "<Invalid TensorProto: " + text_format.MessageToString(tensor, as_one_line=True) + ">"
    if values and len(values) < count:  # TF repeats the last value to fill the shape
        values += [values[-1]] * (count - len(values))
    elif not values:
        values = [b"" if tensor.dtype == 7 else 0] * count
    printer = known[1]
    limit = min(count, _MAX_TENSOR_ENTRIES)
    if not dims:
        text = " ".join(printer(v) for v in values[:limit])
    else:
        out: list[str] = []
        _print_dim(0, dims, limit, [printer(v) for v in values[:limit]], [0], out)
        text = "".join(out)
    if count > limit:
        text += "..."
    shape = "[" + ",".join(str(d) for d in dims) + "]"
    return f"Tensor<type: {cpp_name(tensor.dtype)} shape: {shape} values: {text}>"


def _print_dim(dim: int, dims: list[int], limit: int, items: list[str], index: list[int], out: list[str]) -> None:
    """TF's PrintOneDim: nested `[a b][c...]` with at most `limit` elements."""
    if index[0] >= limit:
        return
    if dim == len(dims) - 1:
        for i in range(dims[dim]):
            if index[0] >= limit:
                if dim != 0:
                    out.append("...")
                return
            if i > 0:
                out.append(" ")
            out.append(items[index[0]])
            index[0] += 1
        return
    for _ in range(dims[dim]):
        opened = index[0] < limit
        if opened:
            out.append("[")
        _print_dim(dim + 1, dims, limit, items, index, out)
        if index[0] < limit or opened:
            out.append("]")


def _summarize_func(func: attr_value_pb2.NameAttrList) -> str:
    entries = sorted(f"{k}={summarize_attr_value(v)}" for k, v in func.attr.items())
    return f"{func.name}[{', '.join(entries)}]"


def summarize_attr_value(value: attr_value_pb2.AttrValue) -> str:
    """C++ `SummarizeAttrValue` (lists of 30+ items: first 5, `...`, last 5, `{attr_hash=N}`)."""
    kind = value.WhichOneof("value")
    if kind == "s":
        return _summarize_string(value.s)
    if kind == "i":
        return str(value.i)
    if kind == "f":
        return format_float(value.f)
    if kind == "b":
        return "true" if value.b else "false"
    if kind == "type":
        return enum_name(value.type) if _is_known_enum(value.type) else str(value.type)
    if kind == "shape":
        return summarize_shape(value.shape)
    if kind == "tensor":
        return _summarize_tensor(value.tensor)
    if kind == "func":
        return _summarize_func(value.func)
    if kind == "placeholder":
        return "$" + value.placeholder
    if kind == "list":
        lv = value.list
        pieces: list[str]
        if lv.s:
            pieces = [_summarize_string(s) for s in lv.s]
        elif lv.i:
            pieces = [str(i) for i in lv.i]
        elif lv.f:
            pieces = [format_float(f) for f in lv.f]
        elif lv.b:
            pieces = ["true" if b else "false" for b in lv.b]
        elif lv.type:
            pieces = [enum_name(t) if _is_known_enum(t) else str(t) for t in lv.type]
        elif lv.shape:
            pieces = [summarize_shape(s) for s in lv.shape]
        elif lv.tensor:
            pieces = [_summarize_tensor(t) for t in lv.tensor]
        elif lv.func:
            pieces = [_summarize_func(f) for f in lv.func]
        else:
            pieces = []
        if len(pieces) >= 30:  # TF elides the middle and appends a FarmHash of the whole list
            fingerprint = fingerprint64(",".join(pieces).encode())
            return "[" + ", ".join([*pieces[:5], "...", *pieces[-5:]]) + f"]{{attr_hash={fingerprint}}}"
        return "[" + ", ".join(pieces) + "]"
    return "<Unknown AttrValue type>"


def _is_known_enum(v: int) -> bool:
    return v == 0 or 1 <= v % 100 <= 33 and v < 200


def _summarize_args(args: Any) -> str:
    parts = []
    for arg in args:
        text = arg.name + ":"
        if arg.is_ref:
            text += "Ref("
        if arg.number_attr:
            text += arg.number_attr + "*"
        text += cpp_name(arg.type) if arg.type else arg.type_attr
        if arg.is_ref:
            text += ")"
        parts.append(text)
    return ", ".join(parts)


def summarize_op_def(op_def: op_def_pb2.OpDef) -> str:
    """C++ `SummarizeOpDef`: `Op<name=X; signature=a:T -> y:T; attr=T:type; is_stateful=true>`."""
    signature = f"{_summarize_args(op_def.input_arg)} -> {_summarize_args(op_def.output_arg)}"
    out = [f"Op<name={op_def.name}; signature={signature}"]
    for attr in op_def.attr:
        text = f"; attr={attr.name}:{attr.type}"
        if attr.HasField("default_value"):
            text += ",default=" + summarize_attr_value(attr.default_value)
        if attr.has_minimum:
            text += f",min={attr.minimum}"
        if attr.HasField("allowed_values"):
            text += ",allowed=" + summarize_attr_value(attr.allowed_values)
        out.append(text)
    for flag in ("is_commutative", "is_aggregate", "is_stateful", "allows_uninitialized_input",
                 "is_distributed_communication"):
        if getattr(op_def, flag):
            out.append(f"; {flag}=true")
    out.append(">")
    return "".join(out)
