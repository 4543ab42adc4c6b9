"""OpList -> REGISTER_OP C++ (with Doc): the inverse of gathering (`opgen specs`).

`op_list_to_cc(op_list)` writes one `REGISTER_OP("Name")` chain per OpDef such that
gathering the file reproduces every OpDef exactly: attrs (types, `{...}` sets, `>= N`,
defaults in proto-text syntax), inputs/outputs (`N * T`, type lists, `Ref(...)`), flags,
Deprecated, control outputs, full types (`SetTypeConstructor(full_type::...)`) and docs.

Control outputs are written as `.ControlOutput(name)`, which opgen reads but TF's
REGISTER_OP wrapper lacks (such ops get a comment saying so).

Some OpDefs cannot be written as REGISTER_OP (e.g. float8 types in an allowed list: set
members cannot contain `_`; a summary spanning lines). `cc_for_op_def` raises
`Inexpressible` naming the reason; `op_list_to_cc` collects them all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from opgen.errors import Location, OpgenError, OpgenErrors
from opgen.spec.attr_grammar import COMPOUND_TYPES
from opgen.spec.doc import is_name_line
from opgen.spec.full_type import match_type_constructor
from opgen.tf_text.proto_text import SPACE, c_escape, to_float32
from opgen_runtime.proto import attr_value_pb2, op_def_pb2
from opgen_runtime.proto.datatypes import BY_ENUM, cpp_name, enum_name, is_ref

_FLAG_METHODS = (
    ("is_commutative", "SetIsCommutative"),
    ("is_aggregate", "SetIsAggregate"),
    ("is_stateful", "SetIsStateful"),
    ("allows_uninitialized_input", "SetAllowsUninitializedInput"),
    ("is_distributed_communication", "SetIsDistributedCommunication"),
)
_LIST_FIELD = {"string": "s", "int": "i", "float": "f", "bool": "b", "type": "type",
               "shape": "shape", "tensor": "tensor", "func": "func"}
_RE_SET_MEMBER = re.compile(r"[a-z0-9]+\Z")
_RE_ARG_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_RE_ATTR_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
DT_RESOURCE = 20
HEADER = ('#include "tensorflow/core/framework/full_type_util.h"\n'
          '#include "tensorflow/core/framework/op.h"\n\nnamespace tensorflow {\n')
FOOTER = "\n}  // namespace tensorflow\n"


class Inexpressible(ValueError):
    """This OpDef has no REGISTER_OP spelling that reproduces it exactly."""


def cc_string(text: str | bytes) -> str:
    """A C++ string literal for `text` (octal escapes: safe before any following digit), with
    each `?` after another written `\\?`: `??/` would be a trigraph (a backslash) before
    C++17, and end the literal early."""
    return '"' + _AFTER_QUESTION_MARK.sub(r"\\?", c_escape(text)) + '"'


_AFTER_QUESTION_MARK = re.compile(r"(?<=\?)\?")


def cc_comment_text(text: str) -> str:
    """`text` spelled safely inside a `//` comment: printable ASCII only, every other
    character (newlines, controls, non-ASCII) and the backslash (a line splice before a
    newline) as `\\xNN`/`\\uNNNN`/`\\UNNNNNNNN`, `??` split (a trigraph before C++17)."""
    out: list[str] = []
    for c in text:
        if " " <= c <= "~" and c != "\\":
            out.append(c)
        else:
            n = ord(c)
            out.append(f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")
    return "".join(out).replace("??", "?\\x3f")


# ----------------------------------------------------------------------------- proto text


def _float_text(x: float, single: bool) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if single:
        for digits in range(6, 10):  # shortest text that reads back as the same float32
            text = f"{x:.{digits}g}"
            if to_float32(float(text)) == x:
                return text
    return repr(x)


def _scalar_text(value: Any, field: FieldDescriptor) -> str:
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        data = value if isinstance(value, bytes) else value.encode("utf-8")
        return '"' + c_escape(data) + '"'
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        ev = field.enum_type.values_by_number.get(value)
        return ev.name if ev is not None else str(value)
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return "true" if value else "false"
    if cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return _float_text(value, cpp == FieldDescriptor.CPPTYPE_FLOAT)
    return str(value)


def message_text(msg: Any) -> str:
    """`{ field: value sub { ... } }` in the syntax TF's proto_text parser reads back."""
    parts = []
    for field, value in msg.ListFields():
        if field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                value_field = field.message_type.fields_by_name["value"]
                for key in sorted(value):
                    parts.append(f"{field.name} {{ key: {_scalar_text(key, field.message_type.fields_by_name['key'])} "
                                 f"value {message_text(value[key]) if value_field.message_type else ''} }}")
            elif field.is_repeated:
                parts.extend(f"{field.name} {message_text(v)}" for v in value)
            else:
                parts.append(f"{field.name} {message_text(value)}")
        elif field.is_repeated:
            parts.extend(f"{field.name}: {_scalar_text(v, field)}" for v in value)
        else:
            parts.append(f"{field.name}: {_scalar_text(value, field)}")
    return "{ " + " ".join(parts) + " }" if parts else "{ }"


