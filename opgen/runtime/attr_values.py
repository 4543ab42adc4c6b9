"""Python values -> AttrValue protos, with TF's `op_def_library` conversion rules (G7)."""

from __future__ import annotations

import numbers
from typing import Any

from opgen.proto import attr_value_pb2, tensor_pb2, tensor_shape_pb2

from . import dtypes as _dtypes
from . import tensor_shape as _tensor_shape


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
    if isinstance(v, tensor_pb2.TensorProto):
        return v
    raise TypeError(
        f"Don't know how to convert {v!r} to a TensorProto for argument '{arg_name}'"
    )


def make_func(v: Any, arg_name: str) -> attr_value_pb2.NameAttrList:
    if isinstance(v, attr_value_pb2.NameAttrList):
        return v
    if isinstance(v, (str, bytes)):
        return attr_value_pb2.NameAttrList(
            name=v.decode() if isinstance(v, bytes) else v
        )
    if hasattr(v, "add_to_graph"):
        from .graph import get_default_graph

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
        return attr_value_pb2.AttrValue(**{field: convert(value, arg_name)})
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
