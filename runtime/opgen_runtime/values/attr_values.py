"""Python values -> AttrValue protos, with the conversion rules of TF's
`python/framework/op_def_library.py` (`_MakeInt`, `_MakeFloat`, `_MakeShape`, ...)."""

from __future__ import annotations

import numbers
from typing import Any

from opgen_runtime.proto import attr_value_pb2, op_def_pb2, tensor_pb2, tensor_shape_pb2

from . import dtypes as _dtypes
from . import tensor_shape as _tensor_shape
from .tf_objects import as_own_message


def make_float(v: Any, arg_name: str) -> float:
    if not isinstance(v, numbers.Real):
        raise TypeError(f"Expected float for argument '{arg_name}' not {v!r}.")
    return float(v)


def make_int(v: Any, arg_name: str) -> int:
    if isinstance(v, str):
        raise TypeError(f"Expected int for argument '{arg_name}' not {v!r}.")
    try:
        return int(v)
    except (ValueError, TypeError):
        raise TypeError(f"Expected int for argument '{arg_name}' not {v!r}.") from None


def make_str(v: Any, arg_name: str) -> bytes:
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, bytes):
        return v
    raise TypeError(f"Expected string for argument '{arg_name}' not {v!r}.")


def make_bool(v: Any, arg_name: str) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"Expected bool for argument '{arg_name}' not {v!r}.")
    return v


def make_type(v: Any, arg_name: str) -> int:
    try:
        return _dtypes.as_dtype(v)._base_enum
    except TypeError:
        raise TypeError(
            f"Expected DataType for argument '{arg_name}' not {v!r}."
        ) from None


def make_shape_proto(v: Any, arg_name: str) -> tensor_shape_pb2.TensorShapeProto:
    own = as_own_message(v, tensor_shape_pb2.TensorShapeProto)
    if own is not None:
        v = own
    if isinstance(v, tensor_shape_pb2.TensorShapeProto):
        if any(d.name for d in v.dim):
            import logging

            logging.getLogger(__name__).warning(
                "Warning: TensorShapeProto with a named dimension: %s", v
            )
        return v
    try:
        return _tensor_shape.as_shape(v).as_proto()
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"Error converting {v!r} (arg name = {arg_name}) to a TensorShape: {e}"
        ) from None


def make_tensor_proto_attr(v: Any, arg_name: str) -> tensor_pb2.TensorProto:
    own = as_own_message(v, tensor_pb2.TensorProto)
    if own is not None:
        v = own
    if isinstance(v, tensor_pb2.TensorProto):
        return v
    raise TypeError(
        f"Don't know how to convert {v!r} to a TensorProto for argument '{arg_name}'"
    )


def make_func(v: Any, arg_name: str) -> attr_value_pb2.NameAttrList:
    own = as_own_message(v, attr_value_pb2.NameAttrList)
    if own is not None:
        v = own
    if isinstance(v, attr_value_pb2.NameAttrList):
        return v
    if isinstance(v, (str, bytes)):
        return attr_value_pb2.NameAttrList(
            name=v.decode() if isinstance(v, bytes) else v
        )
    if hasattr(v, "add_to_graph"):
        from ..graph.graph import get_default_graph

        v.add_to_graph(get_default_graph())
        return getattr(v, "_as_name_attr_list", None) or attr_value_pb2.NameAttrList(
            name=v.name
        )
    raise TypeError(
        f"Don't know how to convert {v!r} to a func for argument {arg_name}"
    )


_SCALAR = {
    "string": ("s", make_str),
    "int": ("i", make_int),
    "float": ("f", make_float),
    "bool": ("b", make_bool),
    "type": ("type", make_type),
}
_LIST = {
    "list(string)": ("s", make_str),
    "list(int)": ("i", make_int),
    "list(float)": ("f", make_float),
    "list(bool)": ("b", make_bool),
    "list(type)": ("type", make_type),
    "list(shape)": ("shape", make_shape_proto),
    "list(tensor)": ("tensor", make_tensor_proto_attr),
    "list(func)": ("func", make_func),
}


