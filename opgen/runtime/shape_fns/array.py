"""Ports of the shape functions of TF's array ops (tensorflow/core/ops/array_ops.cc)."""

from __future__ import annotations

from ..shape_context import (
    InferenceContext,
    ShapeError,
    ShapeHandle,
    Values,
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
    scalar_input_dim,
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
    axis = c.get_attr("axis")
    current = c.input(0)
    for i in range(1, c.num_inputs):
        current = c.merge(current, c.input(i))
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
    """TF's SetOutputShapeForReshape."""
    shape = c.input(0)
    out = c.make_shape_from_shape_tensor(1)
    if out.dims is None or shape.dims is None:
        c.set_output(0, out)
        return
    out_known, out_unknown, too_many = _known_product(out)
    in_known, in_unknown, too_many_in = _known_product(shape)
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


def _known_product(shape: ShapeHandle) -> tuple[int, int, bool]:
    """(product of the known dims, index of the one unknown dim or -1, more than one unknown)."""
    product, unknown = 1, -1
    for i, d in enumerate(shape.known_dims()):
        if d is None:
            if unknown >= 0:
                return product, unknown, True
            unknown = i
        else:
            product *= d
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
    c.set_output(0, c.make_shape(shape.dims[:dim] + (1,) + shape.dims[dim:]))


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


def _gather(c: InferenceContext) -> None:
    params = c.with_rank_at_least(c.input(0), 1)
    out = c.concatenate(c.input(1), c.subshape(params, 1))
    c.set_output(0, out)


def _gather_v2(c: InferenceContext) -> None:
    params = c.with_rank_at_least(c.input(0), 1)
    indices = c.input(1)
    c.with_rank(c.input(2), 0)
    axis_value = c.input_tensor(2)
    batch_dims = c.get_attr("batch_dims")
    if axis_value is None:
        if params.dims is not None and indices.dims is not None:
            c.set_output(
                0,
                c.unknown_shape_of_rank(
                    len(params.dims) + len(indices.dims) - 1 - batch_dims
                ),
            )
        else:
            c.set_output(0, c.unknown_shape())
        return
    axis = int(axis_value[0][0])
    c.with_rank_at_least(params, -axis if axis < 0 else axis + 1)
    c.with_rank_at_least(indices, abs(batch_dims))
    if batch_dims < 0 and indices.dims is not None:
        batch_dims += len(indices.dims)
    c.with_rank_at_least(params, batch_dims + 1)
    out = c.concatenate(c.subshape(params, 0, axis), c.subshape(indices, batch_dims))
    if axis != -1:
        out = c.concatenate(out, c.subshape(params, axis + 1))
    c.set_output(0, out)


def _gather_nd(c: InferenceContext) -> None:
    params = c.input(0)
    indices = c.with_rank_at_least(c.input(1), 1)
    r = c.dim(indices, -1)
    if params.dims is None or r is None:
        c.set_output(0, c.unknown_shape())
        return
    if r > len(params.dims):
        raise ShapeError(
            "indices.shape[-1] must be <= params.rank, but saw indices shape: "
            f"{debug_string(indices)} and params shape: {debug_string(params)}"
        )
    c.set_output(0, c.concatenate(c.subshape(indices, 0, -1), c.subshape(params, r)))


def _one_hot(c: InferenceContext) -> None:
    axis = c.get_attr("axis")
    if axis < -1:
        raise ShapeError("axis must be >= -1")
    depth = scalar_input_dim(c, 1)
    indices = c.input(0)
    if indices.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    new_rank = len(indices.dims) + 1
    index = (axis + new_rank) % new_rank
    c.set_output(
        0, c.make_shape(indices.dims[:index] + (depth,) + indices.dims[index:])
    )


def _where(c: InferenceContext) -> None:
    c.set_output(0, c.matrix(None, c.rank(c.input(0))))


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


def _pad(c: InferenceContext) -> None:
    paddings = c.with_rank(c.input(1), 2)
    c.with_value(c.dim(paddings, 1), 2)
    shape = c.input(0)
    n = c.dim(paddings, 0)
    if n is not None:
        shape = c.with_rank(shape, n)
    elif shape.dims is not None:
        n = c.with_value(n, len(shape.dims))
    value = c.input_tensor(1)
    if value is None:
        c.set_output(0, c.unknown_shape() if n is None else c.unknown_shape_of_rank(n))
        return
    num_dims = value[1][0]
    shape = c.with_rank(shape, num_dims)
    c.with_value(n, num_dims)
    dims = []
    for i in range(num_dims):
        before, after = value[0][2 * i], value[0][2 * i + 1]
        if before < 0 or after < 0:
            raise ShapeError("Paddings must be non-negative")
        dims.append(c.add(c.dim(shape, i), before + after))
    c.set_output(0, c.make_shape(dims))


def _reverse_v2(c: InferenceContext) -> None:
    shape = c.input(0)
    c.with_rank(c.input(1), 1)
    if shape.dims is not None and len(shape.dims) > 8:
        raise ShapeError("reverse does not work on tensors with more than 8 dimensions")
    axes = c.input_tensor(1)
    if axes is not None and shape.dims is not None:
        rank = len(shape.dims)
        seen = set()
        for i, a in enumerate(axes[0]):
            canonical = a + rank if a < 0 else a
            if canonical < 0 or canonical >= rank:
                raise ShapeError(
                    f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}"
                )
            if canonical in seen:
                raise ShapeError(f"axis {canonical} specified more than once.")
            seen.add(canonical)
    c.set_output(0, shape)


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


