"""Ports of the shape functions of TF's math ops (tensorflow/core/ops/math_ops.cc)."""

from __future__ import annotations

import math
from typing import Any

from ..context import InferenceContext, ShapeError
from .common import (
    ShapeFn,
    add_n_shape,
    broadcast_binary_op_shape,
    broadcast_shapes,
    explicit_shape,
    mat_mul_shape,
    reduction_shape,
    scalar_from_tensor,
    scalar_input_dim,
    unchanged_shape,
)


def _batch_mat_mul(broadcast: bool) -> ShapeFn:
    def fn(c: InferenceContext) -> None:
        a = c.with_rank_at_least(c.input(0), 2)
        b = c.with_rank_at_least(c.input(1), 2)
        adj_x, adj_y = c.get_attr("adj_x"), c.get_attr("adj_y")
        rows = c.dim(a, -1 if adj_x else -2)
        cols = c.dim(b, -2 if adj_y else -1)
        if broadcast:
            c.merge_dim(c.dim(a, -2 if adj_x else -1), c.dim(b, -1 if adj_y else -2))
            batch = broadcast_shapes(c, c.subshape(a, 0, -2), c.subshape(b, 0, -2))
        else:
            batch = c.merge(c.subshape(a, 0, -2), c.subshape(b, 0, -2))
            c.merge_dim(c.dim(a, -2 if adj_x else -1), c.dim(b, -1 if adj_y else -2))
        c.set_output(0, c.concatenate(batch, c.matrix(rows, cols)))

    return fn


def _arg_op(c: InferenceContext) -> None:
    c.with_rank(c.input(1), 0)
    shape = c.input(0)
    if shape.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    rank = len(shape.dims)
    if rank <= 1:
        c.set_output(0, c.scalar())
        return
    value = c.input_tensor(1)
    if value is None:
        c.set_output(0, c.unknown_shape_of_rank(rank - 1))
        return
    dimension = int(value[0][0])
    axis = dimension + rank if dimension < 0 else dimension
    if axis < 0 or axis >= rank:
        raise ShapeError(
            f"Dimension ({dimension}) must be in the range [{-rank}, {rank}), where "
            f"{rank} is the number of dimensions in the input."
        )
    c.set_output(0, c.make_shape(shape.dims[:axis] + shape.dims[axis + 1 :]))


def _number(v: Any) -> str:
    """A number as TF's StrCat prints it."""
    if isinstance(v, float):
        return f"{v:g}" if v != int(v) else str(int(v))
    return str(v)


def _scalar_inputs(c: InferenceContext, names: tuple[str, ...]) -> None:
    for i, name in enumerate(names):
        try:
            c.with_rank(c.input(i), 0)
        except ShapeError as e:
            raise ShapeError(f"{e}\n\t for '{name}'") from None


