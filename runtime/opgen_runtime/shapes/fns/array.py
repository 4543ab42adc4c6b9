"""Ports of the shape functions of TF's array ops (tensorflow/core/ops/array_ops.cc)."""

from __future__ import annotations

from ..context import (
    InferenceContext,
    ShapeError,
    ShapeHandle,
    debug_string,
)
from .common import (
    ShapeFn,
    concat_shape,
    concat_v2_shape,
    explicit_shape,
    merge_from_input,
    reduction_shape,
    scalar_from_tensor,
    scalar_shape,
    unchanged_shape,
)
from .strided_slice import strided_slice_shape


def scalar_input_as_dim(
    c: InferenceContext, index: int, rank: int | None
) -> int | None:
    """TF's MakeDimForScalarInputWithNegativeIndexing: a constant scalar input as an index."""
    value = c.input_tensor(index)
    if value is None:
        return None
    dim = scalar_from_tensor(value)
    if dim < 0:
        if rank is None:
            return None
        if dim + rank < 0:
            raise ShapeError(
                f"Dimension size, given by scalar input {dim} must be in range [-{rank}, {rank})"
            )
        return dim + rank
    if rank is not None and rank > 0 and dim >= rank:
        raise ShapeError(
            f"Dimension size, given by scalar input {dim} must be in range [-{rank}, {rank})"
        )
    return dim


def split_shape(c: InferenceContext) -> None:
    shape = c.input(1)
    num_split = c.get_attr("num_split")
    rank = c.rank(shape)
    split_dim = scalar_input_as_dim(c, 0, rank)
    if split_dim is None:
        out = c.unknown_shape_of_rank(rank) if rank is not None else c.unknown_shape()
    else:
        shape = c.with_rank_at_least(shape, split_dim + 1)
        try:
            size = c.divide(c.dim(shape, split_dim), num_split, True)
        except ShapeError as e:
            raise ShapeError(
                f"{e}\n\tNumber of ways to split should evenly divide the split dimension"
            ) from None
        out = c.replace_dim(shape, split_dim, size)
    for i in range(c.num_outputs):
        c.set_output(i, out)


def pack_shape(c: InferenceContext) -> None:
    """TF's Pack shape function (tensorflow/core/ops/array_ops.cc): inputs merged from the
    last, each failure with TF's "From merging shape i with other shapes." context."""
    axis = c.get_attr("axis")
    current = c.input(c.num_inputs - 1)
    for i in range(c.num_inputs - 2, -1, -1):
        current = merge_from_input(c, i, current)
    if current.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    rank = len(current.dims)
    if axis < -(rank + 1) or axis > rank:
        raise ShapeError(f"Invalid axis: {axis}; must be in [{-(rank + 1)},{rank + 1})")
    if axis < 0:
        axis += rank + 1
    dims = list(current.dims)
    dims.insert(axis, c.num_inputs)
    c.set_output(0, c.make_shape(dims))


def const_shape(c: InferenceContext) -> None:
    c.set_output(
        0, c.make_shape([d.size for d in c.get_attr("value").tensor_shape.dim])
    )


def shape_shape(c: InferenceContext) -> None:
    for i in range(c.num_outputs):
        c.set_output(i, c.vector(c.rank(c.input(i))))


def reshape_shape(c: InferenceContext) -> None:
    """TF's SetOutputShapeForReshape (tensorflow/core/ops/array_ops.cc)."""
    shape = c.input(0)
    out = c.make_shape_from_shape_tensor(1)
    if out.dims is None or shape.dims is None:
        c.set_output(0, out)
        return
    out_known, out_unknown, too_many = _known_elements(c, out)
    in_known, in_unknown, too_many_in = _known_elements(c, shape)
    if not (too_many or too_many_in):
        if in_unknown < 0 and out_unknown < 0:
            if in_known != out_known:
                raise ShapeError(
                    f"Cannot reshape a tensor with {in_known} elements to shape "
                    f"{debug_string(out)} ({out_known} elements)"
                )
        elif in_unknown < 0 and out_unknown >= 0 and out_known > 0:
            inferred = c.divide(in_known, out_known, True)
            out = c.replace_dim(out, out_unknown, inferred)
        elif in_unknown >= 0 and out_unknown < 0 and in_known != 0:
            inferred = c.divide(out_known, in_known, True)
            c.merge_dim(c.dim(shape, in_unknown), inferred)
        elif in_unknown >= 0 and out_unknown >= 0 and in_known == out_known:
            out = c.replace_dim(out, out_unknown, c.dim(shape, in_unknown))
    c.set_output(0, out)


