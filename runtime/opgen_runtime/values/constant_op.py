"""Python values and numpy arrays -> Const ops, with TensorFlow's dtype inference
(TF's `python/framework/tensor_util.py` `make_tensor_proto`).

Python scalars and nested lists are handled without numpy, reproducing what TF's
`make_tensor_proto` does through numpy: int64 results narrowed to int32 when every value
fits, float64 narrowed to float32, `[]` is float32 of shape (0,), content-typed tensors with
more than one element use `tensor_content`, others the typed `*_val` fields. numpy is used
only when the value itself is a numpy object (so it is already imported).
"""

from __future__ import annotations

import math
import numbers
import struct
import sys
from collections.abc import Callable
from typing import Any

from opgen_runtime.proto import attr_value_pb2, tensor_pb2

from ..graph.graph import Graph, get_default_graph
from ..graph.tensor import Tensor
from . import dtypes as _dtypes
from .tensor_shape import Dimension, TensorShape
from .tf_objects import as_own_message, is_tf_dimension

# A Const's parts, planned before the op exists: (attrs, DType, TensorShape) (`_const_op`).
ConstParts = tuple[dict[str, attr_value_pb2.AttrValue], _dtypes.DType, TensorShape]

# DataTypes TF serialises into tensor_content when a tensor has more than one element.
_CONTENT_TYPES = {
    19,
    1,
    2,
    3,
    4,
    5,
    6,
    9,
    11,
    12,
    15,
    16,
    13,
    22,
    23,
    24,
    25,
    26,
    27,
    28,
    33,
    14,
}
_STRUCT_FORMAT = {
    1: "f",
    2: "d",
    3: "i",
    4: "B",
    5: "h",
    6: "b",
    9: "q",
    17: "H",
    22: "I",
    23: "Q",
    19: "e",
}
_INT_RANGES = {
    3: (-(2**31), 2**31 - 1),
    4: (0, 255),
    5: (-(2**15), 2**15 - 1),
    6: (-128, 127),
    9: (-(2**63), 2**63 - 1),
    17: (0, 2**16 - 1),
    22: (0, 2**32 - 1),
    23: (0, 2**64 - 1),
}
_NUMPY_NAME = {
    3: "int32",
    4: "uint8",
    5: "int16",
    6: "int8",
    9: "int64",
    17: "uint16",
    22: "uint32",
    23: "uint64",
}
_INT_VAL = {3, 4, 5, 6, 17, 11, 12, 13, 15, 16, 29, 30, 31, 32}


def _numpy() -> Any:
    return sys.modules.get("numpy")


def _is_numpy_value(value: Any) -> bool:
    np = _numpy()
    return np is not None and isinstance(value, (np.ndarray, np.generic))


def _is_array_like(value: Any) -> bool:
    """TF's `tensor_util._is_array_like` (`__array__`, `__array_interface__`, buffers), for
    values that are not numpy objects already; only when numpy is imported (an array-like
    object comes from a library that imported it)."""
    if _numpy() is None or _is_numpy_value(value) or isinstance(value, Tensor):
        return False
    if callable(getattr(value, "__array__", None)) or isinstance(
        getattr(value, "__array_interface__", None), dict
    ):
        return True
    try:
        memoryview(value)
    except TypeError:
        return False
    return not isinstance(value, bytes)


def _dense_dims(value: Any) -> list[int]:
    if not isinstance(value, (list, tuple)):
        return []
    if not value:
        return [0]
    return [len(value), *_dense_dims(value[0])]


def _flatten(
    value: Any, dims: list[int], depth: int, out: list[Any], original: Any
) -> None:
    if depth == len(dims):
        if isinstance(value, (list, tuple)):
            raise _ragged(original, dims)
        out.append(value)
        return
    if not isinstance(value, (list, tuple)) or len(value) != dims[depth]:
        raise _ragged(original, dims)
    for item in value:
        _flatten(item, dims, depth + 1, out, original)