def default_text(attr: op_def_pb2.OpDef.AttrDef) -> str:
    """The text after `=` that ParseAttrValue turns back into `attr.default_value`."""
    value = attr.default_value
    is_list = attr.type.startswith("list(")
    base = attr.type[5:-1] if is_list else attr.type
    field_name = _LIST_FIELD.get(base)
    if field_name is None:
        raise Inexpressible(f"attr '{attr.name}' has type {attr.type!r}")
    kind = value.WhichOneof("value")
    if is_list:
        if kind != "list":
            raise Inexpressible(f"default of list attr '{attr.name}' is not a list")
        populated = [f.name for f, _ in value.list.ListFields()]
        if populated not in ([], [field_name]):
            raise Inexpressible(f"default of attr '{attr.name}' mixes list fields {populated}")
        field = attr_value_pb2.AttrValue.ListValue.DESCRIPTOR.fields_by_name[field_name]
        items = getattr(value.list, field_name)
        if field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
            texts = [message_text(v) for v in items]
        else:
            texts = [_scalar_text(v, field) for v in items]
        return "[" + ", ".join(texts) + "]"
    if kind != field_name:
        raise Inexpressible(f"default of attr '{attr.name}' is a {kind}, not {attr.type}")
    field = attr_value_pb2.AttrValue.DESCRIPTOR.fields_by_name[field_name]
    if field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
        return message_text(getattr(value, field_name))
    return _scalar_text(getattr(value, field_name), field)


# ----------------------------------------------------------------------------- specs


def _type_set(attr: op_def_pb2.OpDef.AttrDef) -> str:
    types = list(attr.allowed_values.list.type)
    for name, members in COMPOUND_TYPES.items():
        if tuple(types) == members and name in ("numbertype", "quantizedtype", "realnumbertype"):
            return name
    names = []
    for dt in types:
        text = cpp_name(dt) if dt in BY_ENUM else ""
        if not _RE_SET_MEMBER.match(text):
            raise Inexpressible(f"attr '{attr.name}' allows {enum_name(dt) if dt in BY_ENUM else dt}, "
                                "which cannot be written inside {...} (only [a-z0-9]+ names)")
        names.append(text)
    if not names:
        raise Inexpressible(f"attr '{attr.name}' has an empty allowed-values list")
    return "{" + ", ".join(names) + "}"


def _string_set(attr: op_def_pb2.OpDef.AttrDef) -> str:
    values = list(attr.allowed_values.list.s)
    if not values:
        raise Inexpressible(f"attr '{attr.name}' has an empty allowed-values list")
    return "{" + ", ".join('"' + c_escape(s) + '"' for s in values) + "}"


def attr_spec(attr: op_def_pb2.OpDef.AttrDef, implicit_min: bool) -> str:
    """The Attr("...") text for one AttrDef (`implicit_min`: the builder adds min 1 itself)."""
    if not _RE_ATTR_NAME.match(attr.name):
        raise Inexpressible(f"attr name {attr.name!r} is not [A-Za-z][A-Za-z0-9_]*")
    is_list = attr.type.startswith("list(") and attr.type.endswith(")")
    base = attr.type[5:-1] if is_list else attr.type
    if base not in _LIST_FIELD:
        raise Inexpressible(f"attr '{attr.name}' has type {attr.type!r}")
    allowed = attr.allowed_values.list if attr.HasField("allowed_values") else None
    if allowed is not None:
        populated = [f.name for f, _ in allowed.ListFields()]
        if base == "type" and populated in ([], ["type"]):
            base_text = _type_set(attr)
        elif base == "string" and populated in ([], ["s"]):
            base_text = _string_set(attr)
        else:
            raise Inexpressible(f"attr '{attr.name}' of type {attr.type} has allowed values {populated}")
    else:
        base_text = base
    text = f"{attr.name}: " + (f"list({base_text})" if is_list else base_text)
    if attr.has_minimum:
        if not (is_list or base == "int"):
            raise Inexpressible(f"attr '{attr.name}' of type {attr.type} has a minimum")
        if not (implicit_min and attr.minimum == 1):
            text += f" >= {attr.minimum}"
    elif attr.minimum:
        raise Inexpressible(f"attr '{attr.name}' has minimum {attr.minimum} without has_minimum")
    elif implicit_min:
        raise Inexpressible(f"attr '{attr.name}' has no minimum but the builder would give it 1")
    if attr.HasField("default_value"):
        text += " = " + default_text(attr)
    return text