def _known_elements(c: InferenceContext, shape: ShapeHandle) -> tuple[int, int, bool]:
    """SetOutputShapeForReshape's count of a known-rank shape: (known elements, index of
    the one unknown dim or -1, more than one unknown). A known NumElements (all dims known,
    or a 0 among them: `[?,0]` has 0 elements and no unknown index) is taken whole;
    otherwise the known dims are multiplied with InferenceContext::Multiply (its overflow
    error) up to a second unknown dim."""
    total = c.num_elements(shape)
    if total is not None:
        return total, -1, False
    product: int = 1
    unknown = -1
    for i, d in enumerate(shape.known_dims()):
        if d is None:
            if unknown >= 0:
                return product, unknown, True
            unknown = i
        else:
            product = c.multiply(product, d)  # type: ignore[assignment]
    return product, unknown, False


def _expand_dims(c: InferenceContext) -> None:
    shape = c.input(0)
    value = c.input_tensor(1)
    if value is not None and len(value[0]) != 1:
        raise ShapeError("'dim' input must be a tensor with a single value")
    if value is None or shape.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    dim = int(value[0][0])
    rank = len(shape.dims)
    if dim < -rank - 1 or dim > rank:
        raise ShapeError(f"dim {dim} not in the interval [{-rank - 1}, {rank}].")
    if dim < 0:
        dim += rank + 1
    c.set_output(0, c.make_shape((*shape.dims[:dim], 1, *shape.dims[dim:])))


def _squeeze(c: InferenceContext) -> None:
    shape = c.input(0)
    if shape.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    rank = len(shape.dims)
    squeeze_dims = list(c.get_attr("squeeze_dims"))
    for i, d in enumerate(squeeze_dims):
        if d < -rank or d >= rank:
            raise ShapeError(f"squeeze_dims[{i}] not in [{-rank},{rank}).")
        if d < 0:
            squeeze_dims[i] = d + rank
    dims: list[int | None] = []
    for i, d in enumerate(shape.dims):
        explicit = i in squeeze_dims
        if d is None:
            if explicit:
                continue
            if not squeeze_dims:
                c.set_output(0, c.unknown_shape())
                return
        elif d == 1:
            if explicit or not squeeze_dims:
                continue
        elif explicit:
            raise ShapeError(
                f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}"
            )
        dims.append(d)
    c.set_output(0, c.make_shape(dims))


def _transpose(c: InferenceContext) -> None:
    shape = c.input(0)
    perm_shape = c.input(1)
    perm = c.input_tensor(1)
    perm_elems = c.num_elements(perm_shape)
    if shape.dims is None and perm_elems is None and perm is None:
        c.set_output(0, c.unknown_shape())
        return
    if shape.dims is not None:
        rank = len(shape.dims)
    elif perm_elems is not None:
        rank = perm_elems
    else:
        assert perm is not None
        rank = len(perm[0])
    if shape.dims is None and rank < 2:
        c.set_output(0, shape)
        return
    shape = c.with_rank(shape, rank)
    perm_shape = c.with_rank(perm_shape, 1)
    c.with_value(c.dim(perm_shape, 0), rank)
    if perm is None:
        c.set_output(0, c.unknown_shape_of_rank(rank))
        return
    dims = []
    for i in range(rank):
        index = int(perm[0][i])
        if index >= rank:
            raise ShapeError(f"perm dim {index} is out of range of input rank {rank}")
        dims.append(c.dim(shape, index))
    c.set_output(0, c.make_shape(dims))


def _fill(c: InferenceContext) -> None:
    c.with_rank(c.input(0), 1)
    c.with_rank(c.input(1), 0)
    value = c.input_tensor(0)
    if value is not None and any(v < 0 for v in value[0]):
        raise ShapeError("Fill dimensions must be >= 0")
    c.set_output(0, c.make_shape_from_shape_tensor(0))


def _empty(c: InferenceContext) -> None:
    c.set_output(0, c.make_shape_from_shape_tensor(0))


