"""Ports of the shape functions of TF's nn ops (tensorflow/core/ops/nn_ops.cc)."""

from __future__ import annotations

import math

from ..context import InferenceContext, ShapeError
from .common import (
    ShapeFn,
    avg_pool_shape,
    bias_add_shape,
    conv2d_shape,
    depthwise_conv2d_shape,
    max_pool_shape,
    merge_both_inputs_shape,
    scalar_input_dim,
    scalar_shape,
    unchanged_shape,
    unchanged_shape_with_rank,
    unchanged_shape_with_rank_at_least,
)

# Ops registered with shape_inference::UnchangedShape.
UNCHANGED = (
    "DataFormatDimMap",
    "DataFormatVecPermute",
    "Dilation2DBackpropInput",
    "Elu",
    "LeakyRelu",
    "Relu",
    "Relu6",
    "Selu",
    "Softplus",
    "Softsign",
)

# Ops registered with shape_inference::MergeBothInputsShapeFn.
MERGE_BOTH_INPUTS = (
    "EluGrad",
    "LeakyReluGrad",
    "Relu6Grad",
    "ReluGrad",
    "SeluGrad",
    "SoftplusGrad",
    "SoftsignGrad",
)

# Ops registered with shape_inference::ScalarShape.
SCALAR = ("L2Loss",)


def _rank4(c: InferenceContext) -> None:
    unchanged_shape_with_rank(c, 4)


def _softmax(c: InferenceContext) -> None:
    unchanged_shape_with_rank_at_least(c, 1)


def _shape_from_tensor_rank4(index: int) -> ShapeFn:
    """Backprop ops whose output shape is given by a shape tensor input of rank 4."""

    def fn(c: InferenceContext) -> None:
        c.set_output(0, c.with_rank(c.make_shape_from_shape_tensor(index), 4))

    return fn


def _fractional_avg_pool_grad(c: InferenceContext) -> None:
    if c.input_tensor(0) is not None:
        c.set_output(0, c.make_shape_from_shape_tensor(0))
    else:
        c.set_output(0, c.unknown_shape_of_rank(4))


def _conv2d_backprop_input(c: InferenceContext) -> None:
    """TF's Conv2DBackpropInputShape: input_sizes is [n, h, w, c] or just [h, w]."""
    nchw = c.has_attr("data_format") and c.get_attr("data_format") == b"NCHW"
    grad = c.with_rank(c.input(2), 4).known_dims()
    filt = c.with_rank(c.input(1), 4).known_dims()
    if nchw:
        batch, depth = grad[0], grad[1]
    else:
        batch, depth = grad[0], grad[3]
    c.merge_dim(depth, filt[3])
    sizes = c.make_shape_from_shape_tensor(0)
    if sizes.dims is None:
        sizes = c.with_rank(sizes, 4)
    dims = sizes.known_dims()
    if len(dims) == 4:
        c.merge_dim(dims[0], batch)
        rows, cols = (dims[2], dims[3]) if nchw else (dims[1], dims[2])
        in_depth = dims[1] if nchw else dims[3]
    elif len(dims) == 2:
        rows, cols = dims
        in_depth = filt[2]
    else:
        raise ShapeError(
            "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, "
            f"but got: {len(dims)}"
        )
    out = [batch, in_depth, rows, cols] if nchw else [batch, rows, cols, in_depth]
    c.set_output(0, c.make_shape(out))


def _bias_add_grad(c: InferenceContext) -> None:
    if c.has_attr("data_format") and c.get_attr("data_format") == b"NCHW":
        shape = c.with_rank_at_least(c.input(0), 3)
        c.set_output(0, c.vector(c.dim(shape, 1)))
    else:
        shape = c.with_rank_at_least(c.input(0), 2)
        c.set_output(0, c.vector(c.dim(shape, -1)))


