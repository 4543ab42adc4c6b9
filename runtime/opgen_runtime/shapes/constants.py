"""Statically known tensor values for shape functions, as TF's ShapeRefiner finds them.

`constant_value` is TF 2.21's EvaluateConstantTensor (tensorflow/core/common_runtime/
eval_const_tensor.cc). TF reads Shape (fully known input), Size (fully known), Rank (known
rank) and `shape(x)[i]` / `unstack(shape(x))[i]` (only dim i known; TryInferFromShapes,
GetSliceIndex) from shapes, and otherwise extracts the constant subgraph feeding the
tensor (ExtractConstantSubgraph: no placeholders or other input-less non-Const nodes, no
stateful ops, no Enter/Exit/Merge, no function attrs, a CPU kernel) and runs its kernels,
a kernel error leaving the value unknown. TF bounds neither the subgraph nor the value
(ShapeRefiner only caches results up to 1 KiB). The runtime ports the kernels shape
tensors are commonly built with, giving TF's value or no value, never another one:
Const, Identity, Cast (to int or float), Pack, ConcatV2 (of vectors), BroadcastArgs,
StridedSlice (along axis 0), Slice, Reshape, ExpandDims, Squeeze, Tile, Transpose,
GatherV2 (batch_dims 0), Unpack, Range, Fill, ShapeN (of constant inputs), Sum, Prod,
Max, Min and Mean of integers (axes, keep_dims, empty reductions), ZerosLike/OnesLike,
and Add, AddV2, Sub, Mul, FloorDiv, FloorMod, Maximum, Minimum, Neg, RealDiv (floats;
TF has no integer kernel). Results are stored in the output dtype: integers wrap as
int32/int64 do, float32 is rounded; a float cast out of an integer's range, other ops,
chains deeper than 16 ops and values over 65536 elements give no value (TF might fold
them). An int32 Shape/Size value >= INT32_MAX is TF's error (`RefinerError`, raised as
the op's ValueError), not an unknown value.

`partial_shape` is ShapeRefiner::ConstantPartialShape (shape_refiner.cc): a shape tensor
read as a partial shape, so `reshape(x, stack([batch, 3]))` keeps the known 3.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..graph.tensor import Tensor

# (flat values, dims) of a tensor known statically.
Values = tuple[list[Any], list[int]]
# The value of an op's output from its inputs' values (`constant_value`), at a depth.
Evaluator = Callable[["Tensor", int], Values | None]

_STRUCT_FORMATS = {
    1: "f",
    2: "d",
    3: "i",
    9: "q",
    4: "B",
    5: "h",
    6: "b",
    17: "H",
    22: "I",
    23: "Q",
}
_VALUE_FIELDS = {
    1: "float_val",
    2: "double_val",
    9: "int64_val",
    10: "bool_val",
    7: "string_val",
    22: "uint32_val",
    23: "uint64_val",
}
_INT_TYPES = {3: "int32", 9: "int64"}
_decoded: dict[int, tuple[Any, Values]] = {}
# TF's EvaluateConstantTensor has no size bound (ShapeRefiner::EvaluateConstantTensorForEdge
# only caches results up to kMaxTensorSize = 1024 bytes, which changes no value); the
# runtime gives no value past this many elements, to bound its own work.
_MAX_ELEMENTS = 1 << 16


class RefinerError(ValueError):
    """An error of TF's EvaluateConstantTensor itself, which fails the op's creation with
    this message alone (no node framing) instead of leaving the value unknown."""


_INT32_MAX = 2**31 - 1


def _check_int32(tensor: Tensor, values: list[int]) -> None:
    """TryInferFromShapes (eval_const_tensor.cc): an int32 Shape/Size output (or an element
    of one) holding a value >= INT32_MAX is an error, not an unknown value."""
    if tensor._dtype._base_enum == 3:
        for v in values:
            if v >= _INT32_MAX:
                raise RefinerError(f"Value is out of int32 range: {v}")


def tensor_proto_values(proto: Any) -> Values:
    """The flat values and dims of a TensorProto (int/float/bool/string types), memoised."""
    hit = _decoded.get(id(proto))
    if hit is not None and hit[0] is proto:
        return hit[1]
    dims = [d.size for d in proto.tensor_shape.dim]
    n = 1
    for d in dims:
        n *= d
    dtype = proto.dtype
    fmt = _STRUCT_FORMATS.get(dtype)
    if fmt and proto.tensor_content:
        values = list(struct.unpack(f"<{n}{fmt}", proto.tensor_content))
    else:
        values = list(getattr(proto, _VALUE_FIELDS.get(dtype, "int_val")))
        if len(values) < n and values:
            values += [values[-1]] * (n - len(values))
    if len(_decoded) >= 4096:
        _decoded.clear()
    # the entry keeps proto alive, so its id stays unique
    _decoded[id(proto)] = (proto, (values, dims))
    return values, dims


def constant_value(tensor: Tensor, depth: int = 0) -> Values | None:
    """The value of `tensor` when TF's shape refiner can evaluate it statically, else None."""
    op = tensor._op
    kind = op._type
    if kind == "Const":
        return tensor_proto_values(op._attrs["value"].tensor)
    if depth > 16:
        return None
    if kind in ("StridedSlice", "Unpack"):
        known = _shape_element(tensor)
        if known is not None:
            return known
    evaluate = _EVALUATORS.get(kind)
    if evaluate is None:
        return None
    try:
        result = evaluate(tensor, depth + 1)
    except RefinerError:
        raise
    except (
        IndexError,
        ValueError,
        ZeroDivisionError,
        KeyError,
        TypeError,
        OverflowError,
    ):
        return None
    if result is not None and len(result[0]) > _MAX_ELEMENTS:
        return None
    return result


