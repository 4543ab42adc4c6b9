"""`ValidateOpDef` and `ValidateAttrValue` of TF 2.21 (`op_def_util.cc`).

Checks run in TF's order and stop at the first failure. A failure says which part of the
OpDef it concerns (`OpDefProblem.part`/`index`) so callers can point at the builder call
that produced it; the message text is TF's, including the `; in OpDef: ...` tail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from google.protobuf import text_format

from opgen_runtime.proto import attr_value_pb2, op_def_pb2, types_pb2
from opgen_runtime.proto.datatypes import cpp_name, data_type_from_string, is_ref

_VALID_OP_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*(?:>[A-Z][A-Za-z0-9_]*)*\Z")
_ATTR_TYPES = ("string", "int", "float", "bool", "type", "shape", "tensor", "func")
_VALID_ATTR_TYPES = frozenset([*_ATTR_TYPES, *(f"list({t})" for t in _ATTR_TYPES)])
_VALID_DATATYPES = frozenset(types_pb2.DataType.DESCRIPTOR.values_by_number)
_PLAIN_DATATYPES = frozenset(dt for dt in _VALID_DATATYPES if 0 < dt < 100)  # valid, not ref
# AttrValueHasType's field order: (list field / oneof case, type word).
_VALUE_FIELDS = (("s", "string"), ("i", "int"), ("f", "float"), ("b", "bool"), ("type", "type"),
                 ("shape", "shape"), ("tensor", "tensor"), ("func", "func"))
_WORD = dict(_VALUE_FIELDS)
# Scalar attr types whose only check is the oneof case (type also checks the enum).
_SCALAR_FIELD = {word: field for field, word in _VALUE_FIELDS if word != "type"}


@dataclass(frozen=True)
class OpDefProblem:
    """The first ValidateOpDef failure: TF's message and the attr/arg it is about."""

    message: str
    part: Literal["op", "attr", "input", "output"]
    index: int = 0
    # the field of that attr or arg it is about, when one: "name", "default_value" (an attr's),
    # "number_attr", "type_attr" or "type_list_attr" (an arg's)
    field: str = ""


_OP_DEF_DUMP = "; in OpDef: "


def without_op_def_dump(message: str) -> str:
    """TF's ValidateOpDef `message` less the dump of the whole OpDef it ends with: a located
    error says which op and call."""
    return message.partition(_OP_DEF_DUMP)[0]


def short_debug_string(op_def: op_def_pb2.OpDef) -> str:
    """protobuf ShortDebugString (TF 2.21 prefixes it with a redaction marker; we don't)."""
    text: str = text_format.MessageToString(op_def, as_one_line=True)  # typed: protobuf is Any here
    return text


def attr_value_has_type(value: attr_value_pb2.AttrValue, attr_type: str) -> str | None:
    """C++ `AttrValueHasType`: None when `value` fits `attr_type`, else TF's message."""
    kind = value.WhichOneof("value")
    if kind is not None and _SCALAR_FIELD.get(attr_type) == kind:  # common case: matching scalar
        return None
    num_set = 0
    has_list = kind == "list"
    if has_list:
        # ListFields yields the non-empty fields in field-number order, TF's checking order.
        for field, _ in value.list.ListFields():
            word = _WORD[field.name]
            if attr_type != f"list({word})":
                return f"AttrValue had value with type 'list({word})' when '{attr_type}' expected"
            num_set += 1
    elif kind in _WORD:
        word = _WORD[kind]
        if attr_type != word:
            return f"AttrValue had value with type '{word}' when '{attr_type}' expected"
        num_set = 1
    if kind == "placeholder":
        return "AttrValue had value with unexpected type 'placeholder'"
    is_list_type = attr_type.startswith("list(")
    if is_list_type and not has_list:
        if num_set:
            return f"AttrValue missing value with expected type '{attr_type}'"
        num_set += 1
    if num_set == 0 and not is_list_type:
        return f"AttrValue missing value with expected type '{attr_type}'"
    if attr_type == "type":
        return _check_datatype(value.type, "AttrValue has invalid DataType")
    if attr_type == "list(type)" and not _PLAIN_DATATYPES.issuperset(value.list.type):
        for dt in value.list.type:
            problem = _check_datatype(dt, "AttrValue contains invalid DataType")
            if problem:
                return problem
    return None