def value_to_attr_value(
    value: Any, attr_type: str, arg_name: str
) -> attr_value_pb2.AttrValue:
    """Encodes `value` as an AttrValue of `attr_type` (TF's `value_to_attr_value`)."""
    if attr_type.startswith("list(") and not isinstance(value, (list, tuple)):
        raise TypeError(
            f"Expected list for attr {arg_name}, obtained {type(value).__name__} instead."
        )
    scalar = _SCALAR.get(attr_type)
    if scalar is not None:
        field, convert = scalar
        fields: dict[str, Any] = {field: convert(value, arg_name)}
        return attr_value_pb2.AttrValue(**fields)
    listed = _LIST.get(attr_type)
    if listed is not None:
        field, convert = listed
        attr_value = attr_value_pb2.AttrValue()
        getattr(attr_value.list, field).extend([convert(x, arg_name) for x in value])
        return attr_value
    if attr_type == "shape":
        return attr_value_pb2.AttrValue(shape=make_shape_proto(value, arg_name))
    if attr_type == "tensor":
        return attr_value_pb2.AttrValue(tensor=make_tensor_proto_attr(value, arg_name))
    if attr_type == "func":
        return attr_value_pb2.AttrValue(func=make_func(value, arg_name))
    raise TypeError(f"Unrecognized Attr type {attr_type} for {arg_name}.")


_TYPE_ATTRS = {
    # the stubs type enum fields as DataType; protobuf takes the int
    enum: attr_value_pb2.AttrValue(type=enum)  # type: ignore[arg-type]
    for enum in _dtypes.datatype_enums()
}


def _satisfies_type_constraint(
    dtype: Any, attr_def: op_def_pb2.OpDef.AttrDef, param_name: str
) -> None:
    if attr_def.HasField("allowed_values"):
        allowed = attr_def.allowed_values.list.type
        enum = dtype if isinstance(dtype, int) else dtype.as_datatype_enum
        if enum not in allowed:
            names = ", ".join(_dtypes.as_dtype(x).name for x in allowed)
            raise TypeError(
                f"Value passed to parameter '{param_name}' has DataType "
                f"{_dtypes.as_dtype(enum).name} not in list of allowed values: {names}"
            )


def _attr_proto(
    op_type_name: str,
    attr_def: op_def_pb2.OpDef.AttrDef,
    attr_type: str,
    key: str,
    value: Any,
) -> attr_value_pb2.AttrValue:
    """One attr's AttrValue with TF's checks (list minimum, allowed strings, int minimum, allowed types)."""
    if attr_type == "type":
        if type(value) is _dtypes.DType:
            enum = value._base_enum
        elif type(value) is int and value in _TYPE_ATTRS:
            enum = _dtypes._BY_ENUM[value]._base_enum
        else:
            enum = value_to_attr_value(value, attr_type, key).type
        _satisfies_type_constraint(enum, attr_def, key)
        return _TYPE_ATTRS[enum]
    if attr_type == "bool" and type(value) is bool:
        return _BOOL_ATTRS[value]
    if attr_type == "int" and type(value) is int and value in _INT_ATTRS:
        attr_value = _INT_ATTRS[value]
    else:
        attr_value = value_to_attr_value(value, attr_type, key)
    if (
        attr_type.startswith("list(")
        and attr_def.has_minimum
        and len(value) < attr_def.minimum
    ):
        raise ValueError(
            f"Attr '{key}' of '{op_type_name}' Op passed list of length {len(value)} less than minimum "
            f"{attr_def.minimum}."
        )
    if attr_def.HasField("allowed_values"):
        if attr_type == "string":
            _satisfies_allowed_strings(attr_value.s, attr_def, key, op_type_name)
        elif attr_type == "list(string)":
            for s in attr_value.list.s:
                _satisfies_allowed_strings(s, attr_def, key, op_type_name)
    if attr_def.has_minimum and attr_type == "int" and attr_value.i < attr_def.minimum:
        raise ValueError(
            f"Attr '{key}' of '{op_type_name}' Op passed {attr_value.i} less than minimum {attr_def.minimum}."
        )
    if attr_type == "list(type)":
        for t in attr_value.list.type:
            _satisfies_type_constraint(t, attr_def, key)
    return attr_value


# Shared AttrValues of common values (never mutated: Operation._set_attr replaces, and
# NodeDefs copy them).
_INT_ATTRS = {i: attr_value_pb2.AttrValue(i=i) for i in range(64)}
_BOOL_ATTRS = {
    False: attr_value_pb2.AttrValue(b=False),
    True: attr_value_pb2.AttrValue(b=True),
}


def _satisfies_allowed_strings(
    value: bytes, attr_def: op_def_pb2.OpDef.AttrDef, arg_name: str, op_type_name: str
) -> None:
    if value not in attr_def.allowed_values.list.s:
        allowed = '", "'.join(
            s.decode("utf-8", "replace") for s in attr_def.allowed_values.list.s
        )
        raise ValueError(
            f"Attr '{arg_name}' of '{op_type_name}' Op passed string '{value.decode('utf-8', 'replace')}' "
            f'not in: "{allowed}".'
        )
