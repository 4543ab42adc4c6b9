"""Ports of the shape functions of TF's quantized and fake-quant ops (array_ops.cc,
nn_ops.cc, math_ops.cc): the float op's function plus TF's checks of the min/max inputs.
"""

from __future__ import annotations

from ..context import InferenceContext, ShapeError, ShapeHandle
from .common import ShapeFn, conv2d_shape, depthwise_conv2d_shape, mat_mul_shape

# min/max inputs that are per-tensor scalars; other min_*/max_* inputs may be per channel
_SCALAR_RANGES = {
    "min_input",
    "max_input",
    "min_freezed_output",
    "max_freezed_output",
    "min_summand",
    "max_summand",
    "min_a",
    "max_a",
    "min_b",
    "max_b",
}


def _input_names(c: InferenceContext) -> list[str]:
    return [arg.name for arg in c.op._op_def.input_arg]


def _fused(main: ShapeFn) -> ShapeFn:
    """Quantized conv/matmul fusions: bias of rank 1, min/max ranges, range outputs."""

    def fn(c: InferenceContext) -> None:
        main(c)
        names = _input_names(c)
        channel = c.scalar()
        for i, name in enumerate(names):
            if name == "bias":
                c.with_rank(c.input(i), 1)
            elif name in _SCALAR_RANGES:
                c.with_rank(c.input(i), 0)
            elif name.startswith(("min_", "max_")):
                channel = c.with_rank_at_most(c.input(i), 1)
        requantized = "min_freezed_output" in names
        for i in range(1, c.num_outputs):
            c.set_output(i, c.scalar() if requantized else channel)

    return fn


def _depthwise(c: InferenceContext) -> None:
    depthwise_conv2d_shape(c)
    for i in range(1, c.num_outputs):
        c.set_output(i, c.unknown_shape())


def _fake_quant_vars(c: InferenceContext) -> None:
    c.with_rank(c.input(1), 0)
    c.with_rank(c.input(2), 0)
    c.set_output(0, c.input(0))


def _fake_quant_vars_gradient(c: InferenceContext) -> None:
    inputs = c.merge(c.input(0), c.input(1))
    c.with_rank(c.input(2), 0)
    c.with_rank(c.input(3), 0)
    c.set_output(0, inputs)
    c.set_output(1, c.scalar())
    c.set_output(2, c.scalar())


def _fake_quant_per_channel(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 1)
    min_ = c.with_rank(c.input(1), 1)
    max_ = c.with_rank(c.input(2), 1)
    depth = c.merge_dim(c.dim(shape, -1), c.dim(min_, 0))
    c.merge_dim(depth, c.dim(max_, 0))
    c.set_output(0, shape)


def _fake_quant_per_channel_gradient(c: InferenceContext) -> None:
    shape = c.merge(c.with_rank_at_least(c.input(0), 1), c.input(1))
    depth = c.dim(shape, -1)
    min_ = c.with_rank(c.input(2), 1)
    max_ = c.with_rank(c.input(3), 1)
    depth = c.merge_dim(depth, c.dim(min_, 0))
    depth = c.merge_dim(depth, c.dim(max_, 0))
    c.set_output(0, shape)
    c.set_output(1, c.vector(depth))
    c.set_output(2, c.vector(depth))


def _min_max_per_axis(c: InferenceContext, first: int) -> ShapeHandle:
    """The `axis` attr's check of min/max inputs `first`, `first + 1` (TF's QuantizeV2 et al.)."""
    axis = c.get_attr("axis") if c.has_attr("axis") else -1
    if axis < -1:
        raise ShapeError(f"axis should be at least -1, got {axis}")
    rank = 0 if axis == -1 else 1
    minmax = c.with_rank(c.input(first), rank)
    minmax = c.merge(minmax, c.with_rank(c.input(first + 1), rank))
    if axis != -1:
        shape = c.with_rank_at_least(c.input(0), axis + 1)
        c.merge_dim(c.dim(minmax, 0), c.dim(shape, axis))
    return minmax


def _quantize_and_dequantize(c: InferenceContext) -> None:
    _min_max_per_axis(c, 1)
    if c.num_inputs > 3:
        c.with_rank(c.input(3), 0)
    c.set_output(0, c.input(0))


def _quantize_v2(c: InferenceContext) -> None:
    minmax = _min_max_per_axis(c, 1)
    c.set_output(0, c.input(0))
    c.set_output(1, minmax)
    c.set_output(2, minmax)


def _dequantize(c: InferenceContext) -> None:
    axis = c.get_attr("axis")
    rank = c.rank(c.input(0))
    if axis != -1 and axis > (-1 if rank is None else rank):
        raise ShapeError(
            f"Axis must be less than input dimension({-1 if rank is None else rank}), got {axis}"
        )
    _min_max_per_axis(c, 1)
    c.set_output(0, c.input(0))


