"""Ports of TF's shape functions for array ops that rearrange: padding, reversal,
diagonals, space/batch/depth moves (tensorflow/core/ops/array_ops.cc)."""

from __future__ import annotations

from ..context import (
    InferenceContext,
    ShapeError,
    ShapeHandle,
    Values,
)
from .common import ShapeFn


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


def _mirror_pad_grad(c: InferenceContext) -> None:
    _mirror_pad_like(c, grad=True)


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


def _reverse(c: InferenceContext) -> None:
    dims = c.with_rank(c.input(1), 1)
    shape = c.input(0)
    n = c.dim(dims, 0)
    if n is not None:
        shape = c.with_rank(shape, n)
    if shape.dims is not None and len(shape.dims) > 8:
        raise ShapeError("reverse does not work on tensors with more than 8 dimensions")
    c.set_output(0, shape)


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


def _space_to_batch_nd(c: InferenceContext) -> None:
    _space_batch_nd(c, to_batch=True)


def _batch_to_space_nd(c: InferenceContext) -> None:
    _space_batch_nd(c, to_batch=False)


def _space_batch_nd(c: InferenceContext, to_batch: bool) -> None:
    _space_batch(
        c,
        to_batch,
        c.input(0),
        c.input(1),
        c.input_tensor(1),
        c.input(2),
        c.input_tensor(2),
    )


def _space_to_batch(c: InferenceContext) -> None:
    _space_batch_v1(c, to_batch=True)


def _batch_to_space(c: InferenceContext) -> None:
    _space_batch_v1(c, to_batch=False)


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
    c.set_output(0, c.make_shape((*dims[:-2], _min_dim(dims[-2], dims[-1]))))


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


def _diag_index(value: Values) -> tuple[int, int]:
    """TF's ReadDiagIndex: k as one diagonal or a (lower, upper) band."""
    values, dims = value
    if dims and len(values) not in (1, 2):
        raise ShapeError(
            "diag_index must be a vector with one or two elements. It has "
            f"{len(values)} elements."
        )
    if len(values) == 2:
        return int(values[0]), int(values[1])
    return int(values[0]), int(values[0])


def _matrix_diag_part_v2(c: InferenceContext) -> None:
    """MatrixDiagPartV2/V3: the diagonals k of the innermost matrices."""
    shape = c.with_rank_at_least(c.input(0), 2)
    c.with_rank_at_most(c.input(1), 1)
    c.with_rank(c.input(2), 0)
    k = c.input_tensor(1)
    if shape.dims is None or k is None:
        c.set_output(0, c.unknown_shape())
        return
    lower, upper = _diag_index(k)
    if lower > upper:
        raise ShapeError("lower_diag_index is greater than upper_diag_index")
    rows, cols = shape.dims[-2], shape.dims[-1]
    max_len: int | None = None
    if rows is not None and cols is not None:
        if lower != 0 and (-rows >= lower or lower >= cols):
            raise ShapeError("lower_diag_index is out of bound.")
        if upper != 0 and (-rows >= upper or upper >= cols):
            raise ShapeError("upper_diag_index is out of bound.")
        max_len = min(rows + min(upper, 0), cols - max(lower, 0))
    dims = list(shape.dims[:-2])
    if lower < upper:
        dims.append(upper - lower + 1)
    dims.append(max_len)
    c.set_output(0, c.make_shape(dims))


def _matrix_set_diag_v2(c: InferenceContext) -> None:
    """MatrixSetDiagV2/V3: the input's shape, checked against the diagonals and k."""
    shape = c.with_rank_at_least(c.input(0), 2)
    diag = c.with_rank_at_least(c.input(1), 1)
    k_shape = c.with_rank_at_most(c.input(2), 1)
    lower = upper = 0
    known = False
    k = c.input_tensor(2)
    if k is not None and c.fully_defined(k_shape):
        known = True
        lower, upper = _diag_index(k)
        if lower > upper:
            raise ShapeError("lower_diag_index is greater than upper_diag_index")
    if shape.dims is not None:
        rank = len(shape.dims)
        if known:
            diag = c.with_rank(c.input(1), rank - 1 if lower == upper else rank)
        else:
            diag = c.with_rank_at_least(c.input(1), rank - 1)
            diag = c.with_rank_at_most(c.input(1), rank)
        rows, cols = shape.dims[-2], shape.dims[-1]
        if rows is not None and cols is not None:
            if lower != 0 and (-rows >= lower or lower >= cols):
                raise ShapeError("lower_diag_index is out of bound.")
            if upper != 0 and (-rows >= upper or upper >= cols):
                raise ShapeError("upper_diag_index is out of bound.")
    out = shape
    if diag.dims is not None and not c.fully_defined(shape):
        prefix = c.subshape(diag, 0, -1)  # TF drops one dim here even for a band of k
        out = c.merge(shape, c.concatenate(prefix, c.unknown_shape_of_rank(2)))
    c.set_output(0, out)


BY_OP: dict[str, ShapeFn] = {
    "MatrixSetDiagV2": _matrix_set_diag_v2,
    "MatrixSetDiagV3": _matrix_set_diag_v2,
    "MatrixDiagPartV2": _matrix_diag_part_v2,
    "MatrixDiagPartV3": _matrix_diag_part_v2,
    "DepthToSpace": _space_depth(to_depth=False),
    "Diag": _diag,
    "DiagPart": _diag_part,
    "SpaceToBatchND": _space_to_batch_nd,
    "BatchToSpaceND": _batch_to_space_nd,
    "SpaceToBatch": _space_to_batch,
    "BatchToSpace": _batch_to_space,
    "MirrorPadGrad": _mirror_pad_grad,
    "Reverse": _reverse,
    "MatrixDiag": _matrix_diag,
    "MatrixDiagPart": _matrix_diag_part,
    "MatrixSetDiag": _matrix_set_diag,
    "MirrorPad": _mirror_pad,
    "Pad": _pad,
    "PadV2": _pad,
    "ReverseSequence": _reverse_sequence,
    "ReverseV2": _reverse_v2,
    "SpaceToDepth": _space_depth(to_depth=True),
}
