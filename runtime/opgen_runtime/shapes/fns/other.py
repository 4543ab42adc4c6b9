"""Ports of the shape functions of TF's other op files: special math, bitwise, string,
random, control flow, logging and debug ops (tensorflow/core/ops/*_ops.cc)."""

from __future__ import annotations

from ..context import InferenceContext, ShapeError, ShapeHandle, debug_string
from .common import (
    ShapeFn,
    broadcast_binary_op_shape,
    explicit_shape,
    reduction_shape,
    scalar_input_dim,
    scalar_shape,
    unchanged_shape,
)
from .einsum import einsum_shape

# Ops registered with shape_inference::UnchangedShape.
UNCHANGED = (
    "AsString",
    "BesselI0",
    "BesselI0e",
    "BesselI1",
    "BesselI1e",
    "BesselJ0",
    "BesselJ1",
    "BesselK0",
    "BesselK0e",
    "BesselK1",
    "BesselK1e",
    "BesselY0",
    "BesselY1",
    "Copy",
    "CopyHost",
    "Dawsn",
    "DebugIdentity",
    "DebugIdentityV2",
    "DebugIdentityV3",
    "DecodeBase64",
    "EncodeBase64",
    "Exit",
    "Expint",
    "FresnelCos",
    "FresnelSin",
    "Invert",
    "NextIteration",
    "PopulationCount",
    "Print",
    "RandomShuffle",
    "Spence",
    "StatelessShuffle",
    "StaticRegexFullMatch",
    "StaticRegexReplace",
    "StringJoin",
    "StringLength",
    "StringLower",
    "StringStrip",
    "StringToHashBucket",
    "StringToHashBucketFast",
    "StringToHashBucketStrong",
    "StringUpper",
    "UnicodeScript",
    "UnicodeTranscode",
)

# Ops registered with shape_inference::BroadcastBinaryOpShapeFn.
BROADCAST = (
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "LeftShift",
    "RandomGammaGrad",
    "RightShift",
    "Substr",
)

# Ops registered with shape_inference::ReductionShape.
REDUCTION = ("ReduceJoin",)

# Ops registered with shape_inference::ScalarShape.
SCALAR = (
    "AudioSummaryV2",
    "DebugNanCount",
    "HistogramSummary",
    "ImageSummary",
    "MergeSummary",
    "ScalarSummary",
    "StatelessRandomGetAlg",
    "StringFormat",
    "TensorSummary",
    "TensorSummaryV2",
    "Timestamp",
)


def _read_variable(c: InferenceContext) -> None:
    """TF's ReadVariableShapeFn: the `_shape` annotation, else the handle's variable shape."""
    if c.has_attr("_shape"):
        c.set_output(0, c.make_shape_from_attr(c.get_attr("_shape")))
        return
    found = c.input_handle_shape_and_dtype(0)
    if found is None:
        c.set_output(0, c.unknown_shape())
        return
    shape, dtype = found
    wanted = c.get_attr("dtype")
    if dtype != wanted.as_datatype_enum:
        raise ShapeError(
            "Trying to read variable with wrong dtype. Expected "
            f"{_type_name(wanted.as_datatype_enum)} got {_type_name(dtype)}"
        )
    c.set_output(0, shape)


def _type_name(enum: int) -> str:
    from opgen_runtime.proto import datatypes

    return datatypes.enum_name(enum)[3:].lower()


def _stateless_v2(c: InferenceContext) -> None:
    """TF's StatelessShapeV2 (stateless random ops with key, counter and alg inputs)."""
    key = c.with_rank(c.input(1), 1)
    c.with_rank(c.input(2), 1)
    c.with_rank(c.input(3), 0)
    c.with_value(c.dim(key, 0), 1)
    c.set_output(0, c.make_shape_from_shape_tensor(0))


def _get_key_counter(c: InferenceContext) -> None:
    seed = c.with_rank(c.input(0), 1)
    c.with_value(c.dim(seed, 0), 2)
    c.set_output(0, c.vector(1))
    c.set_output(1, c.vector(2))


def _random_shape(c: InferenceContext) -> None:
    """TF's RandomShape (random_ops.cc): the output shape is the shape tensor input 0."""
    c.set_output(0, c.make_shape_from_shape_tensor(0))


def _random_uniform_int(c: InferenceContext) -> None:
    for i, name in ((1, "minval"), (2, "maxval")):
        rank = c.rank(c.input(i))
        if rank is not None and rank != 0:
            raise ShapeError(
                f"{name} must be a scalar; got a tensor of shape {debug_string(c.input(i))}"
            )
    _random_shape(c)


def _stateless(c: InferenceContext) -> None:
    """TF's StatelessShape (stateless_random_ops.cc): a 2-element seed, then the shape."""
    seed = c.with_rank(c.input(1), 1)
    c.with_value(c.dim(seed, 0), 2)
    _random_shape(c)


def _multinomial(c: InferenceContext) -> None:
    logits = c.with_rank(c.input(0), 2)
    c.with_rank(c.input(1), 0)
    c.set_output(0, c.matrix(c.dim(logits, 0), scalar_input_dim(c, 1)))