def _softmax_xent(c: InferenceContext) -> None:
    try:
        logits = c.merge(c.with_rank(c.input(0), 2), c.input(1))
    except ShapeError:
        from .common import broadcast_shapes

        out = broadcast_shapes(c, c.input(0), c.input(1))
        if out.dims is None:
            raise ShapeError(
                "Shape must be broadcasted with rank 2, but is rank is unknown."
            ) from None
        if len(out.dims) != 2:
            raise ShapeError(
                f"Shape must be broadcasted with rank 2, but is rank {len(out.dims)}"
            ) from None
        c.set_output(0, c.vector(out.dims[0]))
        c.set_output(1, out)
        return
    c.set_output(0, c.vector(c.dim(logits, 0)))
    c.set_output(1, logits)


def _sparse_softmax_xent(c: InferenceContext) -> None:
    features = c.with_rank(c.input(0), 2)
    labels = c.with_rank(c.input(1), 1)
    batch = c.merge_dim(c.dim(features, 0), c.dim(labels, 0))
    c.set_output(0, c.vector(batch))
    c.set_output(1, c.replace_dim(features, 0, batch))


def _in_top_k(c: InferenceContext) -> None:
    predictions = c.with_rank(c.input(0), 2)
    targets = c.with_rank(c.input(1), 1)
    batch = c.merge_dim(c.dim(predictions, 0), c.dim(targets, 0))
    c.set_output(0, c.vector(batch))


def _top_k(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 1)
    if c.num_inputs >= 2:
        k = scalar_input_dim(c, 1)
    else:
        k = c.get_attr("k")
        if k < 0:
            raise ShapeError(f"Need k >= 0, got {k}")
    last = c.dim(shape, -1)
    if last is not None and k is not None and last < k:
        raise ShapeError(f"input must have last dimension >= k = {k} but is {last}")
    out = c.concatenate(c.subshape(shape, 0, -1), c.vector(k))
    c.set_output(0, out)
    c.set_output(1, out)


def _nth_element(c: InferenceContext) -> None:
    shape = c.with_rank_at_least(c.input(0), 1)
    n = scalar_input_dim(c, 1)
    last = c.dim(shape, -1)
    if last is not None and n is not None and last <= n:
        raise ShapeError(f"Input must have last dimension > n = {n}")
    c.set_output(0, c.subshape(shape, 0, -1))


def _feature_dim(data_format: bytes, rank: int) -> int:
    return 1 if data_format.startswith(b"NC") else rank - 1


def _batch_norm_rank(c: InferenceContext) -> int:
    return 5 if c.get_attr("data_format") in (b"NDHWC", b"NCDHW") else 4


def _fused_batch_norm(c: InferenceContext) -> None:
    rank = _batch_norm_rank(c)
    x = c.with_rank(c.input(0), rank)
    training = c.get_attr("is_training")
    factor = (
        c.get_attr("exponential_avg_factor")
        if c.has_attr("exponential_avg_factor")
        else 1.0
    )
    inputs = 3 if training and factor == 1.0 else 5
    index = _feature_dim(c.get_attr("data_format"), rank)
    channel = c.dim(x, index)
    for i in range(1, inputs):
        vec = c.with_rank(c.input(i), 1)
        channel = c.merge_dim(channel, c.dim(vec, 0))
    c.set_output(0, c.replace_dim(x, index, channel))
    for i in range(1, 5):
        c.set_output(i, c.vector(channel))
    if c.num_outputs > 5:
        c.set_output(5, c.unknown_shape())


def _fused_batch_norm_grad(c: InferenceContext) -> None:
    rank = _batch_norm_rank(c)
    y_backprop = c.with_rank(c.input(0), rank)
    x = c.with_rank(c.input(1), rank)
    index = _feature_dim(c.get_attr("data_format"), rank)
    channel = c.merge_dim(c.dim(y_backprop, index), c.dim(x, index))
    for i in range(2, 5):
        vec = c.with_rank(c.input(i), 1)
        channel = c.merge_dim(channel, c.dim(vec, 0))
    c.set_output(0, c.replace_dim(y_backprop, index, channel))
    c.set_output(1, c.vector(channel))
    c.set_output(2, c.vector(channel))
    c.set_output(3, c.vector(0))
    c.set_output(4, c.vector(0))


