"""Python literals for generated code: every name, string, default and docstring goes through here.

Each function returns source text that evaluates to exactly the value it was given, in the
spelling black (and ruff, which agrees on these forms) leaves unchanged, so no op name,
doc text or default value can break or inject code. The Jinja environment exposes them
as filters (`opgen.render.emit.FILTERS`).
"""

from __future__ import annotations

import functools
import math
import re
import struct
from typing import TYPE_CHECKING, Any

from opgen.tf_text.attr_text import summarize_attr_value
from opgen.tf_text.proto_text import c_escape
from opgen_runtime.proto import attr_value_pb2, tensor_pb2
from opgen_runtime.proto.datatypes import BY_ENUM, base, is_ref

if TYPE_CHECKING:
    from opgen_runtime.proto import tensor_shape_pb2

_SIMPLE_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(c: str) -> str:
    if c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c]
    if c == " " or c.isprintable():
        return c
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


_PLAIN = re.compile(r"[ !#-\[\]-~]*\Z")  # printable ASCII except `"` and backslash


def py_str(value: str) -> str:
    """A one-line str literal; double quotes unless single quotes need fewer escapes (black's rule)."""
    if _PLAIN.match(value):
        return '"' + value + '"'
    body = "".join(_escape_char(c) for c in value)
    if '"' in body and body.count('"') > body.count("'"):
        return "'" + body.replace("'", "\\'") + "'"
    return '"' + body.replace('"', '\\"') + '"'


def py_fstring(parts: list[tuple[str, str]]) -> str:
    """An f-string from ("text", s) and ("expr", code) parts; text is escaped like `py_str`
    (braces doubled), expressions must be simple code without quotes or braces."""
    body = []
    for kind, value in parts:
        if kind == "text":
            text = value if _PLAIN.match(value) else "".join(_escape_char(c) for c in value).replace('"', '\\"')
            body.append(text.replace("{", "{{").replace("}", "}}"))
        else:
            if any(c in value for c in "{}\"'\\"):
                raise ValueError(f"unsafe f-string expression {value!r}")
            body.append("{" + value + "}")
    return 'f"' + "".join(body) + '"'


def isort_key(name: str) -> tuple[int, str]:
    """The order ruff's RUF022 wants in `__all__`: CONSTANTS, then Classes, then the rest,
    each in natural order (digit runs compare as numbers and before any other character):
    as a string, each digit run spelled NUL, a character counting its digits without leading
    zeros, then those digits (sorting 2,000 names by it takes a C call, not a tuple per character)."""
    category = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return (category, _DIGIT_RUN.sub(_number_key, name))


_DIGIT_RUN = re.compile(r"\d+")


def _number_key(run: re.Match[str]) -> str:
    digits = run.group().lstrip("0")
    return "\0" + chr(0x20 + len(digits)) + digits


def py_str_list(values: list[str] | tuple[str, ...]) -> str:
    return "[" + ", ".join(py_str(v) for v in values) + "]"


def bytes_default(data: bytes) -> str:
    """A string attr value as a signature default: the str whose UTF-8 encoding is `data`, so
    the kernel gets the declared bytes (`_execute.make_str` and TF encode a str as UTF-8).

    TF's literal (`python_op_gen_internal.cc` StringToPython: `"` + CEscape(bytes) + `"`)
    reads one character per byte, `data.decode("latin-1")`, which TF encodes again: a
    non-ASCII default reaches the kernel as mojibake (`"é"` as 4 bytes). Bytes that are not
    UTF-8 keep TF's value (no str encodes to them). The spelling is black's (`py_str`).
    """
    try:
        return py_str(data.decode("utf-8"))
    except UnicodeDecodeError:
        return py_str(data.decode("latin-1"))


def doc_string_literal(data: bytes | str) -> str:
    """A string (attr value, func name, shape dim name) as TF's docstrings print it: TF's own
    text (`python_op_gen_internal.cc` StringToPython, `"` + absl::CEscape(bytes) + `"`), so
    `'` is `\\'`, `"` is `\\"` and every byte outside printable ASCII is a 3-digit octal escape
    (UTF-8 `é` reads `\\303\\251`). A str (a proto `string` field) is its UTF-8 bytes, as in C++."""
    return '"' + c_escape(data) + '"'