def _check_datatype(dt: int, invalid_message: str) -> str | None:
    if dt not in _VALID_DATATYPES:
        return f"AttrValue has invalid DataType enum: {dt}"
    if is_ref(dt):
        return f"AttrValue must not have reference type value of {cpp_name(dt)}"
    if dt == 0:
        return invalid_message
    return None


def validate_attr_value(value: attr_value_pb2.AttrValue, attr: op_def_pb2.OpDef.AttrDef) -> str | None:
    """C++ `ValidateAttrValue(value, attr)`: type, minimum, allowed values; TF's message or None."""
    problem = attr_value_has_type(value, attr.type)
    if problem:
        return f"{problem}\n\t for attr '{attr.name}'"
    if attr.has_minimum:
        if attr.type == "int":
            if value.i < attr.minimum:
                return f"Value for attr '{attr.name}' of {value.i} must be at least minimum {attr.minimum}"
        else:
            length = -1
            if attr.type.startswith("list(") and attr.type.endswith(")"):
                field = {w: f for f, w in _VALUE_FIELDS}.get(attr.type[5:-1])
                if field is not None:
                    length = len(getattr(value.list, field))
            if length < attr.minimum:
                return f"Length for attr '{attr.name}' of {length} must be at least minimum {attr.minimum}"
    if attr.HasField("allowed_values"):
        if attr.type == "type":
            return _allowed_type(value.type, attr)
        if attr.type == "list(type)":
            for dt in value.list.type:
                problem = _allowed_type(dt, attr)
                if problem:
                    return problem
            return None
        if attr.type == "string":
            return _allowed_string(value.s, attr)
        if attr.type == "list(string)":
            for s in value.list.s:
                problem = _allowed_string(s, attr)
                if problem:
                    return problem
            return None
        return f"Support for allowed_values not implemented for type {attr.type}"
    return None


def _allowed_type(dt: int, attr: op_def_pb2.OpDef.AttrDef) -> str | None:
    allowed = attr.allowed_values.list.type
    if dt in allowed:
        return None
    names = ", ".join(cpp_name(t) for t in allowed)
    return f"Value for attr '{attr.name}' of {cpp_name(dt)} is not in the list of allowed values: {names}"


def _allowed_string(s: bytes, attr: op_def_pb2.OpDef.AttrDef) -> str | None:
    allowed = attr.allowed_values.list.s
    if s in allowed:
        return None
    names = ", ".join(f'"{_text(a)}"' for a in allowed)
    return f"Value for attr '{attr.name}' of \"{_text(s)}\" is not in the list of allowed values: {names}"


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="backslashreplace")


def validate_op_def(op_def: op_def_pb2.OpDef) -> OpDefProblem | None:
    """C++ `ValidateOpDef`: the first problem (TF's message and where), or None."""

    def fail(message: str, part: Literal["op", "attr", "input", "output"], index: int = 0,
             field: str = "") -> OpDefProblem:
        return OpDefProblem(f"{message}{_OP_DEF_DUMP}{short_debug_string(op_def)}", part, index, field)

    name = op_def.name
    if not name.startswith("_") and not _VALID_OP_NAME.match(name):
        return fail(f"Invalid name: {name} (Did you use CamelCase?)", "op")

    names: set[str] = set()
    attrs: dict[str, op_def_pb2.OpDef.AttrDef] = {}  # FindAttr: the first attr of each name
    # Each field is read once into a local: a protobuf attribute read costs more than the check.
    for i, attr in enumerate(op_def.attr):
        attr_name, attr_type = attr.name, attr.type
        if attr_name in names:
            return fail(f"Duplicate name: {attr_name}", "attr", i, "name")
        names.add(attr_name)
        attrs[attr_name] = attr
        if data_type_from_string(attr_name) is not None:
            return fail(f"Attr can't have name {attr_name} that matches a data type", "attr", i, "name")
        if attr_type not in _VALID_ATTR_TYPES:
            return fail(_attr_type_problem(attr), "attr", i)
        is_list = attr_type.startswith("list(")
        minimum = attr.minimum
        if attr.has_minimum:
            if not (attr_type == "int" or is_list):
                return fail(f"Attr '{attr_name}' has minimum for unsupported type {attr_type}", "attr", i)
            if is_list and minimum < 0:
                return fail(f"Attr '{attr_name}' with list type must have a non-negative minimum, "
                            f"not {minimum}", "attr", i)
        elif minimum != 0:
            return fail(f"Attr '{attr_name}' with has_minimum = false but minimum {minimum} "
                        "not equal to default of 0", "attr", i)
        if attr.HasField("allowed_values"):
            list_type = attr_type if is_list else f"list({attr_type})"
            problem = attr_value_has_type(attr.allowed_values, list_type)
            if problem:
                return OpDefProblem(f"{problem}\n\t for attr '{attr_name}' in Op '{name}'", "attr", i)
        if attr.HasField("default_value"):
            problem = validate_attr_value(attr.default_value, attr)
            if problem:
                return OpDefProblem(f"{problem}\n\t in Op '{name}'", "attr", i, "default_value")

    for part, args in (("input", op_def.input_arg), ("output", op_def.output_arg)):
        for i, arg in enumerate(args):
            arg_problem = _validate_arg(arg, attrs, part == "output", names)
            if arg_problem:
                message, arg_field = arg_problem
                return fail(message, part, i, arg_field)  # type: ignore[arg-type]
    return None


