"""Recognising TensorFlow's own objects (DType, TensorShape, Dimension, protos) without
importing TensorFlow: such an object can only exist when TensorFlow is already imported, so
its class is identified by module and name, and protos are re-read as opgen's messages.
"""

from __future__ import annotations

from typing import Any, TypeVar

Message = TypeVar("Message")


def _tf_class(value: Any, module: str, name: str) -> bool:
    cls = type(value)
    return cls.__name__ == name and cls.__module__ == module


def is_tf_dtype(value: Any) -> bool:
    return _tf_class(value, "tensorflow.python.framework.dtypes", "DType")


def is_tf_tensor_shape(value: Any) -> bool:
    return _tf_class(value, "tensorflow.python.framework.tensor_shape", "TensorShape")


def is_tf_dimension(value: Any) -> bool:
    return _tf_class(value, "tensorflow.python.framework.tensor_shape", "Dimension")


def as_own_message(value: Any, message_class: type[Message]) -> Message | None:
    """`value` re-read as `message_class` (opgen's copy of a TF proto) when it is TF's own
    message of that type (e.g. `tensorflow.TensorShapeProto`), else None."""
    descriptor = getattr(value, "DESCRIPTOR", None)
    own = message_class.DESCRIPTOR  # type: ignore[attr-defined]
    if (
        descriptor is None
        or getattr(descriptor, "full_name", None) != "tensorflow." + own.name
        or not hasattr(value, "SerializeToString")
    ):
        return None
    # A typed local: protobuf's classes are Any to mypy (no stubs), so FromString returns Any.
    message: Message = message_class.FromString(value.SerializeToString())  # type: ignore[attr-defined]
    return message