def _ragged(value: Any, dims: list[int]) -> ValueError:
    """numpy's error for a ragged nested list (what `np.array` raises inside TF's
    `make_tensor_proto`): the array keeps the leading dimensions where every sequence at a
    depth has the same length and no scalar sits beside a sequence."""
    del dims
    lengths: dict[int, int] = {}
    scalar_depths: set[int] = set()
    ndim = [32]

    def visit(v: Any, depth: int) -> None:
        if isinstance(v, (list, tuple)):
            if depth in scalar_depths or lengths.setdefault(depth, len(v)) != len(v):
                ndim[0] = min(ndim[0], depth)
            for item in v:
                visit(item, depth + 1)
        else:
            if depth in lengths:
                ndim[0] = min(ndim[0], depth)
            scalar_depths.add(depth)

    visit(value, 0)
    shape = tuple(lengths[d] for d in range(ndim[0]))
    return ValueError(
        "setting an array element with a sequence. The requested array has an inhomogeneous shape "
        f"after {ndim[0]} dimensions. The detected shape was {shape} + inhomogeneous part."
    )


def _kind(v: Any) -> str:
    """numpy's kind letter for a Python scalar (b, i, f, c, U, S, O)."""
    if isinstance(v, bool):
        return "b"
    if isinstance(v, (int, Dimension)):
        return "i"
    if isinstance(v, float):
        return "f"
    if isinstance(v, complex):
        return "c"
    if isinstance(v, str):
        return "U"
    if isinstance(v, bytes):
        return "S"
    np = _numpy()
    if np is not None and isinstance(v, np.generic):
        kind: str = v.dtype.kind  # typed: numpy is Any here (never imported by this module)
        return {"u": "i"}.get(kind, kind)
    return "O"


def _not_convertible(values: Any) -> TypeError:
    return TypeError(
        f"Failed to convert elements of {values} to Tensor. Consider casting elements to a "
        "supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for "
        "supported TF dtypes."
    )


def _infer_dtype(flat: list[Any], values: Any) -> int:
    """The DataType TF infers for flattened Python values (numpy promotion + TF narrowing)."""
    kinds = {_kind(v) for v in flat}
    if not flat:
        return 1
    if "O" in kinds or (kinds & {"U", "S"} and kinds - {"U", "S"}):
        if kinds <= {"U", "S", "i", "f", "b", "c"} and "O" not in kinds:
            return 7  # numpy makes a unicode array of mixed scalars
        raise _not_convertible(values)
    if kinds & {"U", "S"}:
        return 7
    if "c" in kinds:
        return 18
    if "f" in kinds:
        return 1
    if "i" in kinds:
        ints = [int(v) for v in flat]
        lo, hi = min(ints), max(ints)
        if lo >= -(2**31) and hi < 2**31:
            return 3
        if lo >= -(2**63) and hi < 2**63:
            return 9
        if lo < -(2**63) or hi >= 2**64:
            raise _not_convertible(values)  # numpy: an object array
        # numpy gives each int int64 or uint64; both kinds together promote to float64
        plain = [int(v) for v in flat if not isinstance(v, bool)]
        return 23 if min(plain) >= 2**63 else 1
    return 10


# The length of numpy's text of a scalar of each kind in a unicode array (`np.array(["a", 1])`
# is `<U21`).
_TEXT_WIDTH = {"b": 5, "i": 21, "f": 32, "c": 64}


def _numpy_dtype_text(flat: list[Any], values: Any) -> str:
    """How numpy names the dtype `np.array` gives these Python values (TF's message for a dtype
    they cannot have quotes `nparray.dtype`, before TF narrows float64 and int64): `object`
    for values TF cannot convert, and for Dimensions."""
    try:
        enum = _infer_dtype(flat, values)
    except TypeError:
        return "object"
    if any(isinstance(v, Dimension) for v in flat):
        return "object"
    kinds = {_kind(v) for v in flat}
    if kinds == {"S"}:
        return f"|S{max(1, *(len(v) for v in flat))}"
    if enum == 7:
        widths = [len(v) if isinstance(v, (str, bytes)) else _TEXT_WIDTH.get(_kind(v), 1) for v in flat]
        return f"<U{max(1, *widths)}"
    if enum == 3:
        return "int64"
    return "float64" if enum == 1 else _dtypes.as_dtype(enum).name


