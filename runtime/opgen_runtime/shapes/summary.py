"""TF's SummarizeAttrValue (tensorflow/core/framework/attr_value_util.cc), the text of each
attr in a shape error's `{{node X}} = Op[attr=value, ...](...)`.

Floats as TF's strings::StrCat prints them (FloatToBuffer: `%.6g`, or `%.9g` when that does
not read back as the same float), strings C-escaped (absl::CEscape) and elided past 80
characters, lists of 30 values or more elided in the middle and followed by
`{attr_hash=N}`, N being farmhash's Fingerprint64 of the values joined by commas.
Checked against TF 2.21 by tests/shapes/test_runtime_shapes_edges.py.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..proto.c_escape import c_escape
from ..proto.fingerprint import fingerprint64
from ..values.tensor_shape import TensorShape
from .context import ShapeHandle, debug_string

if TYPE_CHECKING:
    from ..proto import attr_value_pb2, tensor_shape_pb2

_MAX_STRING_SUMMARY = 80  # SummarizeString's kMaxStringSummarySize
_MAX_LIST_SUMMARY = 30  # SummarizeAttrValue's kMaxListSummarySize


def float_to_buffer(value: float) -> str:
    """tsl's FloatToBuffer (what TF's strings::StrCat prints for a float)."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    text = f"{value:.6g}"
    if _to_float32(float(text)) != _to_float32(value):
        text = f"{value:.9g}"
    return text


def _to_float32(value: float) -> float:
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def summarize_string(data: bytes) -> str:
    escaped = c_escape(data)
    if len(escaped) >= _MAX_STRING_SUMMARY:
        return f'"{escaped[:10]}...{escaped[-10:]}"'
    return f'"{escaped}"'


def summarize_attr(value: attr_value_pb2.AttrValue, enum_name: Callable[[int], str]) -> str:
    """SummarizeAttrValue of the kinds an op's attrs hold (`enum_name` gives `DT_FLOAT`)."""
    which = value.WhichOneof("value")
    if which == "type":
        return enum_name(value.type)
    if which == "b":
        return "true" if value.b else "false"
    if which == "i":
        return str(value.i)
    if which == "f":
        return float_to_buffer(value.f)
    if which == "s":
        return summarize_string(value.s)
    if which == "shape":
        return summarize_shape(value.shape)
    if which == "list":
        lst = value.list
        pieces: list[str]
        if lst.s:
            pieces = [summarize_string(x) for x in lst.s]
        elif lst.i:
            pieces = [str(i) for i in lst.i]
        elif lst.f:
            pieces = [float_to_buffer(f) for f in lst.f]
        elif lst.b:
            pieces = ["true" if b else "false" for b in lst.b]
        elif lst.type:
            pieces = [enum_name(t) for t in lst.type]
        elif lst.shape:
            pieces = [summarize_shape(x) for x in lst.shape]
        else:
            pieces = []
        return summarize_list(pieces)
    return "<...>"


def summarize_list(pieces: list[str]) -> str:
    """A list attr's summarized items, the middle of a long list elided and its fingerprint appended."""
    if len(pieces) >= _MAX_LIST_SUMMARY:
        fingerprint = fingerprint64(",".join(pieces).encode("utf-8"))
        return "[" + ", ".join([*pieces[:5], "...", *pieces[-5:]]) + "]{attr_hash=" + str(fingerprint) + "}"
    return "[" + ", ".join(pieces) + "]"


def summarize_shape(proto: tensor_shape_pb2.TensorShapeProto) -> str:
    """PartialTensorShape::DebugString of a shape attr."""
    if proto.unknown_rank:
        return "<unknown>"
    return debug_string(ShapeHandle(TensorShape(proto)._dims))