def _slice(c: InferenceContext) -> None:
    shape = c.input(0)
    begin_shape = c.with_rank(c.input(1), 1)
    sizes_shape = c.with_rank(c.input(2), 1)
    begin_shape = c.merge(begin_shape, sizes_shape)
    ndims = c.dim(begin_shape, 0)
    if ndims is not None:
        shape = c.with_rank(shape, ndims)
    begin = c.make_shape_from_shape_tensor(1)
    sizes = c.input_tensor(2)
    if sizes is not None:
        begin = c.with_rank(begin, len(sizes[0]))
        dims: list[int | None] = []
        for i, size in enumerate(sizes[0]):
            if size == -1:
                dims.append(c.subtract(c.dim(shape, i), c.dim(begin, i)))
            else:
                if size < 0:
                    raise ShapeError(f"Invalid value in tensor used for shape: {size}")
                dims.append(int(size))
        c.set_output(0, c.make_shape(dims))
        return
    size_shape = c.make_shape_from_shape_tensor(2)
    if size_shape.dims is not None:
        c.with_rank(begin, len(size_shape.dims))
        c.set_output(0, size_shape)
    elif shape.dims is not None:
        c.set_output(0, c.unknown_shape_of_rank(len(shape.dims)))
    else:
        c.set_output(0, c.unknown_shape())


def _tile(c: InferenceContext) -> None:
    shape = c.input(0)
    c.with_rank(c.input(1), 1)
    multiples = c.make_shape_from_shape_tensor(1)
    if shape.dims is not None:
        multiples = c.with_rank(multiples, len(shape.dims))
    if multiples.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    shape = c.with_rank(shape, len(multiples.dims))
    dims = [c.multiply(a, b) for a, b in zip(shape.known_dims(), multiples.dims)]
    c.set_output(0, c.make_shape(dims))


def _unpack(c: InferenceContext) -> None:
    shape = c.input(0)
    out = c.unknown_shape()
    if shape.dims is not None:
        rank = len(shape.dims)
        axis = c.get_attr("axis")
        if axis < -rank or axis >= rank:
            raise ShapeError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
        if axis < 0:
            axis += rank
        c.with_value(shape.dims[axis], c.num_outputs)
        out = c.make_shape(shape.dims[:axis] + shape.dims[axis + 1 :])
    for i in range(c.num_outputs):
        c.set_output(i, out)


def _split_v(c: InferenceContext) -> None:
    shape = c.input(0)
    rank = c.rank(shape)
    split_dim = scalar_input_as_dim(c, 2, rank)
    n = c.num_outputs
    sizes = c.input_tensor(1)
    if rank is None:
        for i in range(n):
            c.set_output(i, c.unknown_shape())
        return
    if rank == 0:
        raise ShapeError("Can't split scalars")
    if sizes is None and split_dim is not None:
        out = c.replace_dim(shape, split_dim, None)
        for i in range(n):
            c.set_output(i, out)
        return
    if sizes is None or split_dim is None:
        for i in range(n):
            c.set_output(i, c.unknown_shape_of_rank(rank))
        return
    shape = c.with_rank_at_least(shape, split_dim + 1)
    data = [int(v) for v in sizes[0]]
    if len(data) != n:
        raise ShapeError(
            f"Length of size_splits should be equal to num_outputs, but got {len(data)} and {n}"
        )
    total, has_neg = 0, False
    for size in data:
        if size == -1:
            if has_neg:
                raise ShapeError("size_splits can only have one -1")
            has_neg = True
        else:
            total += size
    dim_size = c.dim(shape, split_dim)
    for i, size in enumerate(data):
        if size == -1 and dim_size is not None:
            size = dim_size - total
        if size < -1 or (size == -1 and dim_size is not None):
            raise ShapeError(f"Split size at index {i} must be >= 0. Got: {size}")
        c.set_output(i, c.replace_dim(shape, split_dim, None if size == -1 else size))
    if dim_size is not None and (total > dim_size if has_neg else total != dim_size):
        raise ShapeError(
            f"can't split axis of size {dim_size} into pieces of size "
            f"[{','.join(str(d) for d in data)}]"
        )


def _broadcast_to(c: InferenceContext) -> None:
    c.with_rank(c.input(1), 1)
    out = c.make_shape_from_shape_tensor(1)
    shape = c.input(0)
    if out.dims is None or shape.dims is None:
        c.set_output(0, out)
        return
    out_rank = len(out.dims)
    shape = c.with_rank_at_most(shape, out_rank)
    in_rank = len(shape.known_dims())
    for i in range(in_rank):
        in_dim = shape.known_dims()[in_rank - i - 1]
        if in_dim is not None and in_dim > 1:
            merged = c.merge_dim(in_dim, c.dim(out, out_rank - i - 1))
            out = c.replace_dim(out, out_rank - i - 1, merged)
    c.set_output(0, out)