def arg_spec(arg: op_def_pb2.OpDef.ArgDef, attr_types: dict[str, str]) -> str:
    if not _RE_ARG_NAME.match(arg.name):
        raise Inexpressible(f"arg name {arg.name!r} is not [a-z][a-z0-9_]*")
    if arg.handle_data:
        raise Inexpressible(f"arg '{arg.name}' has handle_data")
    kinds = [k for k in (arg.type and "type", arg.type_attr and "type_attr",
                         arg.type_list_attr and "type_list_attr") if k]
    if len(kinds) != 1:
        raise Inexpressible(f"arg '{arg.name}' sets {kinds or 'no type'}")
    if arg.type:
        if arg.type not in BY_ENUM and not (is_ref(arg.type) and arg.type - 100 in BY_ENUM):
            raise Inexpressible(f"arg '{arg.name}' has unknown type enum {arg.type}")
        type_text = cpp_name(arg.type)
    else:
        type_text = arg.type_attr or arg.type_list_attr
        wanted = "type" if arg.type_attr else "list(type)"
        if attr_types.get(type_text) != wanted:
            raise Inexpressible(f"arg '{arg.name}' refers to attr '{type_text}' which is not {wanted}")
    if arg.number_attr:
        type_text = f"{arg.number_attr} * {type_text}"
    if arg.is_ref:
        type_text = f"Ref({type_text})"
    return f"{arg.name}: {type_text}"


# ----------------------------------------------------------------------------- docs


def _check_line(text: str, what: str) -> None:
    for line in text.split("\n"):
        if line != line.rstrip(SPACE):
            raise Inexpressible(f"{what} has a line with trailing whitespace (Doc() strips it)")


def doc_text(op_def: op_def_pb2.OpDef) -> str | None:
    """The Doc() text FinalizeDoc turns back into the summary, description and arg docs."""
    entries = []
    seen: set[str] = set()
    for args in (op_def.input_arg, op_def.output_arg, op_def.attr):
        for a in args:
            if a.name in seen:
                if a.description:
                    raise Inexpressible(f"'{a.name}' names two things and the second has a description")
                continue
            seen.add(a.name)
            if a.description:
                entries.append((a.name, a.description))
    if not (op_def.summary or op_def.description or entries):
        return None
    summary = op_def.summary
    if not summary:
        raise Inexpressible("the doc has no summary but has other text (its first line would become the summary)")
    if "\n" in summary or summary != summary.rstrip(SPACE):
        raise Inexpressible("the summary is not one line without trailing whitespace")
    lines = [summary]
    if op_def.description:
        desc = op_def.description
        _check_line(desc, "the description")
        desc_lines = desc.split("\n")
        if not desc_lines[0] or not desc_lines[-1]:
            raise Inexpressible("the description starts or ends with a blank line")
        bad = next((line for line in desc_lines if is_name_line(line)), None)
        if bad is not None:
            raise Inexpressible(f"description line {bad!r} would be read as an arg entry")
        lines += ["", *desc_lines]
    for name, text in entries:
        _check_line(text, f"the doc of '{name}'")
        first, *rest = text.split("\n")
        if first != first.lstrip(SPACE):
            raise Inexpressible(f"the doc of '{name}' starts with whitespace")
        if rest and not rest[-1]:
            raise Inexpressible(f"the doc of '{name}' ends with a blank line")
        if not rest and not first:
            continue
        # Indent continuations by two: never a name line, and the common indent is removed.
        lines.append(f"{name}: {first}".rstrip(" "))
        lines += [f"  {line}" if line else "" for line in rest]
    return "\n".join(lines)


def _doc_literal(text: str) -> str:
    if ')doc"' not in text and all(c == "\n" or c == "\t" or " " <= c != "\x7f" for c in text) \
            and "\\" not in text and "??" not in text:
        return f'R"doc(\n{text}\n)doc"'
    return "\n        ".join(cc_string(line + "\n") for line in text.split("\n"))


# ----------------------------------------------------------------------------- ops


BuilderCallSpec = tuple[str, tuple[str | int, ...]]