def _check_compatible(flat: list[Any], dtype: _dtypes.DType) -> None:
    """TF's `_AssertCompatible`: each element must suit the requested dtype."""
    base = dtype._base_enum
    ok: Callable[[Any], bool]
    if base == 10:
        ok = lambda v: isinstance(v, bool) or _kind(v) == "b"
    elif base == 7:
        ok = lambda v: isinstance(v, (str, bytes))
    elif dtype.is_complex:
        ok = lambda v: isinstance(v, numbers.Complex)
    elif dtype.is_floating:
        ok = lambda v: isinstance(v, numbers.Real) or _kind(v) in "bif"
    elif dtype.is_integer or dtype.is_quantized:
        ok = lambda v: (
            isinstance(v, (numbers.Integral, Dimension))
            or is_tf_dimension(v)
            or _kind(v) in "bi"
        )
    else:
        ok = lambda v: not isinstance(v, Tensor)
    for v in flat:
        if not ok(v) or isinstance(v, Tensor):
            raise TypeError(
                f"Expected {dtype.name}, but got {v} of type '{type(v).__name__}'."
            )


def _bfloat16_bits(x: float) -> int:
    bits: int = struct.unpack("<I", struct.pack("<f", x))[0]
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
        return 0x7FC0
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def _cast(flat: list[Any], enum: int) -> list[Any]:
    if enum == 7:
        if not all(isinstance(v, (str, bytes)) for v in flat):
            raise _not_convertible(flat)
        return [_as_bytes(v) for v in flat]
    if enum == 10:
        return [bool(v) for v in flat]
    if enum in (8, 18):
        return [complex(v) for v in flat]
    if enum in _INT_RANGES:
        # TF casts through numpy's `astype`, which wraps out-of-range integers modulo 2**bits.
        out = [int(v) for v in flat]
        lo, hi = _INT_RANGES[enum]
        span = hi - lo + 1
        for i, v in enumerate(out):
            if v < -(2**63) or v >= 2**64:
                raise OverflowError("Python int too large to convert to C long")
            if v < lo or v > hi:
                out[i] = (v - lo) % span + lo
        return out
    if enum in _INT_VAL:
        return [int(v) for v in flat]
    limit = _FLOAT_OVERFLOW.get(enum)
    if limit is None:
        return [float(v) for v in flat]
    return [_saturate(float(v), limit) for v in flat]


# Values at or beyond these round to +-inf when numpy casts to float32 / float16.
_FLOAT_OVERFLOW = {1: 3.4028235677973366e38, 19: 65520.0}


def _saturate(x: float, limit: float) -> float:
    if abs(x) >= limit and not math.isnan(x):
        return float("inf") if x > 0 else float("-inf")
    return x


def _python_tensor_proto(
    values: Any, dtype: _dtypes.DType | None
) -> tensor_pb2.TensorProto:
    if values is None:
        raise ValueError("None values not supported.")
    dims = _dense_dims(values)
    flat: list[Any] = []
    _flatten(values, dims, 0, flat, values)
    if dtype is None:
        if any(isinstance(v, Tensor) for v in flat):
            raise TypeError("Expected any non-tensor type, but got a tensor instead.")
        enum = _infer_dtype(flat, values)
    else:
        _check_compatible(flat, dtype)
        enum = dtype._base_enum
        if not dtype.is_numpy_compatible:
            inferred = _numpy_dtype_text(flat, values)
            raise TypeError(
                f"`dtype` {dtype} is not compatible with {values} of dtype {inferred}."
            )
    return _encode(_cast(flat, enum), enum, dims)