def _input_value(tensor: Tensor, i: int, depth: int) -> Values | None:
    return constant_value(tensor._op._inputs[i], depth)


def _shape_n_value(tensor: Tensor, depth: int) -> Values | None:
    """ShapeN is not read from shapes (TryInferFromShapes knows only Shape, Size and Rank):
    TF runs its kernel, so every input must have a value (a placeholder's never does).
    """
    op = tensor._op
    values = [_input_value(tensor, i, depth) for i in range(len(op._inputs))]
    if any(v is None for v in values):
        return None
    dims = values[tensor._value_index][1]  # type: ignore[index]
    return list(dims), [len(dims)]


def _shape_value(tensor: Tensor, depth: int) -> Values | None:
    dims = tensor._op._inputs[0]._shape._dims
    if dims is None or None in dims:
        return None
    _check_int32(tensor, [d for d in dims if d is not None])
    return list(dims), [len(dims)]


def _shape_element(tensor: Tensor) -> Values | None:
    """`shape(x)[i]` or `unstack(shape(x))[i]` with x's dim i known, even where other dims
    are not: TryInferFromShapes/GetSliceIndex (eval_const_tensor.cc). The StridedSlice
    must shrink axis 0 only, with no other mask and a Const index; its end and strides
    are not read (TF does not read them either)."""
    op = tensor._op
    source = op._inputs[0]
    if source._op._type != "Shape":
        return None
    attrs = op._attrs
    if op._type == "Unpack":
        if attrs["axis"].i != 0:
            return None
        index = tensor._value_index
    else:
        if (
            attrs["begin_mask"].i
            or attrs["end_mask"].i
            or attrs["ellipsis_mask"].i
            or attrs["new_axis_mask"].i
            or attrs["shrink_axis_mask"].i != 1
        ):
            return None
        begin = op._inputs[1]
        if begin._op._type != "Const" or begin._dtype._base_enum not in _INT_TYPES:
            return None
        values = tensor_proto_values(begin._op._attrs["value"].tensor)[0]
        if len(values) != 1:
            return None
        index = values[0]
    dims = source._op._inputs[0]._shape._dims
    if dims is None or not -len(dims) <= index < len(dims):
        return None
    dim = dims[index]
    if dim is None:
        return None
    _check_int32(tensor, [dim])
    return [dim], []


def _size_value(tensor: Tensor, depth: int) -> Values | None:
    dims = tensor._op._inputs[0]._shape._dims
    if dims is None or None in dims:
        return None
    n = 1
    for d in dims:
        n *= d or 0
    _check_int32(tensor, [n])
    return [n], []


def _rank_value(tensor: Tensor, depth: int) -> Values | None:
    dims = tensor._op._inputs[0]._shape._dims
    return None if dims is None else ([len(dims)], [])


def _identity_value(tensor: Tensor, depth: int) -> Values | None:
    return _input_value(tensor, 0, depth)