def _two_vectors(c: InferenceContext) -> None:
    """Two vector inputs, two vector outputs of unknown length."""
    c.with_rank(c.input(0), 1)
    c.with_rank(c.input(1), 1)
    c.set_output(0, c.vector(None))
    c.set_output(1, c.vector(None))


def _mirror_pad_grad(c: InferenceContext) -> None:
    _mirror_pad_like(c, grad=True)


def _reverse(c: InferenceContext) -> None:
    dims = c.with_rank(c.input(1), 1)
    shape = c.input(0)
    n = c.dim(dims, 0)
    if n is not None:
        shape = c.with_rank(shape, n)
    if shape.dims is not None and len(shape.dims) > 8:
        raise ShapeError("reverse does not work on tensors with more than 8 dimensions")
    c.set_output(0, shape)


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


def _space_batch(
    c: InferenceContext,
    to_batch: bool,
    shape: ShapeHandle,
    block_shape_shape: ShapeHandle,
    block_shape: Values | None,
    paddings_shape: ShapeHandle,
    paddings: Values | None,
) -> None:
    """TF's SpaceToBatchShapeHelper / BatchToSpaceShapeHelper."""
    if block_shape_shape.rank != 1:
        raise ShapeError("block_shape must have rank 1.")
    n = c.dim(block_shape_shape, 0)
    if n is None:
        raise ShapeError("block_shape must have known size.")
    shape = c.with_rank_at_least(shape, n + 1)
    c.merge(paddings_shape, c.matrix(n, 2))
    batch = c.dim(shape, 0)
    blocks: list[int] = []
    if block_shape is not None and (block_shape[0] or not to_batch):
        blocks = [int(v) for v in block_shape[0]]
        for dim in range(n):
            if blocks[dim] < 1:
                raise ShapeError("block_shape must be positive")
            if batch is None:
                continue
            batch = (
                c.multiply(batch, blocks[dim])
                if to_batch
                else c.divide(batch, blocks[dim], True)
            )
    elif n > 0:
        batch = None
    dims: list[int | None] = [batch] + [None] * n
    if paddings is not None and (paddings[0] or not to_batch):
        values = [int(v) for v in paddings[0]]
        for dim in range(n):
            start, end = values[2 * dim], values[2 * dim + 1]
            if start < 0 or end < 0:
                raise ShapeError(
                    "paddings cannot be negative"
                    if to_batch
                    else "crops cannot be negative"
                )
            if block_shape is not None:
                if to_batch:
                    padded = c.add(c.dim(shape, dim + 1), start + end)
                    dims[dim + 1] = c.divide(padded, blocks[dim], True)
                else:
                    grown = c.multiply(c.dim(shape, dim + 1), blocks[dim])
                    dims[dim + 1] = c.subtract(grown, start + end)
    c.set_output(0, c.concatenate(c.make_shape(dims), c.subshape(shape, 1 + n)))


def _space_batch_v1(c: InferenceContext, to_batch: bool) -> None:
    shape = c.with_rank(c.input(0), 4)
    block = c.get_attr("block_size")
    _space_batch(
        c,
        to_batch,
        shape,
        c.vector(2),
        ([block, block], [2]),
        c.input(1),
        c.input_tensor(1),
    )


def _identity_n(c: InferenceContext) -> None:
    for i in range(c.num_inputs):
        c.set_output(i, c.input(i))