def _encode(flat: list[Any], enum: int, dims: list[int]) -> tensor_pb2.TensorProto:
    proto = tensor_pb2.TensorProto(dtype=enum)  # type: ignore[arg-type]  # an int enum
    shape = proto.tensor_shape
    shape.SetInParent()
    for d in dims:
        shape.dim.add(size=d)
    n = len(flat)
    if n > 1 and enum in _CONTENT_TYPES:
        if enum == 14:
            proto.tensor_content = struct.pack(
                f"<{n}H", *[_bfloat16_bits(v) for v in flat]
            )
        else:
            proto.tensor_content = struct.pack(f"<{n}{_STRUCT_FORMAT[enum]}", *flat)
        return proto
    if enum == 7:
        proto.string_val.extend(flat)
    elif enum == 1:
        proto.float_val.extend(flat)
    elif enum == 2:
        proto.double_val.extend(flat)
    elif enum == 9:
        proto.int64_val.extend(flat)
    elif enum == 22:
        proto.uint32_val.extend(flat)
    elif enum == 23:
        proto.uint64_val.extend(flat)
    elif enum == 10:
        proto.bool_val.extend(flat)
    elif enum == 8:
        proto.scomplex_val.extend([p for c in flat for p in (c.real, c.imag)])
    elif enum == 18:
        proto.dcomplex_val.extend([p for c in flat for p in (c.real, c.imag)])
    elif enum == 19:
        proto.half_val.extend(
            [struct.unpack("<H", struct.pack("<e", v))[0] for v in flat]
        )
    elif enum == 14:
        proto.half_val.extend([_bfloat16_bits(v) for v in flat])
    elif enum in _INT_VAL:
        proto.int_val.extend(flat)
    else:
        raise TypeError(
            f"Element type not supported in TensorProto: {_dtypes.as_dtype(enum).name}."
        )
    return proto


def _numpy_tensor_proto(
    values: Any, dtype: _dtypes.DType | None
) -> tensor_pb2.TensorProto:
    np = _numpy()
    if dtype is not None and dtype.is_numpy_compatible and not dtype.is_quantized:
        array = np.asarray(values).astype(dtype.as_numpy_dtype)
    else:
        array = np.asarray(values)
    found = _dtypes.as_dtype(array.dtype)
    if (
        dtype is not None
        and dtype.base_dtype != found.base_dtype
        and not dtype.is_quantized
    ):
        raise TypeError(
            f"`dtype` {dtype} is not compatible with {values} of dtype {array.dtype}."
        )
    enum = (
        dtype._base_enum
        if dtype is not None and dtype.is_quantized
        else found.as_datatype_enum
    )
    dims = list(array.shape)
    if array.size > 1 and enum in _CONTENT_TYPES:
        proto = tensor_pb2.TensorProto(
            dtype=enum,  # type: ignore[arg-type]  # an int enum
            tensor_content=array.astype(array.dtype.newbyteorder("<")).tobytes(),
        )
        proto.tensor_shape.SetInParent()
        for d in dims:
            proto.tensor_shape.dim.add(size=d)
        return proto
    flat = array.ravel().tolist()
    if enum in (14, 24, 25, 26, 27, 28, 33):
        flat = [float(v) for v in flat]
    if enum == 7:
        return _encode([_as_bytes(v) for v in flat], enum, dims)
    return _encode(_cast(flat, enum), enum, dims)


def _as_bytes(v: Any) -> bytes:
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    raise TypeError(f"Expected binary or unicode string, got {v!r}")


def make_tensor_proto(values: Any, dtype: Any = None) -> tensor_pb2.TensorProto:
    """A TensorProto for a Python value or numpy array, as TF's `make_tensor_proto` builds it."""
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    own = as_own_message(values, tensor_pb2.TensorProto)
    if own is not None:
        return own
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
    if _is_array_like(values):
        values = _numpy().asarray(values)
    if _is_numpy_value(values):
        return _numpy_tensor_proto(values, dtype)
    return _python_tensor_proto(values, dtype)