def _range(c: InferenceContext) -> None:
    _scalar_inputs(c, ("start", "limit", "delta"))
    values = [c.input_tensor(i) for i in range(3)]
    if any(v is None for v in values):
        c.set_output(0, c.vector(None))
        return
    start, limit, delta = (v[0][0] for v in values if v is not None)
    if start > limit and delta > 0:
        raise ShapeError(
            f"Requires start <= limit when delta > 0: {_number(start)}/{_number(limit)}"
        )
    if start < limit and delta < 0:
        raise ShapeError(
            f"Requires start >= limit when delta < 0: {_number(start)}/{_number(limit)}"
        )
    if delta == 0:
        raise ShapeError("Requires delta != 0")
    if isinstance(start, int) and isinstance(limit, int) and isinstance(delta, int):
        size = -(-abs(limit - start) // abs(delta))
    else:
        size = math.ceil(abs((limit - start) / delta))
    c.set_output(0, c.vector(size))


def _lin_space(c: InferenceContext) -> None:
    _scalar_inputs(c, ("start", "stop", "num"))
    value = c.input_tensor(2)
    if value is None:
        c.set_output(0, c.vector(None))
        return
    num = int(value[0][0])
    if num <= 0:
        raise ShapeError(f"Requires num > 0: {num}")
    c.set_output(0, c.vector(num))


def _select(c: InferenceContext) -> None:
    data = c.merge(c.input(1), c.input(2))
    cond = c.input(0)
    if cond.dims is None or data.dims is None:
        c.set_output(0, data)
        return
    if len(cond.dims) == 0:
        c.set_output(0, data)
    elif len(cond.dims) != 1 or len(data.dims) == 0:
        c.set_output(0, c.merge(data, cond))
    else:
        c.merge(cond, c.vector(data.dims[0]))
        c.set_output(0, data)


def _select_v2(c: InferenceContext) -> None:
    other = broadcast_shapes(c, c.input(1), c.input(2))
    c.set_output(0, broadcast_shapes(c, c.input(0), other))


def _segment_reduction(c: InferenceContext) -> None:
    data = c.with_rank_at_least(c.input(0), 1)
    c.with_rank(c.input(1), 1)
    c.set_output(0, c.concatenate(c.vector(None), c.subshape(data, 1)))


def _unsorted_segment_reduction(c: InferenceContext) -> None:
    data, ids = c.input(0), c.input(1)
    c.with_rank(c.input(2), 0)
    if ids.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    data, ids = c.merge_prefix(data, ids)
    num_segments = scalar_input_dim(c, 2)
    c.set_output(
        0,
        c.concatenate(c.vector(num_segments), c.subshape(data, len(ids.known_dims()))),
    )


def _sparse_segment_reduction(with_num_segments: bool) -> ShapeFn:
    def fn(c: InferenceContext) -> None:
        data = c.with_rank_at_least(c.input(0), 1)
        indices = c.with_rank(c.input(1), 1)
        c.with_rank(c.input(2), 1)
        if with_num_segments:
            c.with_rank(c.input(3), 0)
        c.merge(c.input(2), indices)
        dim0 = None
        if with_num_segments:
            value = c.input_tensor(3)
            dim0 = None if value is None else int(value[0][0])
        c.set_output(0, c.concatenate(c.vector(dim0), c.subshape(data, 1)))

    return fn


def _sparse_segment_grad(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 1)
    indices = c.with_rank(c.input(1), 1)
    c.merge(c.input(2), indices)
    c.with_rank(c.input(3), 0)
    value = c.input_tensor(3)
    dim0 = None if value is None else int(value[0][0])
    c.set_output(0, c.concatenate(c.vector(dim0), c.subshape(shape, 1)))


def _sparse_segment_grad_v2(c: InferenceContext) -> None:
    """The gradient rows of the unique indices (their number unknown), and those indices."""
    shape = c.with_rank_at_least(c.input(0), 1)
    indices = c.with_rank(c.input(1), 1)
    c.merge(c.input(2), indices)
    c.with_rank(c.input(3), 0)
    c.set_output(0, c.concatenate(c.vector(None), c.subshape(shape, 1)))
    c.set_output(1, c.vector(None))


def _cross(c: InferenceContext) -> None:
    a = c.with_rank_at_least(c.input(0), 1)
    b = c.with_rank_at_least(c.input(1), 1)
    a = c.merge(a, b)
    if a.dims is not None:
        c.with_value(a.dims[-1], 3)
    c.set_output(0, a)


def _betainc(c: InferenceContext) -> None:
    output = c.unknown_shape()
    scalars = 0
    some_non_scalar = c.unknown_shape()
    for i in range(3):
        shape = c.input(i)
        if shape.dims is None:
            some_non_scalar = shape
        elif len(shape.dims) == 0:
            scalars += 1
        else:
            output = c.merge(output, shape)
            some_non_scalar = output
    if scalars == 2:
        output = some_non_scalar
    elif scalars == 3:
        output = c.input(0)
    c.set_output(0, output)


def _histogram_fixed_width(c: InferenceContext) -> None:
    value_range = c.with_rank(c.input(1), 1)
    c.with_value(c.dim(value_range, 0), 2)
    c.with_rank(c.input(2), 0)
    value = c.input_tensor(2)
    if value is None:
        c.set_output(0, c.unknown_shape_of_rank(1))
        return
    nbins = scalar_from_tensor(value)
    if nbins <= 0:
        raise ShapeError(f"Requires nbins > 0: {nbins}")
    c.set_output(0, c.vector(nbins))


def _bincount(c: InferenceContext) -> None:
    c.with_rank(c.input(1), 0)
    value = c.input_tensor(1)
    if value is None:
        c.set_output(0, c.unknown_shape_of_rank(1))
        return
    size = int(value[0][0])
    if size < 0:
        raise ShapeError(f"size ({size}) must be non-negative")
    c.set_output(0, c.vector(size))


def _approximate_equal(c: InferenceContext) -> None:
    c.merge(c.input(0), c.input(1))
    unchanged_shape(c)


def _with_scalar_ranges(main: ShapeFn, scalars: range, outputs: int = 2) -> ShapeFn:
    """Quantized ops: the float op's function, scalar min/max inputs and outputs."""

    def fn(c: InferenceContext) -> None:
        main(c)
        for i in scalars:
            c.with_rank(c.input(i), 0)
        for i in range(1, 1 + outputs):
            c.set_output(i, c.scalar())

    return fn


def _requantization_range(c: InferenceContext) -> None:
    c.with_rank(c.input(1), 0)
    c.with_rank(c.input(2), 0)
    c.set_output(0, c.scalar())
    c.set_output(1, c.scalar())


# Ops registered with shape_inference::UnchangedShape.
UNCHANGED = (
    "Abs",
    "Acos",
    "Acosh",
    "Angle",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "Bucketize",
    "Cast",
    "Ceil",
    "ClipByValue",
    "ComplexAbs",
    "Conj",
    "Cos",
    "Cosh",
    "Cumprod",
    "Cumsum",
    "CumulativeLogsumexp",
    "Digamma",
    "Erf",
    "Erfc",
    "Erfinv",
    "Exp",
    "Expm1",
    "Floor",
    "Imag",
    "Inv",
    "InvGrad",
    "IsFinite",
    "IsInf",
    "IsNan",
    "Lgamma",
    "Log",
    "Log1p",
    "LogicalNot",
    "Ndtri",
    "Neg",
    "Real",
    "Reciprocal",
    "ReciprocalGrad",
    "Rint",
    "Round",
    "Rsqrt",
    "RsqrtGrad",
    "Sigmoid",
    "SigmoidGrad",
    "Sign",
    "Sin",
    "Sinh",
    "Sqrt",
    "SqrtGrad",
    "Square",
    "Tan",
    "Tanh",
    "TanhGrad",
)

# Ops registered with shape_inference::BroadcastBinaryOpShapeFn.
BROADCAST = (
    "Add",
    "AddV2",
    "Atan2",
    "Complex",
    "Div",
    "DivNoNan",
    "Equal",
    "FloorDiv",
    "FloorMod",
    "Greater",
    "GreaterEqual",
    "Igamma",
    "IgammaGradA",
    "Igammac",
    "Less",
    "LessEqual",
    "LogicalAnd",
    "LogicalOr",
    "Maximum",
    "Minimum",
    "Mod",
    "Mul",
    "MulNoNan",
    "NextAfter",
    "NotEqual",
    "Polygamma",
    "Pow",
    "RealDiv",
    "SelectV2",
    "SquaredDifference",
    "Sub",
    "TruncateDiv",
    "TruncateMod",
    "Xdivy",
    "Xlog1py",
    "Xlogy",
    "Zeta",
)

# Ops registered with shape_inference::ReductionShape.
REDUCTION = (
    "All",
    "EuclideanNorm",
    "Max",
    "Mean",
    "Min",
    "Prod",
    "Sum",
)


BY_OP: dict[str, ShapeFn] = {
    **dict.fromkeys(UNCHANGED, unchanged_shape),
    **dict.fromkeys(BROADCAST, broadcast_binary_op_shape),
    **dict.fromkeys(REDUCTION, reduction_shape),
    "AccumulateNV2": explicit_shape,
    "AddN": add_n_shape,
    "ApproximateEqual": _approximate_equal,
    "ArgMax": _arg_op,
    "ArgMin": _arg_op,
    "BatchMatMul": _batch_mat_mul(broadcast=False),
    "BatchMatMulV2": _batch_mat_mul(broadcast=True),
    "BatchMatMulV3": _batch_mat_mul(broadcast=True),
    "Betainc": _betainc,
    "Bincount": _bincount,
    "Cross": _cross,
    "HistogramFixedWidth": _histogram_fixed_width,
    "LinSpace": _lin_space,
    "MatMul": mat_mul_shape,
    "QuantizeDownAndShrinkRange": _with_scalar_ranges(unchanged_shape, range(1, 3)),
    "QuantizedAdd": _with_scalar_ranges(broadcast_binary_op_shape, range(2, 6)),
    "QuantizedMatMul": _with_scalar_ranges(mat_mul_shape, range(2, 6)),
    "QuantizedMul": _with_scalar_ranges(broadcast_binary_op_shape, range(0)),
    "Range": _range,
    "RequantizationRange": _requantization_range,
    "Requantize": _with_scalar_ranges(unchanged_shape, range(1, 5)),
    "Select": _select,
    "SelectV2": _select_v2,
    "SparseMatMul": mat_mul_shape,
    **dict.fromkeys(
        ("SegmentMax", "SegmentMean", "SegmentMin", "SegmentProd", "SegmentSum"),
        _segment_reduction,
    ),
    **dict.fromkeys(
        (
            "SegmentMaxV2",
            "SegmentMinV2",
            "SegmentProdV2",
            "SegmentSumV2",
            "UnsortedSegmentMax",
            "UnsortedSegmentMin",
            "UnsortedSegmentProd",
            "UnsortedSegmentSum",
        ),
        _unsorted_segment_reduction,
    ),
    **dict.fromkeys(
        ("SparseSegmentMean", "SparseSegmentSqrtN", "SparseSegmentSum"),
        _sparse_segment_reduction(with_num_segments=False),
    ),
    **dict.fromkeys(
        (
            "SparseSegmentMeanWithNumSegments",
            "SparseSegmentSqrtNWithNumSegments",
            "SparseSegmentSumWithNumSegments",
        ),
        _sparse_segment_reduction(with_num_segments=True),
    ),
    **dict.fromkeys(
        ("SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad", "SparseSegmentSumGrad"),
        _sparse_segment_grad,
    ),
    **dict.fromkeys(
        (
            "SparseSegmentMeanGradV2",
            "SparseSegmentSqrtNGradV2",
            "SparseSegmentSumGradV2",
        ),
        _sparse_segment_grad_v2,
    ),
}