def _dynamic_stitch(c: InferenceContext) -> None:
    n = c.get_attr("N")
    all_constant = True
    max_index = -1
    extra = c.unknown_shape()
    for i in range(n):
        value = c.input_tensor(i)
        if value is None:
            all_constant = False
        indices = c.input(i)
        if indices.dims is None:
            continue
        c.merge_prefix(c.input(i + n), indices)
        extra = c.merge(extra, c.subshape(c.input(i + n), len(indices.dims)))
        if value is not None and value[0]:
            max_index = max(max_index, max(int(v) for v in value[0]))
    out = c.vector(max_index + 1 if all_constant else None)
    c.set_output(0, c.concatenate(out, extra))


def _invert_permutation(c: InferenceContext) -> None:
    c.set_output(0, c.with_rank(c.input(0), 1))


def _unique(c: InferenceContext) -> None:
    c.set_output(0, c.vector(None))
    c.set_output(1, c.input(0))
    if c.num_outputs > 2:
        c.set_output(2, c.vector(None))
    c.with_rank(c.input(0), 1)


def _unique_with_counts(c: InferenceContext) -> None:
    c.set_output(0, c.vector(None))
    c.set_output(1, c.input(0))
    c.set_output(2, c.vector(None))


def _unique_v2(c: InferenceContext) -> None:
    shape = c.input(0)
    idx = c.vector(None)
    if shape.dims is None:
        c.set_output(0, c.unknown_shape())
    else:
        rank = len(shape.dims)
        c.set_output(0, c.unknown_shape_of_rank(rank))
        axis = c.input_tensor(1)
        if axis is not None:
            if len(axis[1]) != 1:
                raise ShapeError("axis expects a 1D vector.")
            if len(axis[0]) > 1:
                raise ShapeError(
                    "axis does not support input tensors larger than 1 elements."
                )
            if axis[0]:
                a = int(axis[0][0])
                if a < -rank or a >= rank:
                    raise ShapeError(
                        f"axis expects to be in the range [{-rank}, {rank})"
                    )
                idx = c.vector(shape.dims[a])
    c.set_output(1, idx)
    if c.num_outputs > 2:
        c.set_output(2, c.vector(None))


def _fingerprint(c: InferenceContext) -> None:
    c.with_rank_at_least(c.input(0), 1)
    c.with_rank(c.input(1), 0)
    method = c.input_tensor(1)
    size = None
    if method is not None:
        name = (
            method[0][0].decode()
            if isinstance(method[0][0], bytes)
            else str(method[0][0])
        )
        if name != "farmhash64":
            raise ShapeError(f"Unsupported method: {name}")
        size = 8
    c.set_output(0, c.make_shape([c.dim(c.input(0), 0), size]))


def _scatter_nd_helper(
    c: InferenceContext, indices: ShapeHandle, updates: ShapeHandle, shape: ShapeHandle
) -> None:
    """TF's ScatterNdShapeHelper."""
    if c.num_elements(shape) == 0 and (
        (c.num_elements(indices) or 0) > 0 or (c.num_elements(updates) or 0) > 0
    ):
        raise ShapeError("Indices and updates specified for empty input")
    if indices.dims is not None and updates.dims is not None and len(updates.dims) != 0:
        outer = len(indices.dims) - 1
        ix = c.dim(indices, -1)
        if ix is not None:
            prefix_indices = c.subshape(indices, 0, outer)
            prefix_updates = c.subshape(updates, 0, outer)
            try:
                c.merge(prefix_indices, prefix_updates)
            except ShapeError as e:
                raise ShapeError(
                    f"Dimensions [0,{outer}) of indices[shape={debug_string(indices)}] = "
                    f"{debug_string(prefix_indices)} must match dimensions [0,{outer}) of "
                    f"updates[shape={debug_string(updates)}] = {debug_string(prefix_updates)}: {e}"
                ) from None
            suffix_output = c.subshape(shape, ix)
            suffix_updates = c.subshape(updates, outer)
            try:
                c.merge(suffix_output, suffix_updates)
            except ShapeError as e:
                raise ShapeError(
                    f"Dimensions [{ix},{c.rank(shape)}) of input[shape={debug_string(shape)}] = "
                    f"{debug_string(suffix_output)} must match dimensions [{outer},"
                    f"{len(updates.dims)}) of updates[shape={debug_string(updates)}] = "
                    f"{debug_string(suffix_updates)}: {e}"
                ) from None
    c.set_output(0, shape)


def _scatter_nd(c: InferenceContext) -> None:
    indices = c.with_rank_at_least(c.input(0), 1)
    updates = c.with_rank_at_least(c.input(1), 1)
    c.with_rank(c.input(2), 1)
    shape = c.make_shape_from_shape_tensor(2)
    _scatter_nd_helper(c, indices, updates, shape)