def _broadcast_args(c: InferenceContext) -> None:
    x = c.with_rank(c.input(0), 1)
    y = c.with_rank(c.input(1), 1)
    dx, dy = c.dim(x, 0), c.dim(y, 0)
    c.set_output(0, c.vector(None if dx is None or dy is None else max(dx, dy)))


def _strided_slice_grad(c: InferenceContext) -> None:
    c.set_output(0, c.make_shape_from_shape_tensor(0))


def _parallel_concat(c: InferenceContext) -> None:
    shape = c.make_shape_from_attr(c.get_attr("shape"))
    if not c.fully_defined(shape):
        raise ShapeError("shape attr must be fully defined.")
    current = c.replace_dim(shape, 0, 1)
    for i in range(c.num_inputs):
        if not c.fully_defined(c.input(i)):
            raise ShapeError("All input shapes must be fully defined.")
        if c.rank(c.input(i)) == 0:
            raise ShapeError(
                "The rank of all input shapes must be greater than 0, but input "
                f"{i} had rank 0."
            )
        if c.dim(c.input(i), 0) != 1:
            raise ShapeError("Size of first dimension must be 1.")
        current = merge_from_input(c, i, current)
    c.set_output(0, shape)


def _identity_n(c: InferenceContext) -> None:
    for i in range(c.num_inputs):
        c.set_output(i, c.input(i))


def _ensure_shape(c: InferenceContext) -> None:
    desired = c.make_shape_from_attr(c.get_attr("shape"))
    shape = c.input(0)
    if desired.dims is not None:
        shape = c.with_rank(shape, len(desired.dims))
    elif shape.dims is not None:  # TF asks for rank -1 here (kUnknownRank)
        raise ShapeError(f"Shape must be rank -1 but is rank {len(shape.dims)}")
    c.set_output(0, c.merge(desired, shape))


def _placeholder_with_default(c: InferenceContext) -> None:
    out = c.make_shape_from_attr(c.get_attr("shape"))
    c.merge(c.input(0), out)
    c.set_output(0, out)


def _concat_offset(c: InferenceContext) -> None:
    for i in range(1, c.num_inputs):
        c.set_output(i - 1, c.input(i))


# Ops registered with shape_inference::UnchangedShape.
UNCHANGED = (
    "CheckNumerics",
    "CheckNumericsV2",
    "DebugGradientIdentity",
    "DeepCopy",
    "FakeQuantWithMinMaxArgs",
    "FakeQuantWithMinMaxArgsGradient",
    "GuaranteeConst",
    "Identity",
    "InplaceAdd",
    "InplaceSub",
    "InplaceUpdate",
    "MatrixBandPart",
    "OnesLike",
    "PreventGradient",
    "Snapshot",
    "StopGradient",
    "TensorStridedSliceUpdate",
    "ZerosLike",
)

# Ops registered with shape_inference::ReductionShape.
REDUCTION = ("Any",)

# Ops registered with shape_inference::ScalarShape.
SCALAR = (
    "Rank",
    "Size",
)


BY_OP: dict[str, ShapeFn] = {
    **dict.fromkeys(UNCHANGED, unchanged_shape),
    **dict.fromkeys(REDUCTION, reduction_shape),
    **dict.fromkeys(SCALAR, scalar_shape),
    "BroadcastArgs": _broadcast_args,
    "BroadcastTo": _broadcast_to,
    "Concat": concat_shape,
    "ConcatOffset": _concat_offset,
    "ConcatV2": concat_v2_shape,
    "ConjugateTranspose": _transpose,
    "Const": const_shape,
    "Empty": _empty,
    "EnsureShape": _ensure_shape,
    "ExpandDims": _expand_dims,
    "Fill": _fill,
    "IdentityN": _identity_n,
    "ParallelConcat": _parallel_concat,
    "ImmutableConst": explicit_shape,
    "StridedSliceGrad": _strided_slice_grad,
    "Pack": pack_shape,
    "Placeholder": explicit_shape,
    "PlaceholderWithDefault": _placeholder_with_default,
    "Reshape": reshape_shape,
    "Shape": shape_shape,
    "ShapeN": shape_shape,
    "Slice": _slice,
    "Split": split_shape,
    "SplitV": _split_v,
    "Squeeze": _squeeze,
    "StridedSlice": strided_slice_shape,
    "Tile": _tile,
    "Transpose": _transpose,
    "Unpack": _unpack,
}
