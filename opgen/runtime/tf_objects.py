"""TensorFlow's own objects as opgen's, without importing TensorFlow.

TF's wrappers accept `tf.TensorShape`, `Dimension` and TF's protobuf messages wherever they
take a shape, a dimension or a proto; opgen's conversions (`make_shape`, `make_tensor`,
`TensorShape`) pass such values through `from_tensorflow` first. Recognised by module and
class name, so nothing here imports TensorFlow.
"""

from __future__ import annotations

from typing import Any

from opgen.proto import attr_value_pb2, tensor_pb2, tensor_shape_pb2

_MESSAGES: dict[str, Any] = {
    "TensorProto": tensor_pb2.TensorProto,
    "TensorShapeProto": tensor_shape_pb2.TensorShapeProto,
    "AttrValue": attr_value_pb2.AttrValue,
    "NameAttrList": attr_value_pb2.NameAttrList,
}


def is_tensorflow_object(value: Any) -> bool:
    return type(value).__module__.startswith("tensorflow.")


def from_tensorflow(value: Any) -> Any:
    """opgen's TensorShapeProto for a `tf.TensorShape`, an int (or None) for a `Dimension`,
    opgen's message for one of TF's messages; anything else unchanged."""
    if not is_tensorflow_object(value):
        return value
    name = type(value).__name__
    if name == "TensorShape" and hasattr(value, "as_proto"):
        value = value.as_proto()
        name = type(value).__name__
    if name == "Dimension" and hasattr(value, "value"):
        return value.value
    message = _MESSAGES.get(name)
    if message is not None and hasattr(value, "SerializeToString"):
        return message.FromString(value.SerializeToString())
    return value