def _scatter_nd_tensor(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 1)
    indices = c.with_rank_at_least(c.input(1), 1)
    updates = c.with_rank_at_least(c.input(2), 1)
    _scatter_nd_helper(c, indices, updates, shape)


def _diag(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 1)
    c.set_output(0, c.concatenate(shape, shape))


def _diag_part(c: InferenceContext) -> None:
    shape = c.input(0)
    if shape.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    rank = len(shape.dims)
    if rank % 2 != 0 or rank <= 0:
        raise ShapeError(
            f"Input must have even and non-zero rank, input rank is {rank}"
        )
    mid = rank // 2
    c.set_output(
        0,
        c.make_shape(
            [c.merge_dim(shape.dims[i], shape.dims[i + mid]) for i in range(mid)]
        ),
    )


def _min_dim(a: int | None, b: int | None) -> int | None:
    """TF's InferenceContext::Min."""
    if a == 0 or b == 0:
        return 0
    if a is None or b is None:
        return None
    return min(a, b)


def _matrix_diag(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 1)
    if shape.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    c.set_output(0, c.concatenate(shape, c.vector(shape.dims[-1])))


def _matrix_diag_part(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 2)
    if shape.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    dims = shape.dims
    c.set_output(0, c.make_shape(dims[:-2] + (_min_dim(dims[-2], dims[-1]),)))


def _matrix_set_diag(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 2)
    diag = c.with_rank_at_least(c.input(1), 1)
    if shape.dims is not None:
        diag = c.with_rank(c.input(1), len(shape.dims) - 1)
    smallest = _min_dim(c.dim(shape, -2), c.dim(shape, -1))
    c.merge_dim(smallest, c.dim(diag, -1))
    out = shape
    if diag.dims is not None and not c.fully_defined(shape):
        out = c.merge(
            shape, c.concatenate(c.subshape(diag, 0, -1), c.unknown_shape_of_rank(2))
        )
    c.set_output(0, out)


def _space_depth(to_depth: bool) -> ShapeFn:
    def fn(c: InferenceContext) -> None:
        data_format = c.get_attr("data_format")
        rank = 5 if data_format == b"NCHW_VECT_C" else 4
        shape = c.with_rank(c.input(0), rank)
        block = c.get_attr("block_size")
        if data_format == b"NHWC":
            n, h, w, d = shape.known_dims()
        else:
            n, d, h, w = shape.known_dims()[:4]
        if to_depth:
            h = c.divide(h, block, True)
            w = c.divide(w, block, True)
            d = c.multiply(d, block * block)
        else:
            h = c.multiply(h, block)
            w = c.multiply(w, block)
            d = c.divide(d, block * block, True)
        dims = [n, h, w, d] if data_format == b"NHWC" else [n, d, h, w]
        c.set_output(0, c.make_shape(dims))

    return fn


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


def _unravel_index(c: InferenceContext) -> None:
    indices = c.input(0)
    dims = c.with_rank(c.input(1), 1)
    if indices.dims is not None and len(indices.dims) == 0:
        c.set_output(0, c.vector(c.dim(dims, 0)))
    elif indices.dims is not None:
        c.set_output(0, c.matrix(c.dim(dims, 0), c.num_elements(indices)))
    else:
        c.set_output(0, c.unknown_shape())


def _sorted_search(c: InferenceContext) -> None:
    c.with_rank(c.input(0), 2)
    c.with_rank(c.input(1), 2)
    c.set_output(0, c.input(1))


def _reverse_sequence(c: InferenceContext) -> None:
    shape = c.input(0)
    seq_lens = c.with_rank(c.input(1), 1)
    seq_dim = c.get_attr("seq_dim")
    batch_dim = c.get_attr("batch_dim")
    if shape.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    rank = len(shape.dims)
    if batch_dim >= rank:
        raise ShapeError(f"batch_dim must be < input rank: {batch_dim} vs. {rank}")
    if seq_dim >= rank:
        raise ShapeError(f"seq_dim must be < input rank: {seq_dim} vs. {rank}")
    batch = c.merge_dim(c.dim(shape, batch_dim), c.dim(seq_lens, 0))
    c.set_output(0, c.replace_dim(shape, batch_dim, batch))


def _concat_offset(c: InferenceContext) -> None:
    for i in range(1, c.num_inputs):
        c.set_output(i - 1, c.input(i))


def _mirror_pad(c: InferenceContext) -> None:
    _mirror_pad_like(c, grad=False)


