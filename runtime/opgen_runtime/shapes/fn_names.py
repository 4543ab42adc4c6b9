"""The common shape functions TF registers by name (`SetShapeFn(shape_inference::X)`, from
tensorflow/core/framework/common_shape_fns.h) that the runtime ports, each with the name of
its port in `fns.common`.

A leaf module that imports nothing: the runtime builds `fns.common.NAMED` from it and
the generator (opgen/spec/shape_fn_names.py) warns about `SetShapeFn` names missing from it,
so both read one table.
"""

from __future__ import annotations

# TF's name -> the function in shape_fns/common.py that ports it
PORTS: dict[str, str] = {
    "UnchangedShape": "unchanged_shape",
    "ScalarShape": "scalar_shape",
    "NoOutputs": "no_outputs",
    "UnknownShape": "unknown_shape",
    "MatMulShape": "mat_mul_shape",
    "BroadcastBinaryOpShapeFn": "broadcast_binary_op_shape",
    "BroadcastBinaryOpOutputShapeFn": "broadcast_binary_op_shape",
    "ReductionShape": "reduction_shape",
    "ConcatV2Shape": "concat_v2_shape",
    "ConcatShape": "concat_shape",
    "MergeBothInputsShapeFn": "merge_both_inputs_shape",
    "ExplicitShape": "explicit_shape",
    "BiasAddShape": "bias_add_shape",
    "Conv2DShape": "conv2d_shape",
    "Conv2DShapeWithExplicitPadding": "conv2d_shape",
    "DepthwiseConv2DNativeShape": "depthwise_conv2d_shape",
    "DepthwiseConv2DNativeShapeWithExplicitPadding": "depthwise_conv2d_shape",
    "MaxPoolShape": "max_pool_shape",
    "MaxPoolShapeWithExplicitPadding": "max_pool_shape",
    "AvgPoolShape": "avg_pool_shape",
}