def float_literal(value: float) -> str:
    """TF's float rendering (`python_op_gen.cc` AttrValueToPython): 6 significant digits of
    the float32 value, `float('nan')` etc."""
    if math.isnan(value):
        return "float('nan')"
    if math.isinf(value):
        return "float('inf')" if value > 0 else "float('-inf')"
    f32 = struct.unpack("<f", struct.pack("<f", value))[0]
    return format(f32, ".6g")


def dtype_name(enum: int) -> str:
    """The generator's DataType name (`python_op_gen.cc` TypeString): `float32`, `half`,
    `float32_ref`."""
    names = BY_ENUM.get(base(enum))
    if names is None:
        return "INVALID"
    return names.generator + ("_ref" if is_ref(enum) else "")


def annotation_class(enum: int) -> str:
    """`_atypes.<X>` class name of a (ref or plain) DataType."""
    return BY_ENUM[base(enum)].annotation


def _float(value: float, dtype_prefix: str) -> str:
    """`float_literal`; in code (`_dtypes.` prefix) spelled as black normalises it
    (`float("nan")`, `1e06`) and always a float literal (`2.0` where TF writes `2`), in
    docstrings as TF prints it (`float('nan')`, `1e+06`, `2`).

    A deliberate difference from TF's generator: TF's eager fast path
    (`pywrap_tfe_src.cc` ParseFloatValue) rejects a Python int for a float attr
    ("Expecting float value for attr ..., got int"), so TF's own `scale=2` default sends
    every call that keeps it through the slow eager fallback; `2.0` keeps the fast path. So
    negative zero is `-0.0` too: TF's `-0` is the int 0 in Python, so `help()` would show `0`
    and `make_float` would pass +0.0 for the OpDef's -0.0."""
    text = float_literal(value)
    if dtype_prefix != "_dtypes.":
        return text
    text = text.replace("'", '"').replace("e+", "e")
    return text if not text.lstrip("-").isdigit() else text + ".0"


# Docstrings name dtypes `tf.float32` (code `_dtypes.float32`) and keep TF's spelling of values.
_DOC_DTYPES = "tf."


def shape_literal(shape: tensor_shape_pb2.TensorShapeProto, doc: bool = False) -> str:
    """A shape value as Python: in code an unknown dimension (-1 in the proto) is `None`. TF's
    generator writes -1, which `make_shape` (TensorShape) rejects, so its wrapper fails on
    any call that leaves the attr out (docs/differences-from-tf.md); docstrings (`doc`) keep
    TF's -1 and TF's text of a dimension's name."""
    if shape.unknown_rank:
        return "None"
    dims = []
    for d in shape.dim:
        size = ("-1" if doc else "None") if d.size == -1 else str(d.size)
        dims.append(f"({doc_string_literal(d.name) if doc else py_str(d.name)}, {size})" if d.name else size)
    return "[" + ", ".join(dims) + "]"


def tensor_text(tensor: tensor_pb2.TensorProto) -> str:
    """The one-line text proto TF prints for a tensor value (with TF's trailing space)."""
    from google.protobuf import text_format

    text = text_format.MessageToString(tensor, as_one_line=True)
    return text + " " if text else ""


def _string(data: bytes | str, dtype_prefix: str) -> str:
    """A string in code (`py_str` of the value TF's literal has) or in a docstring (TF's text)."""
    if dtype_prefix == _DOC_DTYPES:
        return doc_string_literal(data)
    return bytes_default(data) if isinstance(data, bytes) else py_str(data)


