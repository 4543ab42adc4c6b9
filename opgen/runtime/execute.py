"""Generated wrappers' attr conversions: TF's `_execute.make_*` (tf_semantics G13).

`make_type` returns the DataType enum, `make_str` bytes, `make_shape` a list (None for
unknown rank); `make_tensor` also parses a text-format TensorProto.
"""

from __future__ import annotations

from typing import Any

from opgen.proto import tensor_pb2

from . import tensor_shape as _tensor_shape
from .attr_values import make_bool, make_float, make_int, make_str, make_type

__all__ = [
    "make_bool",
    "make_float",
    "make_int",
    "make_shape",
    "make_str",
    "make_tensor",
    "make_type",
]


def make_shape(v: Any, arg_name: str) -> list[int | None] | None:
    try:
        shape = _tensor_shape.as_shape(v)
    except TypeError as e:
        raise TypeError(f"Error converting {arg_name} to a TensorShape: {e}.") from None
    except ValueError as e:
        raise ValueError(
            f"Error converting {arg_name} to a TensorShape: {e}."
        ) from None
    return None if shape.rank is None else shape.as_list()


def make_tensor(v: Any, arg_name: str) -> tensor_pb2.TensorProto:
    if isinstance(v, tensor_pb2.TensorProto):
        return v
    if isinstance(v, str):
        from google.protobuf import text_format

        proto = tensor_pb2.TensorProto()
        text_format.Merge(v, proto)
        return proto
    raise TypeError(
        f"Don't know how to convert {v!r} to a TensorProto for argument '{arg_name}'."
    )