def _cast_value(tensor: Tensor, depth: int) -> Values | None:
    value = _input_value(tensor, 0, depth)
    if value is None:
        return None
    dst = tensor._op._attrs["DstT"].type
    if dst in _INT_TYPES:
        # integers convert modulo 2**bits (C++); a float out of range has no defined value
        ints = []
        for v in value[0]:
            if isinstance(v, float):
                v = int(v)  # toward zero; NaN/inf raise (no value)
                if _wrap(tensor, [v]) != [v]:
                    return None
            ints.append(v)
        wrapped = _wrap(tensor, ints)
        return None if wrapped is None else (wrapped, value[1])
    if dst in (1, 2):
        floats = _typed(tensor, [float(v) for v in value[0]])
        return None if floats is None else (floats, value[1])
    return None


def _pack_value(tensor: Tensor, depth: int) -> Values | None:
    """The Pack kernel (pack_op.cc): inputs of one shape, stacked along `axis` in
    [-rank-1, rank]."""
    op = tensor._op
    if not op._inputs:
        return None
    parts = [_input_value(tensor, i, depth) for i in range(len(op._inputs))]
    if any(p is None for p in parts):
        return None
    dims = parts[0][1]  # type: ignore[index]
    if any(p[1] != dims for p in parts):  # type: ignore[index]
        return None
    rank = len(dims)
    axis = op._attrs["axis"].i
    if not -rank - 1 <= axis <= rank:
        return None
    if axis < 0:
        axis += rank + 1
    outer, inner = _product(dims[:axis]), _product(dims[axis:])
    values: list[Any] = []
    for o in range(outer):
        for p in parts:
            values.extend(p[0][o * inner : (o + 1) * inner])  # type: ignore[index]
    return values, [*dims[:axis], len(parts), *dims[axis:]]


def _broadcast_args_value(tensor: Tensor, depth: int) -> Values | None:
    """The BroadcastArgs kernel (bcast_ops.cc, BCastArgsOp; bcast.h, BCast): two shape
    vectors broadcast right-aligned, equal sizes kept, a 1 taking the other's size (even a
    negative one); other mismatches are the kernel's error (no value)."""
    s0 = _index_vector(_input_value(tensor, 0, depth))
    s1 = _index_vector(_input_value(tensor, 1, depth))
    if s0 is None or s1 is None:
        return None
    n = max(len(s0), len(s1))
    a = [1] * (n - len(s0)) + s0
    b = [1] * (n - len(s1)) + s1
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None
        out.append(y if x == 1 else x)
    return out, [len(out)]


def _concat_value(tensor: Tensor, depth: int) -> Values | None:
    op = tensor._op
    values: list[Any] = []
    for i in range(len(op._inputs) - 1):
        value = _input_value(tensor, i, depth)
        if value is None or len(value[1]) != 1:
            return None
        values.extend(value[0])
    return values, [len(values)]


def _strided_slice_value(tensor: Tensor, depth: int) -> Values | None:
    """A StridedSlice along axis 0 (begin/end/strides of one element, no ellipsis or new
    axis): rows of the input, or one row with shrink_axis_mask bit 0."""
    op = tensor._op
    attrs = op._attrs
    if attrs["ellipsis_mask"].i or attrs["new_axis_mask"].i:
        return None
    value = _input_value(tensor, 0, depth)
    if value is None or not value[1]:
        return None
    spec = [_input_value(tensor, i, depth) for i in (1, 2, 3)]
    if any(s is None or s[1] != [1] for s in spec):
        return None
    (begin,), (end,), (stride,) = (s[0] for s in spec if s is not None)
    values, dims = value
    n, row = dims[0], _product(dims[1:])
    if stride == 0:
        return None
    if attrs["shrink_axis_mask"].i & 1:
        index = begin + n if begin < 0 else begin
        if not 0 <= index < n:
            return None
        return values[index * row : (index + 1) * row], dims[1:]
    begin = None if attrs["begin_mask"].i & 1 else begin
    end = None if attrs["end_mask"].i & 1 else end
    rows = range(n)[slice(begin, end, stride)]
    items = [v for r in rows for v in values[r * row : (r + 1) * row]]
    return items, [len(rows), *dims[1:]]