def _switch(c: InferenceContext) -> None:
    c.with_rank(c.input(1), 0)
    c.set_output(0, c.input(0))
    c.set_output(1, c.input(0))


def _merge(c: InferenceContext) -> None:
    """TF's MergeShape (control_flow_ops.cc): dims the inputs disagree on become unknown."""
    out = c.input(0)
    if out.dims is not None:
        rank = len(out.dims)
        for i in range(1, c.num_inputs):
            shape = c.input(i)
            if shape.dims is None or len(shape.dims) != rank:
                out = c.unknown_shape()
                break
            for d in range(rank):
                if shape.dims[d] != c.dim(out, d):
                    out = c.replace_dim(out, d, None)
    c.set_output(0, out)
    c.set_output(1, c.scalar())


def _enter(c: InferenceContext) -> None:
    """Only a constant Enter passes its input's shape on (TF's Enter shape function)."""
    c.set_output(0, c.input(0) if c.get_attr("is_constant") else c.unknown_shape())


def _loop_cond(c: InferenceContext) -> None:
    c.set_output(0, c.with_rank(c.input(0), 0))


def _batch_square_matrix(c: InferenceContext, shape: ShapeHandle) -> ShapeHandle:
    """TF's MakeBatchSquareMatrix (linalg_ops.cc)."""
    shape = c.with_rank_at_least(shape, 2)
    d = c.merge_dim(c.dim(shape, -2), c.dim(shape, -1))
    return c.concatenate(c.subshape(shape, 0, -2), c.matrix(d, d))


def _batch_unchanged_square(c: InferenceContext) -> None:
    c.set_output(0, _batch_square_matrix(c, c.input(0)))


def _determinant(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 2)
    c.merge_dim(c.dim(shape, -1), c.dim(shape, -2))
    batch = c.subshape(shape, 0, -2)
    for i in range(c.num_outputs):
        c.set_output(i, batch)


def _matrix_solve(c: InferenceContext) -> None:
    """TF's MatrixSolveShapeFn with a square left-hand side."""
    lhs = _batch_square_matrix(c, c.input(0))
    rhs = c.with_rank_at_least(c.input(1), 2)
    batch = c.merge(c.subshape(lhs, 0, -2), c.subshape(rhs, 0, -2))
    m = c.merge_dim(c.dim(lhs, -2), c.dim(rhs, -2))
    n = c.merge_dim(m, c.dim(lhs, -1))
    out = c.concatenate(c.concatenate(batch, c.vector(n)), c.vector(c.dim(rhs, -1)))
    c.set_output(0, out)


def _scalar_inputs_after_first(c: InferenceContext) -> None:
    """String ops taking scalar patterns after the input: the input's shape."""
    for i in range(1, c.num_inputs):
        c.with_rank(c.input(i), 0)
    c.set_output(0, c.input(0))


def _string_split(c: InferenceContext) -> None:
    c.with_rank(c.input(0), 1)
    c.with_rank(c.input(1), 0)
    c.set_output(0, c.matrix(None, 2))
    c.set_output(1, c.vector(None))
    c.set_output(2, c.vector(2))


BY_OP: dict[str, ShapeFn] = {
    "RegexFullMatch": _scalar_inputs_after_first,
    "RegexReplace": _scalar_inputs_after_first,
    "StringSplit": _string_split,
    "StringSplitV2": _string_split,
    "Enter": _enter,
    "RefEnter": _enter,
    "LoopCond": _loop_cond,
    "Merge": _merge,
    "RefMerge": _merge,
    "Switch": _switch,
    "RefSwitch": _switch,
    "Cholesky": _batch_unchanged_square,
    "MatrixInverse": _batch_unchanged_square,
    "MatrixLogarithm": _batch_unchanged_square,
    "MatrixSquareRoot": _batch_unchanged_square,
    "MatrixDeterminant": _determinant,
    "LogMatrixDeterminant": _determinant,
    "MatrixSolve": _matrix_solve,
    "TemporaryVariable": explicit_shape,
    "Variable": explicit_shape,
    "VariableV2": explicit_shape,
    "VarHandleOp": scalar_shape,
    "VarIsInitializedOp": scalar_shape,
    "Multinomial": _multinomial,
    "RandomStandardNormal": _random_shape,
    "RandomUniform": _random_shape,
    "RandomUniformInt": _random_uniform_int,
    "TruncatedNormal": _random_shape,
    "StatelessRandomNormal": _stateless,
    "StatelessRandomUniform": _stateless,
    "StatelessTruncatedNormal": _stateless,
    "Einsum": einsum_shape,
    "StatelessRandomGetKeyCounter": _get_key_counter,
    "StatelessRandomNormalV2": _stateless_v2,
    "StatelessRandomUniformV2": _stateless_v2,
    "StatelessTruncatedNormalV2": _stateless_v2,
    "StatelessRandomUniformFullIntV2": _stateless_v2,
    "ReadVariableOp": _read_variable,
    **dict.fromkeys(UNCHANGED, unchanged_shape),
    **dict.fromkeys(BROADCAST, broadcast_binary_op_shape),
    **dict.fromkeys(REDUCTION, reduction_shape),
    **dict.fromkeys(SCALAR, scalar_shape),
}
