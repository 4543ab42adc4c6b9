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
    if _to_float32(float(text)) != value:
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
        if len(pieces) >= _MAX_LIST_SUMMARY:
            fingerprint = fingerprint64(",".join(pieces).encode("utf-8"))
            shown = [*pieces[:5], "...", *pieces[-5:]]
            return "[" + ", ".join(shown) + "]{attr_hash=" + str(fingerprint) + "}"
        return "[" + ", ".join(pieces) + "]"
    return "<...>"


def summarize_shape(proto: tensor_shape_pb2.TensorShapeProto) -> str:
    """PartialTensorShape::DebugString of a shape attr."""
    if proto.unknown_rank:
        return "<unknown>"
    return debug_string(ShapeHandle(TensorShape(proto)._dims))


# ----------------------------------------------------------------------------- farmhash
# Fingerprint64 (tsl/platform/fingerprint.h) is farmhash's Fingerprint64, i.e. its
# farmhashna::Hash64: unsigned 64-bit arithmetic on little-endian words.

_M64 = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _fetch64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i : i + 8], "little")


def _fetch32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i : i + 4], "little")


def _rotate(v: int, shift: int) -> int:
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _M64


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash_len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M64
    b ^= b >> 47
    return (b * mul) & _M64


def _hash_len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(s, 0) + _K2) & _M64
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & _M64
        d = ((_rotate(a, 25) + b) * mul) & _M64
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        a = _fetch32(s, 0)
        return _hash_len16((n + (a << 3)) & _M64, _fetch32(s, n - 4), mul)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M64) * _K2) & _M64
    return _K2


def _hash_len17to32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K1) & _M64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M64
    d = (_fetch64(s, n - 16) * _K2) & _M64
    return _hash_len16(
        (_rotate((a + b) & _M64, 43) + _rotate(c, 30) + d) & _M64,
        (a + _rotate((b + _K2) & _M64, 18) + c) & _M64,
        mul,
    )


def _hash_len33to64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K2) & _M64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M64
    d = (_fetch64(s, n - 16) * _K2) & _M64
    y = (_rotate((a + b) & _M64, 43) + _rotate(c, 30) + d) & _M64
    z = _hash_len16(y, (a + _rotate((b + _K2) & _M64, 18) + c) & _M64, mul)
    e = (_fetch64(s, 16) * mul) & _M64
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _M64
    h = ((z + _fetch64(s, n - 24)) * mul) & _M64
    return _hash_len16(
        (_rotate((e + f) & _M64, 43) + _rotate(g, 30) + h) & _M64,
        (e + _rotate((f + a) & _M64, 18) + g) & _M64,
        mul,
    )


def _weak_hash_len32_with_seeds(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = (_fetch64(s, i + k) for k in (0, 8, 16, 24))
    a = (a + w) & _M64
    b = _rotate((b + a + z) & _M64, 21)
    c = a
    a = (a + x + y) & _M64
    b = (b + _rotate(a, 44)) & _M64
    return (a + z) & _M64, (b + c) & _M64


def fingerprint64(s: bytes) -> int:
    """farmhash::Fingerprint64 (farmhashna::Hash64)."""
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s)
    if n <= 32:
        return _hash_len17to32(s)
    if n <= 64:
        return _hash_len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M64
    z = (_shift_mix((y * _K2 + 113) & _M64) * _K2) & _M64
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _fetch64(s, 0)) & _M64
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _M64, 37) * _K1) & _M64
        y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _M64, 42) * _K1) & _M64
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & _M64
        z = (_rotate((z + w[0]) & _M64, 33) * _K1) & _M64
        v = _weak_hash_len32_with_seeds(s, i, (v[1] * _K1) & _M64, (x + w[0]) & _M64)
        w = _weak_hash_len32_with_seeds(s, i + 32, (z + w[1]) & _M64, (y + _fetch64(s, i + 16)) & _M64)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & _M64
    v0 = (v[0] + w0) & _M64
    w0 = (w0 + v0) & _M64
    v = (v0, v[1])
    w = (w0, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _M64, 37) * mul) & _M64
    y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _M64, 42) * mul) & _M64
    x ^= (w[1] * 9) & _M64
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & _M64
    z = (_rotate((z + w[0]) & _M64, 33) * mul) & _M64
    v = _weak_hash_len32_with_seeds(s, i, (v[1] * mul) & _M64, (x + w[0]) & _M64)
    w = _weak_hash_len32_with_seeds(s, i + 32, (z + w[1]) & _M64, (y + _fetch64(s, i + 16)) & _M64)
    z, x = x, z
    return _hash_len16(
        (_hash_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _M64,
        (_hash_len16(v[1], w[1], mul) + x) & _M64,
        mul,
    )