def op_def_calls(op_def: op_def_pb2.OpDef) -> list[BuilderCallSpec]:
    """The builder calls (method, args) that reproduce `op_def`; raises Inexpressible.

    String args are the unescaped spec texts; SetTypeConstructor's arg is its C++ text.
    """
    if not op_def.name:
        raise Inexpressible("the op has no name")
    attr_types = {a.name: a.type for a in op_def.attr}
    implicit = set()
    for arg in list(op_def.input_arg) + list(op_def.output_arg):
        if arg.number_attr:
            implicit.add(arg.number_attr)
        elif arg.type_list_attr and attr_types.get(arg.type_list_attr) == "list(type)":
            implicit.add(arg.type_list_attr)
    calls: list[BuilderCallSpec] = [("Attr", (attr_spec(a, a.name in implicit),)) for a in op_def.attr]
    has_resource = False
    for method, args in (("Input", op_def.input_arg), ("Output", op_def.output_arg)):
        for arg in args:
            calls.append((method, (arg_spec(arg, attr_types),)))
            has_resource |= arg.type == DT_RESOURCE
    for name in op_def.control_output:
        if not _RE_ATTR_NAME.match(name):
            raise Inexpressible(f"control output {name!r} is not a valid name")
        calls.append(("ControlOutput", (name,)))
    for field, method in _FLAG_METHODS:
        if getattr(op_def, field) and not (field == "is_stateful" and has_resource):
            calls.append((method, ()))
    if has_resource and not op_def.is_stateful:
        raise Inexpressible("it has a resource arg but is not stateful (the builder forces stateful)")
    if op_def.HasField("deprecation"):
        calls.append(("Deprecated", (op_def.deprecation.version, op_def.deprecation.explanation)))
    for arg in op_def.input_arg:
        if arg.HasField("experimental_full_type"):
            raise Inexpressible(f"input '{arg.name}' has a full type (type constructors set output 0 only)")
    for i, arg in enumerate(op_def.output_arg):
        if arg.HasField("experimental_full_type"):
            ctor = match_type_constructor(arg.experimental_full_type) if i == 0 else None
            if ctor is None:
                raise Inexpressible(f"output '{arg.name}' has a full type no full_type:: helper produces")
            calls.append(("SetTypeConstructor", (ctor.to_cc(),)))
    doc = doc_text(op_def)
    if doc is not None:
        calls.append(("Doc", (doc,)))
    return calls


def _cc_arg(method: str, value: str | int) -> str:
    if isinstance(value, int):
        return str(value)
    if method == "SetTypeConstructor":
        return value
    if method == "Doc":
        return _doc_literal(value)
    return cc_string(value)


_CONTROL_OUTPUT_NOTE = ("// opgen reads .ControlOutput(); TF's REGISTER_OP wrapper lacks it (only the\n"
                        "// private OpDefBuilder has it), so this op does not compile as TF C++.\n")


def cc_for_op_def(op_def: op_def_pb2.OpDef) -> str:
    """One REGISTER_OP chain reproducing `op_def`; raises Inexpressible."""
    calls = op_def_calls(op_def)
    chain = "".join(f"\n    .{method}({', '.join(_cc_arg(method, v) for v in args)})" for method, args in calls)
    note = _CONTROL_OUTPUT_NOTE if op_def.control_output else ""
    return f"{note}REGISTER_OP({cc_string(op_def.name)}){chain};\n"


def op_list_to_cc(op_list: op_def_pb2.OpList, skip_inexpressible: bool = False,
                  locations: Sequence[Location | None] = ()) -> str:
    """REGISTER_OP C++ for every op of `op_list`.

    Raises OpgenErrors naming every op that cannot be expressed (and why, at its entry of
    `locations` when given), unless `skip_inexpressible`, which leaves a `// opgen: cannot
    express ...` comment instead.
    """
    chunks = [HEADER]
    problems = []
    for i, op_def in enumerate(op_list.op):
        try:
            chunks.append("\n" + cc_for_op_def(op_def))
        except Inexpressible as e:
            problems.append(OpgenError(f"op {op_def.name} cannot be written as REGISTER_OP: {e}",
                                       locations[i] if i < len(locations) else None,
                                       hint="--skip-inexpressible writes the others, with a comment for this one"))
            chunks.append(f"\n// opgen: cannot express {cc_comment_text(op_def.name)} as REGISTER_OP: "
                          f"{cc_comment_text(str(e))}\n")
    if problems and not skip_inexpressible:
        raise OpgenErrors(problems)
    chunks.append(FOOTER)
    return "".join(chunks)