def _scalar(value: attr_value_pb2.AttrValue, field: str, dtype_prefix: str) -> str:
    if field == "s":
        return _string(value.s, dtype_prefix)
    if field == "i":
        return str(value.i)
    if field == "f":
        return _float(value.f, dtype_prefix)
    if field == "b":
        return "True" if value.b else "False"
    if field == "type":
        return _dtype_ref(dtype_prefix, value.type)
    if field == "shape":
        return shape_literal(value.shape, doc=dtype_prefix == _DOC_DTYPES)
    if field == "func":
        return _string(value.func.name, dtype_prefix)
    if field == "placeholder":
        return py_str(value.placeholder)
    raise ValueError(field)


_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")


def _dtype_ref(prefix: str, enum: int) -> str:
    """`_dtypes.float32` / `tf.float32`. DT_BOOL renders `_dtypes.bool_` in code (the same
    object; a module attribute named `bool` would shadow the builtin for type checkers)."""
    name = dtype_name(enum)
    if prefix == "_dtypes." and name == "bool":
        name = "bool_"
    return prefix + name


# A list value's items are of the type its field says (bytes for `s`, a TensorShapeProto for
# `shape`, ...): Any, which `_list_item` reads by that field.
def _list_items(value: attr_value_pb2.AttrValue) -> tuple[str, list[Any]]:
    for field in _LIST_FIELDS:
        items = list(getattr(value.list, field))
        if items:
            return field, items
    return "", []


def _list_item(field: str, item: Any, dtype_prefix: str) -> str:
    if field == "s":
        return _string(item, dtype_prefix)
    if field == "i":
        return str(item)
    if field == "f":
        return _float(item, dtype_prefix)
    if field == "b":
        return "True" if item else "False"
    if field == "type":
        return _dtype_ref(dtype_prefix, item)
    if field == "shape":
        return shape_literal(item, doc=dtype_prefix == _DOC_DTYPES)
    if field == "func":
        return _string(item.name, dtype_prefix)
    raise ValueError(field)


def attr_value_doc(value: attr_value_pb2.AttrValue) -> str:
    """An attr value as TF's docstrings print it (AttrValueToPython, `tf.` dtypes, tensors as text proto)."""
    return _attr_value_doc(value.SerializeToString(deterministic=True))


# Keyed by the value's bytes: ops share most values (`false`, `"NHWC"`, allowed paddings), and
# reading one from its bytes is exact.
@functools.lru_cache(maxsize=4096)
def _attr_value_doc(data: bytes) -> str:
    value = attr_value_pb2.AttrValue.FromString(data)
    kind = value.WhichOneof("value")
    if kind == "list":
        field, items = _list_items(value)
        if field == "tensor":
            return "[" + ", ".join(tensor_text(t).rstrip(" ") for t in items) + "]"
        return "[" + ", ".join(_list_item(field, x, _DOC_DTYPES) for x in items) + "]"
    if kind == "tensor":
        return tensor_text(value.tensor).rstrip(" ")
    if kind is None:
        return ""
    return _scalar(value, kind, _DOC_DTYPES)


def attr_default(value: attr_value_pb2.AttrValue, param: str) -> str:
    """A signature default (AttrValueToPython): `_dtypes.` dtypes; tensors via `_execute.make_tensor`.

    Tensor text protos are ordinary escaped str literals (TF pastes them into unescaped
    triple quotes, which mangles backslashes); for every other tensor the value is TF's.
    """
    return _attr_default(value.SerializeToString(deterministic=True), param)


@functools.lru_cache(maxsize=4096)  # as `_attr_value_doc`
def _attr_default(data: bytes, param: str) -> str:
    value = attr_value_pb2.AttrValue.FromString(data)
    kind = value.WhichOneof("value")
    if kind == "list":
        field, items = _list_items(value)
        if field == "tensor":
            # TF writes a comprehension over the text protos; the plain list is the same value.
            return (
                "[" + ", ".join(f"_execute.make_tensor({py_str(tensor_text(t))}, {py_str(param)})" for t in items) + "]"
            )
        return "[" + ", ".join(_list_item(field, x, "_dtypes.") for x in items) + "]"
    if kind == "tensor":
        return f"_execute.make_tensor({py_str(tensor_text(value.tensor))}, {py_str(param)})"
    if kind is None:
        return "None"
    return _scalar(value, kind, "_dtypes.")


