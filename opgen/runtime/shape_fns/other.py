"""Ports of the shape functions of TF's other op files: special math, bitwise, string,
random, control flow, logging and debug ops (tensorflow/core/ops/*_ops.cc)."""

from __future__ import annotations

from .common import (
    ShapeFn,
    broadcast_binary_op_shape,
    reduction_shape,
    scalar_shape,
    unchanged_shape,
)

# Ops registered with shape_inference::UnchangedShape.
UNCHANGED = (
    "AsString", "BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0",
    "BesselJ1", "BesselK0", "BesselK0e", "BesselK1", "BesselK1e", "BesselY0",
    "BesselY1", "Copy", "CopyHost", "Dawsn", "DebugIdentity", "DebugIdentityV2",
    "DebugIdentityV3", "DecodeBase64", "EncodeBase64", "Exit", "Expint",
    "FresnelCos", "FresnelSin", "Invert", "NextIteration", "PopulationCount",
    "Print", "RandomShuffle", "Spence", "StatelessShuffle", "StaticRegexFullMatch",
    "StaticRegexReplace", "StringJoin", "StringLength", "StringLower",
    "StringStrip", "StringToHashBucket", "StringToHashBucketFast",
    "StringToHashBucketStrong", "StringUpper", "UnicodeScript", "UnicodeTranscode",
)

# Ops registered with shape_inference::BroadcastBinaryOpShapeFn.
BROADCAST = (
    "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RandomGammaGrad",
    "RightShift", "Substr",
)

# Ops registered with shape_inference::ReductionShape.
REDUCTION = (
    "ReduceJoin",
)

# Ops registered with shape_inference::ScalarShape.
SCALAR = (
    "AudioSummaryV2", "DebugNanCount", "HistogramSummary", "ImageSummary",
    "MergeSummary", "ScalarSummary", "StatelessRandomGetAlg", "StringFormat",
    "TensorSummary", "TensorSummaryV2", "Timestamp",
)


BY_OP: dict[str, ShapeFn] = {
    **dict.fromkeys(UNCHANGED, unchanged_shape),
    **dict.fromkeys(BROADCAST, broadcast_binary_op_shape),
    **dict.fromkeys(REDUCTION, reduction_shape),
    **dict.fromkeys(SCALAR, scalar_shape),
}