def _quantized_reshape(c: InferenceContext) -> None:
    from .array import reshape_shape

    reshape_shape(c)
    c.with_rank(c.input(2), 0)
    c.with_rank(c.input(3), 0)
    c.set_output(1, c.scalar())
    c.set_output(2, c.scalar())


def _quantized_concat(c: InferenceContext) -> None:
    from .common import concat_inputs_shape

    n = (c.num_inputs - 1) // 3
    concat_inputs_shape(c, 1, 1 + n, 0)
    for i in range(n + 1, c.num_inputs):
        c.with_rank(c.input(i), 0)
    c.set_output(1, c.scalar())
    c.set_output(2, c.scalar())


def _quantize_and_dequantize_v4_grad(c: InferenceContext) -> None:
    axis = c.get_attr("axis")
    minmax = c.with_rank(c.input(2), 0 if axis == -1 else 1)
    minmax = c.merge(c.input(3), minmax)
    if axis != -1:
        shape = c.with_rank_at_least(c.input(0), axis + 1)
        c.merge_dim(c.dim(minmax, 0), c.dim(shape, axis))
    c.set_output(0, c.merge(c.input(0), c.input(1)))
    c.set_output(1, minmax)
    c.set_output(2, minmax)


def _quantized_instance_norm(c: InferenceContext) -> None:
    c.with_rank(c.input(0), 4)
    c.with_rank(c.input(1), 0)
    c.with_rank(c.input(2), 0)
    c.set_output(0, c.input(0))
    c.set_output(1, c.scalar())
    c.set_output(2, c.scalar())


def _quantized_batch_norm(c: InferenceContext) -> None:
    """QuantizedBatchNormWithGlobalNormalization: mean, variance, beta, gamma per channel."""
    shape = c.with_rank(c.input(0), 4)
    depth = c.dim(shape, 3)
    for i in range(1, 5):
        vec = c.with_rank(c.input(i * 3), 1)
        depth = c.merge_dim(depth, c.dim(vec, 0))
    c.set_output(0, c.replace_dim(shape, 3, depth))
    c.set_output(1, c.scalar())
    c.set_output(2, c.scalar())


BY_OP: dict[str, ShapeFn] = {
    "QuantizedBatchNormWithGlobalNormalization": _quantized_batch_norm,
    "QuantizedReshape": _quantized_reshape,
    "QuantizedConcat": _quantized_concat,
    "QuantizeAndDequantizeV4Grad": _quantize_and_dequantize_v4_grad,
    "QuantizedInstanceNorm": _quantized_instance_norm,
    "Dequantize": _dequantize,
    "FakeQuantWithMinMaxVars": _fake_quant_vars,
    "FakeQuantWithMinMaxVarsGradient": _fake_quant_vars_gradient,
    "FakeQuantWithMinMaxVarsPerChannel": _fake_quant_per_channel,
    "FakeQuantWithMinMaxVarsPerChannelGradient": _fake_quant_per_channel_gradient,
    "QuantizeAndDequantizeV2": _quantize_and_dequantize,
    "QuantizeAndDequantizeV3": _quantize_and_dequantize,
    "QuantizeAndDequantizeV4": _quantize_and_dequantize,
    "QuantizeV2": _quantize_v2,
    **{
        name: _fused(conv2d_shape)
        for name in (
            "QuantizedConv2DAndRelu",
            "QuantizedConv2DAndReluAndRequantize",
            "QuantizedConv2DAndRequantize",
            "QuantizedConv2DPerChannel",
            "QuantizedConv2DWithBias",
            "QuantizedConv2DWithBiasAndRelu",
            "QuantizedConv2DWithBiasAndReluAndRequantize",
            "QuantizedConv2DWithBiasAndRequantize",
            "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize",
            "QuantizedConv2DWithBiasSumAndRelu",
            "QuantizedConv2DWithBiasSumAndReluAndRequantize",
        )
    },
    **dict.fromkeys(
        (
            "QuantizedDepthwiseConv2D",
            "QuantizedDepthwiseConv2DWithBias",
            "QuantizedDepthwiseConv2DWithBiasAndRelu",
            "QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize",
        ),
        _depthwise,
    ),
    **{
        name: _fused(mat_mul_shape)
        for name in (
            "QuantizedMatMulWithBias",
            "QuantizedMatMulWithBiasAndDequantize",
            "QuantizedMatMulWithBiasAndRelu",
            "QuantizedMatMulWithBiasAndReluAndRequantize",
            "QuantizedMatMulWithBiasAndRequantize",
        )
    },
}