def _input_rank4(index: int) -> ShapeFn:
    def fn(c: InferenceContext) -> None:
        c.set_output(0, c.with_rank(c.input(index), 4))

    return fn


def _max_pool_grad_grad(c: InferenceContext) -> None:
    max_pool_shape(c)
    c.merge(c.input(0), c.input(2))
    c.merge(c.input(1), c.output(0))


def _max_pool_grad_grad_with_argmax(c: InferenceContext) -> None:
    max_pool_shape(c)
    c.merge(c.input(0), c.input(1))
    c.merge(c.input(2), c.output(0))


def _max_pool_with_argmax(c: InferenceContext) -> None:
    """MaxPoolWithArgmax's shape function (tensorflow/core/ops/nn_ops.cc): in TF 2.21 each
    ksize value must be positive before MaxPoolShape runs (the sources opgen could read
    predate the check; its order and text are the oracle's, tests/shapes/
    test_runtime_shapes_edges.py)."""
    for k in c.get_attr("ksize"):
        if k <= 0:
            raise ShapeError(f"ksize must be a positive int32 value, got:{k}")
    max_pool_shape(c)
    c.set_output(1, c.output(0))


def _isotonic_regression(c: InferenceContext) -> None:
    c.set_output(0, c.input(0))
    c.set_output(1, c.input(0))


def _fractional_pool(c: InferenceContext) -> None:
    shape = c.with_rank(c.input(0), 4)
    ratio = c.get_attr("pooling_ratio")
    if len(ratio) != 4:
        raise ShapeError("pooling_ratio field must specify 4 dimensions")
    dims: list[int | None] = []
    for i, d in enumerate(shape.known_dims()):
        if d is None:
            dims.append(None)
            continue
        size = math.floor(d / ratio[i])
        if size < 0:
            raise ShapeError(f"Size computed for dim {i} is negative: {size}")
        dims.append(size)
    for r in ratio:
        if r < 1:
            raise ShapeError(f"pooling_ratio cannot be smaller than 1, got: {r:g}")
    c.set_output(0, c.make_shape(dims))
    c.set_output(1, c.vector(dims[1]))
    c.set_output(2, c.vector(dims[2]))


def _max_pool_v2(c: InferenceContext) -> None:
    """TF's MaxPoolV2Shape: ksize and strides as 4-element input tensors."""
    c.with_rank(c.input(0), 4)
    last = c.num_inputs - 1  # ksize and strides are the last two inputs
    for i in (last - 1, last):
        size = c.with_rank(c.input(i), 1)
        c.with_value(c.dim(size, 0), 4)
    ksize, strides = c.input_tensor(last - 1), c.input_tensor(last)
    if ksize is None or strides is None:
        c.set_output(0, c.unknown_shape())
        return
    from .common import pool_shape

    pool_shape(c, "MaxPool", True, list(ksize[0]), list(strides[0]))


def _max_pool_grad_grad_v2(c: InferenceContext) -> None:
    _max_pool_v2(c)
    c.merge(c.input(0), c.input(2))
    c.merge(c.input(1), c.output(0))


def _lrn_grad(c: InferenceContext) -> None:
    s = c.with_rank(c.input(0), 4)
    s = c.merge(s, c.input(1))
    s = c.merge(s, c.input(2))
    c.set_output(0, s)


