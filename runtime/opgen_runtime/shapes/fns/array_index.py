"""Ports of TF's shape functions for array ops that index: gather, scatter_nd, one-hot,
unique, where, sorted search, dynamic stitch (tensorflow/core/ops/array_ops.cc)."""

from __future__ import annotations

from ..context import (
    InferenceContext,
    ShapeError,
    ShapeHandle,
    debug_string,
)
from .common import ShapeFn, scalar_input_dim


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
        0, c.make_shape((*indices.dims[:index], depth, *indices.dims[index:]))
    )


def _where(c: InferenceContext) -> None:
    c.set_output(0, c.matrix(None, c.rank(c.input(0))))


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
            max_index = max(max_index, *(int(v) for v in value[0]))
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


def _two_vectors(c: InferenceContext) -> None:
    """Two vector inputs, two vector outputs of unknown length."""
    c.with_rank(c.input(0), 1)
    c.with_rank(c.input(1), 1)
    c.set_output(0, c.vector(None))
    c.set_output(1, c.vector(None))


BY_OP: dict[str, ShapeFn] = {
    "BroadcastGradientArgs": _two_vectors,
    "Gather": _gather,
    "GatherNd": _gather_nd,
    "GatherV2": _gather_v2,
    "DynamicStitch": _dynamic_stitch,
    "ParallelDynamicStitch": _dynamic_stitch,
    "InvertPermutation": _invert_permutation,
    "ListDiff": _two_vectors,
    "LowerBound": _sorted_search,
    "OneHot": _one_hot,
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
    "UpperBound": _sorted_search,
    "Where": _where,
}