def _range_value(tensor: Tensor, depth: int) -> Values | None:
    spec = [_input_value(tensor, i, depth) for i in (0, 1, 2)]
    if any(s is None or s[1] for s in spec):
        return None
    start, limit, delta = (s[0][0] for s in spec if s is not None)
    if not all(isinstance(v, int) for v in (start, limit, delta)) or delta == 0:
        return None
    if (limit - start) // delta > _MAX_ELEMENTS:
        return None
    items = list(range(start, limit, delta))
    return items, [len(items)]


def _fill_value(tensor: Tensor, depth: int) -> Values | None:
    dims, value = _input_value(tensor, 0, depth), _input_value(tensor, 1, depth)
    if dims is None or value is None or value[1] or len(dims[1]) != 1:
        return None
    n = 1
    for d in dims[0]:
        n *= d
    if n > _MAX_ELEMENTS or any(d < 0 for d in dims[0]):
        return None
    return value[0] * n, list(dims[0])


def _product(dims: list[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


# Integer dtypes by enum: (bits, signed), for the wrap-around of TF's kernels.
_INT_BITS = {
    3: (32, True),
    9: (64, True),
    4: (8, False),
    5: (16, True),
    6: (8, True),
    17: (16, False),
    22: (32, False),
    23: (64, False),
}


def _wrap(tensor: Tensor, values: list[Any]) -> list[Any] | None:
    """Integer results as the C++ kernels store them (two's complement wrap-around); None
    for a non-integer output (float arithmetic is not redone in Python)."""
    bits = _INT_BITS.get(tensor._dtype._base_enum)
    if bits is None:
        return None
    width, signed = bits
    mask = (1 << width) - 1
    half = 1 << (width - 1)
    out = []
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool):
            return None
        v &= mask
        out.append(v - (1 << width) if signed and v >= half else v)
    return out


def _axis(value: int, rank: int) -> int:
    """An axis in [-rank, rank) made non-negative; ValueError (no value) outside."""
    if not -rank <= value < rank:
        raise ValueError(value)
    return value + rank if value < 0 else value


def _strides(dims: list[int]) -> list[int]:
    strides = [1] * len(dims)
    for k in range(len(dims) - 2, -1, -1):
        strides[k] = strides[k + 1] * dims[k + 1]
    return strides


def _remapped(values: list[Any], out_dims: list[int], offset: Callable[[int, int], int]) -> list[Any]:
    """The row-major values of a result of `out_dims` whose element at index i along each
    axis k is the input's element at the sum of `offset(k, i)` (flat): Tile, Slice, Transpose."""
    out = []
    for flat in range(_product(out_dims)):
        source = 0
        for k in range(len(out_dims) - 1, -1, -1):
            flat, index = divmod(flat, out_dims[k])
            source += offset(k, index)
        out.append(values[source])
    return out


def _index_vector(value: Values | None) -> list[int] | None:
    """A 1-D integer tensor's values (Tile's multiples, Slice's begin and size, ...)."""
    if value is None or len(value[1]) != 1:
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in value[0]):
        return None
    return list(value[0])