# Kinds whose signature default is a literal of the value ("" is an empty list's).
_LITERAL_KINDS = frozenset({"s", "i", "f", "b", "shape", ""})


def attr_value_for_review(value: attr_value_pb2.AttrValue) -> str:
    """An attr value as opgen's own review texts spell it (the API snapshot's attr lines,
    `opgen diff`'s messages): as the function's signature spells its default (`attr_default`:
    `1.0`, `0.333333`, `False`, `[None, 3]`), so one value reads alike in a signature and in
    its op's facts; a dtype, tensor or func, which a signature spells as an expression
    (`_dtypes.int32`, `_execute.make_tensor(...)`) or by the func's name alone, as TF's
    `SummarizeAttrValue` does (`DT_INT32`, the spelling `allowed=` lists dtypes in). Text that
    must equal TF's (docstrings, TF's compatibility messages) does not come here."""
    kind = value.WhichOneof("value")
    field = _list_items(value)[0] if kind == "list" else kind
    if field in _LITERAL_KINDS:
        return attr_default(value, "")  # (the parameter name only goes into a tensor's call)
    return summarize_attr_value(value)


_ASCII_RAW = re.compile(r"[ -~\n]*\Z")


def _raw_docstring_ok(text: str) -> bool:
    """True when `text` can sit in `r\"\"\"...\"\"\"` unchanged and black leaves it alone."""
    if '"""' in text or text.startswith(('"', " ")) or '\\"' in text:
        return False
    if text.isascii():
        if not _ASCII_RAW.match(text):
            return False
    elif not all(c.isprintable() or c == "\n" for c in text):
        return False
    return not any(line.endswith(" ") or (line and not line.strip(" ")) for line in text.split("\n"))


@functools.lru_cache(maxsize=16)  # a chunk's template renders it, then `emit.render_function` checks it
def docstring_literal(text: str, indent: str) -> str:
    """A docstring literal whose value is `docstring_value(text, indent)`.

    Raw (`r\"\"\"...\"\"\"`, as TF writes them) when only backslashes and lone quotes would need
    escaping; otherwise an escaped literal (see `docstring_body`).
    """
    if _raw_docstring_ok(text):
        return 'r"""' + docstring_value(text, indent) + '"""'
    return '"""' + docstring_body(text, indent) + '"""'


def docstring_body(text: str, indent: str) -> str:
    """Source between the triple quotes of a docstring whose value is `text` re-indented.

    Lines after the first get `indent` prepended (empty lines stay empty), which is what
    black normalises a docstring to. Everything black would otherwise rewrite (leading or
    trailing whitespace of a line, tabs, quotes, backslashes, control characters) is
    escaped, so the literal is a black fixed point and `__doc__` is exactly
    `text` with `indent` added, plus the closing line's indent.
    """
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if _PLAIN.match(line) and not line.endswith(" ") and line.strip(" ") and (i > 0 or not line.startswith(" ")):
            out.append(line if i == 0 or not line else indent + line)
            continue
        chars = [_escape_doc_char(c) for c in line]
        if line.startswith(" ") and (i == 0 or not line.strip(" ")):
            chars[0] = _hex(" ")
        if line.endswith(" "):
            chars[-1] = _hex(" ")
        body = "".join(chars)
        if i == 0:
            out.append(body)
        else:
            out.append(indent + body if body else "")
    return "\n".join(out) + "\n" + indent


def _hex(c: str) -> str:
    return f"\\x{ord(c):02x}"


def _escape_doc_char(c: str) -> str:
    if c == "\\":
        return "\\\\"
    if c == '"':
        return '\\"'
    if c == "\t":
        return "\\t"
    if c == " " or c.isprintable():
        return c
    return _escape_char(c)


def docstring_value(text: str, indent: str) -> str:
    """The `__doc__` a function gets from `docstring_body(text, indent)`."""
    lines = text.split("\n")
    return "\n".join([lines[0]] + [indent + line if line else "" for line in lines[1:]]) + "\n" + indent