def constant(
    value: Any, dtype: Any = None, name: str = "Const", graph: Graph | None = None
) -> Tensor:
    """A Const op holding `value` in the default graph (named like TF: uniquified `name`)."""
    return _const_op(_const_parts(make_tensor_proto(value, dtype)), name, graph)


def _const_parts_for(value: Any, dtype: Any, preferred_dtype: Any) -> ConstParts:
    """(attrs, DType, TensorShape) of the Const for a Python value; creates nothing."""
    key = _cache_key(value, dtype, preferred_dtype)
    if key is None:
        return _convert_uncached(value, dtype, preferred_dtype)
    cached = _const_cache.get(key)
    if cached is None:
        cached = _convert_uncached(value, dtype, preferred_dtype)
        if len(_const_cache) >= 4096:
            _const_cache.clear()
        _const_cache[key] = cached
    return cached


# Const attrs for small Python scalars/flat lists, keyed by exact value and requested dtypes:
# repeated constants (axes, scalars) skip TensorProto construction. The AttrValues are shared
# and never mutated.
_const_cache: dict[tuple[Any, Any, Any], ConstParts] = {}
_SCALAR_TYPES = (int, float, bool, str, bytes)
_INT_ONLY = frozenset({int})


def _scalar_key(v: Any) -> Any:
    t = type(v)
    if t is float:
        return (t, v.hex())
    if t in _SCALAR_TYPES:
        return (t, v)
    raise TypeError


def _dtype_key(dtype: Any) -> Any:
    if dtype is None:
        return None
    if type(dtype) is int and dtype in _dtypes._BY_ENUM:
        return dtype
    if type(dtype) is _dtypes.DType:
        return dtype._type_enum
    return _dtypes.as_dtype(dtype).as_datatype_enum


def _cache_key(value: Any, dtype: Any, preferred_dtype: Any) -> tuple[Any, Any, Any] | None:
    try:
        if type(value) in (list, tuple):
            if len(value) > 8:
                return None
            value_key: tuple[Any, ...]
            if set(map(type, value)) <= _INT_ONLY:  # axes and shapes: no generator per call
                value_key = (list, int, tuple(value))
            else:
                value_key = (list, tuple(_scalar_key(v) for v in value))
        else:
            value_key = _scalar_key(value)
        return value_key, _dtype_key(dtype), _dtype_key(preferred_dtype)
    except TypeError:
        return None


def _convert_uncached(value: Any, dtype: Any, preferred_dtype: Any) -> ConstParts:
    """(attrs, DType, TensorShape) of the Const that `convert_to_tensor` creates for `value`."""
    if dtype is None and preferred_dtype is not None:
        try:
            proto = make_tensor_proto(value, preferred_dtype)
        except (TypeError, ValueError):
            pass
        else:
            return _const_parts(proto)
    return _const_parts(make_tensor_proto(value, dtype))


def _const_parts(proto: tensor_pb2.TensorProto) -> ConstParts:
    attrs = {
        "value": attr_value_pb2.AttrValue(tensor=proto),
        "dtype": attr_value_pb2.AttrValue(type=proto.dtype),
    }
    return (
        attrs,
        _dtypes._BY_ENUM[proto.dtype],
        TensorShape([d.size for d in proto.tensor_shape.dim]),
    )


def _const_op(parts: ConstParts, name: str | None, graph: Graph | None = None) -> Tensor:
    attrs, dtype, shape = parts
    g = graph or get_default_graph()
    # the cached attrs dict itself: ops never change an attrs dict in place
    op = g._create_op("Const", [], name or "Const", attrs, [dtype], None)
    out = op._outputs[0]
    out._shape = shape
    return out