def _reshape_value(tensor: Tensor, depth: int) -> Values | None:
    """The Reshape kernel (reshape_op.h, ReshapeOp::ValidateSizes): one -1 at most, inferred
    only from a non-zero product; any other mismatch is a kernel error (no value)."""
    value = _input_value(tensor, 0, depth)
    sizes = _index_vector(_input_value(tensor, 1, depth))
    if value is None or sizes is None or any(s < -1 for s in sizes):
        return None
    n = len(value[0])
    known = _product([s for s in sizes if s != -1])
    unknown = sizes.count(-1)
    if unknown > 1:
        return None
    if unknown:
        if known == 0 or n % known:
            return None
        sizes = [n // known if s == -1 else s for s in sizes]
    elif known != n:
        return None
    return value[0], sizes


def _expand_dims_value(tensor: Tensor, depth: int) -> Values | None:
    """The ExpandDims kernel (shape_ops.h, ExpandDimsOp): one axis in [-rank-1, rank]."""
    value, axis = _input_value(tensor, 0, depth), _input_value(tensor, 1, depth)
    if value is None or axis is None or len(axis[0]) != 1:
        return None
    rank = len(value[1])
    dim = axis[0][0]
    if not isinstance(dim, int) or not -rank - 1 <= dim <= rank:
        return None
    if dim < 0:
        dim += rank + 1
    return value[0], [*value[1][:dim], 1, *value[1][dim:]]


def _squeeze_value(tensor: Tensor, depth: int) -> Values | None:
    """The Squeeze kernel (shape_ops.h, SqueezeOp): the listed axes must have size 1; none
    listed drops every size-1 dimension."""
    value = _input_value(tensor, 0, depth)
    if value is None:
        return None
    dims = value[1]
    rank = len(dims)
    listed = {_axis(a, rank) for a in tensor._op._attrs["squeeze_dims"].list.i}
    if any(dims[a] != 1 for a in listed):
        return None
    keep = [d for k, d in enumerate(dims) if (k not in listed if listed else d != 1)]
    return value[0], keep


def _tile_value(tensor: Tensor, depth: int) -> Values | None:
    """The Tile kernel (tile_ops.cc, TileOp): multiples of the input's rank, non-negative."""
    value = _input_value(tensor, 0, depth)
    multiples = _index_vector(_input_value(tensor, 1, depth))
    if value is None or multiples is None:
        return None
    values, dims = value
    if len(multiples) != len(dims) or any(m < 0 for m in multiples):
        return None
    out_dims = [d * m for d, m in zip(dims, multiples)]
    if _product(out_dims) > _MAX_ELEMENTS:
        return None
    strides = _strides(dims)
    return _remapped(values, out_dims, lambda k, index: (index % dims[k]) * strides[k]), out_dims


def _slice_value(tensor: Tensor, depth: int) -> Values | None:
    """The Slice kernel (slice_op.cc, SharedSliceValidation): begin and size of the input's
    rank, size -1 meaning to the end, the slice inside the input."""
    value = _input_value(tensor, 0, depth)
    begin = _index_vector(_input_value(tensor, 1, depth))
    size = _index_vector(_input_value(tensor, 2, depth))
    if value is None or begin is None or size is None:
        return None
    values, dims = value
    if len(begin) != len(dims) or len(size) != len(dims):
        return None
    size = [d - b if s == -1 else s for b, s, d in zip(begin, size, dims)]
    if any(b < 0 or s < 0 or b + s > d for b, s, d in zip(begin, size, dims)):
        return None
    strides = _strides(dims)
    return _remapped(values, size, lambda k, index: (begin[k] + index) * strides[k]), size


def _transpose_value(tensor: Tensor, depth: int) -> Values | None:
    """The Transpose kernel (transpose_op.cc): perm a permutation of the input's axes."""
    value = _input_value(tensor, 0, depth)
    perm = _index_vector(_input_value(tensor, 1, depth))
    if value is None or perm is None:
        return None
    values, dims = value
    if sorted(perm) != list(range(len(dims))):
        return None
    out_dims = [dims[p] for p in perm]
    strides = _strides(dims)
    return _remapped(values, out_dims, lambda k, index: index * strides[perm[k]]), out_dims


def _gather_value(tensor: Tensor, depth: int) -> Values | None:
    """The GatherV2 kernel (gather_op.cc) with batch_dims 0: indices in [0, dim) (the CPU
    kernel rejects others, negative ones too)."""
    op = tensor._op
    batch_dims = op._attrs.get("batch_dims")
    if batch_dims is not None and batch_dims.i != 0:
        return None
    params = _input_value(tensor, 0, depth)
    indices = _input_value(tensor, 1, depth)
    axis = _input_value(tensor, 2, depth)
    if params is None or indices is None or axis is None or len(axis[0]) != 1:
        return None
    values, dims = params
    a = _axis(axis[0][0], len(dims))
    outer, inner = _product(dims[:a]), _product(dims[a + 1 :])
    size = dims[a]
    out = []
    for o in range(outer):
        for i in indices[0]:
            if not 0 <= i < size:
                return None
            start = (o * size + i) * inner
            out.extend(values[start : start + inner])
    return out, dims[:a] + indices[1] + dims[a + 1 :]


def _unpack_value(tensor: Tensor, depth: int) -> Values | None:
    """The Unpack kernel (unpack_op.cc): output i is the slice i along `axis`."""
    op = tensor._op
    value = _input_value(tensor, 0, depth)
    if value is None:
        return None
    values, dims = value
    a = _axis(op._attrs["axis"].i, len(dims))
    if dims[a] != op._attrs["num"].i:
        return None
    outer, inner = _product(dims[:a]), _product(dims[a + 1 :])
    i = tensor._value_index
    out = []
    for o in range(outer):
        start = (o * dims[a] + i) * inner
        out.extend(values[start : start + inner])
    return out, dims[:a] + dims[a + 1 :]


def _reduction(kind: str) -> Evaluator:
    """The reduction kernels (reduction_ops_common.cc, ReductionHelper::Simplify and
    ReductionOp) for integer tensors: axes scalar or 1-D in [-rank, rank) (a repeated axis
    gives no value), keep_dims. An empty reduction gives the reducer's identity
    (reduction_ops_common.h, FillIdentity; reduction_ops.h, Identity: the reducer's
    initial value, so Sum 0, Prod 1, Max the dtype's lowest, Min its highest, and an
    integer Mean 0)."""

    def evaluate(tensor: Tensor, depth: int) -> Values | None:
        value = _input_value(tensor, 0, depth)
        axes = _input_value(tensor, 1, depth)
        bits = _INT_BITS.get(tensor._dtype._base_enum)
        if value is None or axes is None or len(axes[1]) > 1 or bits is None:
            return None
        values, dims = value
        rank = len(dims)
        reduced = [_axis(a, rank) for a in axes[0]]
        if len(set(reduced)) != len(reduced):
            return None
        kept = [k for k in range(rank) if k not in reduced]
        count = _product([dims[k] for k in reduced])
        groups: list[list[Any]] = [[] for _ in range(_product([dims[k] for k in kept]))]
        strides = _strides(dims)
        kept_strides = _strides([dims[k] for k in kept])
        for flat, v in enumerate(values):
            group = 0
            for k, s in zip(kept, kept_strides):
                group += (flat // strides[k] % dims[k]) * s
            groups[group].append(v)
        width, signed = bits
        out: list[Any] = []
        for items in groups:
            if kind == "Sum":
                out.append(sum(items))
            elif kind == "Prod":
                out.append(_product(items))
            elif kind == "Max":
                lowest = -(1 << (width - 1)) if signed else 0
                out.append(max(items, default=lowest))
            elif kind == "Min":
                highest = (1 << (width - 1)) - 1 if signed else (1 << width) - 1
                out.append(min(items, default=highest))
            else:  # Mean: the wrapped sum divided as C++ does (toward zero)
                if not count:
                    out.append(0)
                    continue
                (total,) = _wrap(tensor, [sum(items)]) or [None]
                if total is None:
                    return None
                out.append(abs(total) // count * (1 if total >= 0 else -1))
        wrapped = _wrap(tensor, out)
        if wrapped is None:
            return None
        keep_dims = tensor._op._attrs["keep_dims"].b
        out_dims = (
            [1 if k in reduced else d for k, d in enumerate(dims)]
            if keep_dims
            else [dims[k] for k in kept]
        )
        return wrapped, out_dims

    return evaluate


def _like_value(fill: int) -> Evaluator:
    """ZerosLike / OnesLike of an integer tensor."""

    def evaluate(tensor: Tensor, depth: int) -> Values | None:
        value = _input_value(tensor, 0, depth)
        if value is None or tensor._dtype._base_enum not in _INT_BITS:
            return None
        return [fill] * len(value[0]), value[1]

    return evaluate


def _binary(fn: Callable[[Any, Any], Any], floats_only: bool = False) -> Evaluator:
    def evaluate(tensor: Tensor, depth: int) -> Values | None:
        if floats_only and tensor._dtype._base_enum not in (1, 2):
            # no CPU kernel: ExtractConstantSubgraph gives up before reading the inputs
            return None
        x, y = _input_value(tensor, 0, depth), _input_value(tensor, 1, depth)
        if x is None or y is None:
            return None
        if x[1] == y[1]:
            values, dims = [fn(a, b) for a, b in zip(x[0], y[0])], x[1]
        elif not y[1]:
            values, dims = [fn(a, y[0][0]) for a in x[0]], x[1]
        elif not x[1]:
            values, dims = [fn(x[0][0], b) for b in y[0]], y[1]
        else:
            return None
        typed = _typed(tensor, values)
        return None if typed is None else (typed, dims)

    return evaluate


def _typed(tensor: Tensor, values: list[Any]) -> list[Any] | None:
    """Results stored in the output's dtype: integers wrapped, float32 rounded (Python
    computes in double; a float32 overflow gives no value); other dtypes no value."""
    enum = tensor._dtype._base_enum
    if enum in _INT_BITS:
        return _wrap(tensor, values)
    if enum == 2:
        return values
    if enum == 1:
        return [struct.unpack("<f", struct.pack("<f", v))[0] for v in values]
    return None


def _unary(fn: Callable[[Any], Any]) -> Evaluator:
    def evaluate(tensor: Tensor, depth: int) -> Values | None:
        x = _input_value(tensor, 0, depth)
        if x is None:
            return None
        values = _typed(tensor, [fn(a) for a in x[0]])
        return None if values is None else (values, x[1])

    return evaluate


def _floor_div(a: Any, b: Any) -> Any:
    return a // b


def _floor_mod(a: Any, b: Any) -> Any:
    """FloorMod (cwise_ops.h, safe_floor_mod): the remainder takes the divisor's sign, as
    Python's; an integer zero divisor is a kernel error (ZeroDivisionError: no value).
    """
    if not isinstance(a, int) or not isinstance(b, int):
        raise TypeError(a)
    return a % b


def _real_div(a: Any, b: Any) -> Any:
    """RealDiv has CPU kernels for floating types only (cwise_op_div.cc): integers give no
    value, as TF's subgraph run fails."""
    if isinstance(a, int) or isinstance(b, int):
        raise TypeError(a)
    return a / b


_EVALUATORS: dict[str, Evaluator] = {
    "Identity": _identity_value,
    "Shape": _shape_value,
    "ShapeN": _shape_n_value,
    "Size": _size_value,
    "Rank": _rank_value,
    "Cast": _cast_value,
    "Pack": _pack_value,
    "ConcatV2": _concat_value,
    "StridedSlice": _strided_slice_value,
    "Range": _range_value,
    "Fill": _fill_value,
    "Add": _binary(lambda a, b: a + b),
    "AddV2": _binary(lambda a, b: a + b),
    "Sub": _binary(lambda a, b: a - b),
    "Mul": _binary(lambda a, b: a * b),
    "FloorDiv": _binary(_floor_div),
    "FloorMod": _binary(_floor_mod),
    "RealDiv": _binary(_real_div, floats_only=True),
    "Maximum": _binary(max),
    "Minimum": _binary(min),
    "Neg": _unary(lambda a: -a),
    "BroadcastArgs": _broadcast_args_value,
    "Reshape": _reshape_value,
    "ExpandDims": _expand_dims_value,
    "Squeeze": _squeeze_value,
    "Tile": _tile_value,
    "Slice": _slice_value,
    "Transpose": _transpose_value,
    "GatherV2": _gather_value,
    "Unpack": _unpack_value,
    "Sum": _reduction("Sum"),
    "Prod": _reduction("Prod"),
    "Max": _reduction("Max"),
    "Min": _reduction("Min"),
    "Mean": _reduction("Mean"),
    "ZerosLike": _like_value(0),
    "OnesLike": _like_value(1),
}


# Ops passing a resource handle (and its handle data) through unchanged.
_HANDLE_FORWARDING = {"Identity", "IdentityN", "Snapshot"}


def handle_data(tensor: Tensor) -> tuple[Any, int] | None:
    """(shape proto, dtype enum) of the variable a resource tensor refers to, when the graph
    shows it: TF's handle data, set by VarHandleOp from its attrs and forwarded by Identity.
    """
    op = tensor._op
    for _ in range(64):
        if op._type == "VarHandleOp":
            attrs = op._attrs
            return attrs["shape"].shape, attrs["dtype"].type
        if op._type not in _HANDLE_FORWARDING:
            return None
        tensor = op._inputs[tensor._value_index if op._type == "IdentityN" else 0]
        op = tensor._op
    return None


def partial_shape(tensor: Tensor, depth: int = 0) -> list[int | None] | None:
    """TF's ConstantPartialShape for a rank-1 shape tensor: dims (None unknown) or None."""
    op = tensor._op
    kind = op._type
    dims = tensor._shape._dims
    if dims is not None and len(dims) == 1 and dims[0] == 0:
        return []
    if depth > 16:
        return None
    if kind == "Shape":
        inner = op._inputs[0]._shape._dims
        return None if inner is None else list(inner)
    if kind == "ShapeN":
        inner = op._inputs[tensor._value_index]._shape._dims
        return None if inner is None else list(inner)
    if kind == "Cast":
        # the cast value when MakeShapeFromTensor accepts it (no value below -1), else the
        # partial shape before the cast; an error there only makes the shape unknown
        try:  # the refiner ignores this evaluation's error
            value = constant_value(tensor)
        except RefinerError:
            value = None
        if value is not None and len(value[1]) == 1 and all(v >= -1 for v in value[0]):
            return [None if v == -1 else int(v) for v in value[0]]
        try:
            inner_dims = partial_shape(op._inputs[0], depth + 1)
        except ValueError:
            return None
        if inner_dims is None:
            return None
        if op._attrs["DstT"].type not in _INT_TYPES:
            return [None] * len(inner_dims)
        return inner_dims
    if kind == "Pack":
        result: list[int | None] = []
        for t in op._inputs:
            value = constant_value(t)
            if value is not None and t._dtype._base_enum not in _INT_TYPES:
                # EvaluateConstantIntScalarEdge's error (met only before a Cast)
                raise ValueError(
                    "EvaluateConstantIntScalarEdge called on non-integer edge"
                )
            if value is not None and not value[1]:
                size = int(value[0][0])
                result.append(None if size < 0 else size)
            else:
                result.append(None)
        return result
    if kind in ("Concat", "ConcatV2"):
        axis = 0 if kind == "Concat" else len(op._inputs) - 1
        result = []
        for i, t in enumerate(op._inputs):
            if i == axis:
                continue
            sub = partial_shape(t, depth + 1)
            if sub is None:
                return None
            result.extend(sub)
        return result
    if kind == "StridedSlice":
        return _partial_strided_slice(tensor, depth)
    value = constant_value(tensor)
    if value is not None and tensor._dtype._base_enum not in _INT_TYPES:
        # MakeShapeFromTensor's error for a float value (met only before a Cast)
        raise ValueError("Input tensor must be int32 or int64")
    if value is not None and len(value[1]) == 1:
        for v in value[0]:
            if v < -1:
                # TF's MakeShapeFromTensor, called by ShapeRefiner::ConstantPartialShape
                # between shape function passes: its error is not framed with the node.
                raise ValueError(f"Invalid value in tensor used for shape: {v}")
        return [None if v == -1 else int(v) for v in value[0]]
    if dims is not None and len(dims) == 1 and dims[0] is not None:
        return [None] * dims[0]
    return None


def _partial_strided_slice(tensor: Tensor, depth: int) -> list[int | None] | None:
    """TF's PartialStridedSliceShape: a slice of a shape tensor with simple masks."""
    op = tensor._op
    for t in op._inputs[1:]:
        d = t._shape._dims
        if d is None or len(d) != 1 or d[0] != 1:
            return None
    attrs = op._attrs
    begin_mask, end_mask = attrs["begin_mask"].i, attrs["end_mask"].i
    if (
        begin_mask not in (0, 1)
        or end_mask not in (0, 1)
        or attrs["ellipsis_mask"].i
        or attrs["new_axis_mask"].i
        or attrs["shrink_axis_mask"].i
    ):
        return None
    spec = [constant_value(t) for t in op._inputs[1:]]
    begin = 0 if begin_mask else (spec[0][0][0] if spec[0] else None)
    end = None if end_mask else (spec[1][0][0] if spec[1] else False)
    stride = spec[2][0][0] if spec[2] else None
    if begin is None or end is False or stride is None or stride == 0:
        return None
    inner = partial_shape(op._inputs[0], depth + 1)
    if inner is None:
        return None
    return inner[slice(begin, end, stride)]


def summarize_value(value: Values, max_values: int = 256) -> str:
    """TF's Tensor::SummarizeValue: values space-separated, nested brackets per dimension."""
    values, dims = value
    items = [_format_scalar(v) for v in values[:max_values]]
    if len(dims) <= 1:
        text = " ".join(items)
        return text + "..." if len(values) > max_values else text

    def nest(offset: int, level: int) -> str:
        if level == len(dims) - 1:
            return "[" + " ".join(items[offset : offset + dims[level]]) + "]"
        stride = 1
        for d in dims[level + 1 :]:
            stride *= d
        return (
            "["
            + "".join(nest(offset + k * stride, level + 1) for k in range(dims[level]))
            + "]"
        )

    stride = len(values) // dims[0] if dims[0] else 0
    return "".join(nest(k * stride, 1) for k in range(dims[0]))


def _format_scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return f"{v:g}" if v != int(v) or abs(v) >= 1e16 else str(int(v))
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)