def _attr_type_problem(attr: op_def_pb2.OpDef.AttrDef) -> str:
    """Why `attr.type` is not one of `_VALID_ATTR_TYPES`, in TF's words."""
    rest = attr.type
    is_list = rest.startswith("list(")
    if is_list:
        rest = rest[5:]
    word = next((w for w in _ATTR_TYPES if rest.startswith(w)), None)
    if word is None:
        return f"Unrecognized type '{rest}' in attr '{attr.name}'"
    rest = rest[len(word):]
    if is_list:
        if not rest.startswith(")"):
            return f"'list(' is missing ')' in attr {attr.name}'s type {attr.type}"
        rest = rest[1:]
    return f"Extra '{rest}' at the end of attr {attr.name}'s type {attr.type}"


def _validate_arg(arg: op_def_pb2.OpDef.ArgDef, attrs: dict[str, op_def_pb2.OpDef.AttrDef], output: bool,
                  names: set[str]) -> tuple[str, str] | None:
    """TF's message for the first problem of `arg`, and the field of the arg it is about ("" for none)."""
    suffix = f" for {'output' if output else 'input'} '{arg.name}'"
    if arg.name in names:
        return f"Duplicate name: {arg.name}", "name"
    names.add(arg.name)
    if not (arg.type or arg.type_attr or arg.type_list_attr):
        return f"Missing type{suffix}", ""
    if arg.number_attr:
        attr = attrs.get(arg.number_attr)
        if attr is None:
            return f"No attr with name '{arg.number_attr}'{suffix}", "number_attr"
        if attr.type != "int":
            return f"Attr '{attr.name}' used as length{suffix} has type {attr.type} != int", "number_attr"
        if not attr.has_minimum:
            return f"Attr '{attr.name}' used as length{suffix} must have minimum", "number_attr"
        if attr.minimum < 0:
            return f"Attr '{attr.name}' used as length{suffix} must have minimum >= 0", "number_attr"
        if arg.type_list_attr:
            return f"Can't have both number_attr and type_list_attr{suffix}", ""
        if (1 if arg.type else 0) + (1 if arg.type_attr else 0) != 1:
            return f"Exactly one of type, type_attr must be set{suffix}", ""
    elif (1 if arg.type else 0) + (1 if arg.type_attr else 0) + (1 if arg.type_list_attr else 0) != 1:
        return f"Exactly one of type, type_attr, type_list_attr must be set{suffix}", ""
    if arg.type_attr:
        attr = attrs.get(arg.type_attr)
        if attr is None:
            return f"No attr with name '{arg.type_attr}'{suffix}", "type_attr"
        if attr.type != "type":
            return f"Attr '{attr.name}' used as type_attr{suffix} has type {attr.type} != type", "type_attr"
    elif arg.type_list_attr:
        attr = attrs.get(arg.type_list_attr)
        if attr is None:
            return f"No attr with name '{arg.type_list_attr}'{suffix}", "type_list_attr"
        if attr.type != "list(type)":
            return (f"Attr '{attr.name}' used as type_list_attr{suffix} has type {attr.type} != list(type)",
                    "type_list_attr")
    elif is_ref(arg.type):
        return f"Illegal use of ref type '{cpp_name(arg.type)}'. Use 'Ref(type)' instead{suffix}", "type"
    return None