def _quantized(
    main: ShapeFn | None, scalars: range, rank_at_most_1: range = range(0)
) -> ShapeFn:
    """Quantized ops: the float op's function, scalar min/max inputs, scalar min/max outputs."""

    def fn(c: InferenceContext) -> None:
        if main is not None:
            main(c)
        for i in scalars:
            c.with_rank(c.input(i), 0)
        channel = c.scalar()
        for i in rank_at_most_1:
            channel = c.with_rank_at_most(c.input(i), 1)
        for i in range(1, c.num_outputs):
            c.set_output(i, channel if rank_at_most_1 else c.scalar())

    return fn


BY_OP: dict[str, ShapeFn] = {
    **dict.fromkeys(UNCHANGED, unchanged_shape),
    **dict.fromkeys(MERGE_BOTH_INPUTS, merge_both_inputs_shape),
    **dict.fromkeys(SCALAR, scalar_shape),
    "AvgPool": avg_pool_shape,
    "AvgPoolGrad": _shape_from_tensor_rank4(0),
    "BiasAdd": bias_add_shape,
    "BiasAddV1": bias_add_shape,
    "BiasAddGrad": _bias_add_grad,
    "Conv2D": conv2d_shape,
    "Conv2DBackpropFilter": _shape_from_tensor_rank4(1),
    "Conv2DBackpropInput": _conv2d_backprop_input,
    "DepthwiseConv2dNative": depthwise_conv2d_shape,
    "DepthwiseConv2dNativeBackpropFilter": _shape_from_tensor_rank4(1),
    "DepthwiseConv2dNativeBackpropInput": _shape_from_tensor_rank4(0),
    "FractionalAvgPoolGrad": _fractional_avg_pool_grad,
    "FractionalMaxPoolGrad": _rank4,
    "FusedBatchNorm": _fused_batch_norm,
    "FusedBatchNormV2": _fused_batch_norm,
    "FusedBatchNormV3": _fused_batch_norm,
    "FusedBatchNormGrad": _fused_batch_norm_grad,
    "FusedBatchNormGradV2": _fused_batch_norm_grad,
    "FusedBatchNormGradV3": _fused_batch_norm_grad,
    "InTopK": _in_top_k,
    "InTopKV2": _in_top_k,
    "FractionalAvgPool": _fractional_pool,
    "FractionalMaxPool": _fractional_pool,
    "IsotonicRegression": _isotonic_regression,
    "MaxPoolV2": _max_pool_v2,
    "MaxPoolGradGradV2": _max_pool_grad_grad_v2,
    "LRN": _rank4,
    "LRNGrad": _lrn_grad,
    "LogSoftmax": _softmax,
    "MaxPool": max_pool_shape,
    "MaxPoolGrad": _rank4,
    "MaxPoolGradGrad": _max_pool_grad_grad,
    "MaxPoolGradGradWithArgmax": _max_pool_grad_grad_with_argmax,
    "MaxPoolGradWithArgmax": _rank4,
    "MaxPoolWithArgmax": _max_pool_with_argmax,
    "Conv2DBackpropFilterV2": _input_rank4(1),
    "Conv2DBackpropInputV2": _input_rank4(0),
    "MaxPoolGradV2": _rank4,
    "NthElement": _nth_element,
    "QuantizedAvgPool": _quantized(avg_pool_shape, range(1, 3)),
    "QuantizedBiasAdd": _quantized(bias_add_shape, range(2, 6)),
    "QuantizedConv2D": _quantized(conv2d_shape, range(2, 6)),
    "QuantizedMaxPool": _quantized(max_pool_shape, range(1, 3)),
    "QuantizedRelu": _quantized(unchanged_shape, range(1, 3)),
    "QuantizedRelu6": _quantized(unchanged_shape, range(1, 3)),
    "QuantizedReluX": _quantized(unchanged_shape, range(1, 4)),
    "Softmax": _softmax,
    "SoftmaxCrossEntropyWithLogits": _softmax_xent,
    "SparseSoftmaxCrossEntropyWithLogits": _sparse_softmax_xent,
    "TopK": _top_k,
    "TopKV2": _top_k,
}