def _mirror_pad_like(c: InferenceContext, grad: bool) -> None:
    """MirrorPad (dims grow by the paddings) and MirrorPadGrad (dims shrink by them)."""
    paddings = c.with_rank(c.input(1), 2)
    if not grad:
        c.with_value(c.dim(paddings, 1), 2)
    n = c.dim(paddings, 0)
    if n is None:
        rank = None if grad else c.rank(c.input(0))
        c.set_output(
            0, c.unknown_shape() if rank is None else c.unknown_shape_of_rank(rank)
        )
        return
    shape = c.with_rank(c.input(0), n)
    c.merge(paddings, c.matrix(n, 2))
    value = c.input_tensor(1)
    if value is None:
        c.set_output(0, c.unknown_shape_of_rank(n))
        return
    dims = []
    for i in range(n):
        before, after = value[0][2 * i], value[0][2 * i + 1]
        if before < 0 or after < 0:
            raise ShapeError("Paddings must be non-negative")
        if grad:
            dims.append(c.subtract(c.dim(shape, i), before + after))
        else:
            dims.append(c.add(c.dim(shape, i), before + after))
    c.set_output(0, c.make_shape(dims))


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
    "BroadcastGradientArgs": _two_vectors,
    "BroadcastTo": _broadcast_to,
    "Concat": concat_shape,
    "ConcatOffset": _concat_offset,
    "ConcatV2": concat_v2_shape,
    "ConjugateTranspose": _transpose,
    "Const": const_shape,
    "DepthToSpace": _space_depth(to_depth=False),
    "Diag": _diag,
    "DiagPart": _diag_part,
    "Empty": _empty,
    "EnsureShape": _ensure_shape,
    "ExpandDims": _expand_dims,
    "Fill": _fill,
    "Gather": _gather,
    "GatherNd": _gather_nd,
    "GatherV2": _gather_v2,
    "IdentityN": _identity_n,
    "SpaceToBatchND": lambda c: _space_batch(
        c,
        True,
        c.input(0),
        c.input(1),
        c.input_tensor(1),
        c.input(2),
        c.input_tensor(2),
    ),
    "BatchToSpaceND": lambda c: _space_batch(
        c,
        False,
        c.input(0),
        c.input(1),
        c.input_tensor(1),
        c.input(2),
        c.input_tensor(2),
    ),
    "SpaceToBatch": lambda c: _space_batch_v1(c, True),
    "BatchToSpace": lambda c: _space_batch_v1(c, False),
    "ParallelConcat": _parallel_concat,
    "ImmutableConst": explicit_shape,
    "MirrorPadGrad": _mirror_pad_grad,
    "Reverse": _reverse,
    "StridedSliceGrad": _strided_slice_grad,
    "DynamicStitch": _dynamic_stitch,
    "ParallelDynamicStitch": _dynamic_stitch,
    "InvertPermutation": _invert_permutation,
    "ListDiff": _two_vectors,
    "LowerBound": _sorted_search,
    "MatrixDiag": _matrix_diag,
    "MatrixDiagPart": _matrix_diag_part,
    "MatrixSetDiag": _matrix_set_diag,
    "MirrorPad": _mirror_pad,
    "OneHot": _one_hot,
    "Pack": pack_shape,
    "Pad": _pad,
    "PadV2": _pad,
    "Placeholder": explicit_shape,
    "PlaceholderWithDefault": _placeholder_with_default,
    "Reshape": reshape_shape,
    "ReverseSequence": _reverse_sequence,
    "ReverseV2": _reverse_v2,
    "Shape": shape_shape,
    "ShapeN": shape_shape,
    "Slice": _slice,
    "SpaceToDepth": _space_depth(to_depth=True),
    "Split": split_shape,
    "SplitV": _split_v,
    "Squeeze": _squeeze,
    "StridedSlice": strided_slice_shape,
    "Tile": _tile,
    "Transpose": _transpose,
    "Unique": _unique,
    "UniqueWithCounts": _unique_with_counts,
    "UniqueV2": _unique_v2,
    "UniqueWithCountsV2": _unique_v2,
    "Fingerprint": _fingerprint,
    "ScatterNd": _scatter_nd,
    "ScatterNdNonAliasingAdd": _scatter_nd_tensor,
    "TensorScatterAdd": _scatter_nd_tensor,
    "TensorScatterMax": _scatter_nd_tensor,
    "TensorScatterMin": _scatter_nd_tensor,
    "TensorScatterSub": _scatter_nd_tensor,
    "TensorScatterUpdate": _scatter_nd_tensor,
    "UnravelIndex": _unravel_index,
    "Unpack": _unpack,
    "UpperBound": _sorted_search,
    "Where": _where,
}
