"""One call of each example-library op (op_specs/) the runtime end-to-end test builds, and
`complete` (the attrs a generated wrapper passes as None); a subprocess of that test imports
them with tests/ on sys.path."""

from __future__ import annotations

IMG = [[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]
KERNEL = [[[[1.0]], [[0.5]]], [[[-1.0]], [[2.0]]]]
# op -> keyword arguments (inputs as Python values, dtypes as names); unspecified defaulted attrs get None.
CALLS: dict[str, dict] = {
    "Abs": {"x": [-1.5, 2.0]},
    "Add": {"x": [1, 2], "y": [3, 4]},
    "AddN": {"inputs": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]},
    "AddV2": {"x": [[1.0, 2.0]], "y": [0.5]},
    "ArgMax": {"input": [[1.0, 5.0, 2.0]], "dimension": 1},
    "BiasAdd": {"value": [[1.0, 2.0]], "bias": [0.5, -0.5]},
    "Cast": {"x": [1.7, -2.2], "DstT": "int32"},
    "ConcatV2": {"values": [[[1, 2]], [[3, 4]]], "axis": 0},
    "Conv2D": {
        "input": IMG,
        "filter": KERNEL,
        "strides": [1, 1, 1, 1],
        "padding": "VALID",
    },
    "DepthwiseConv2dNative": {
        "input": IMG,
        "filter": KERNEL,
        "strides": [1, 1, 1, 1],
        "padding": "SAME",
    },
    "Equal": {"x": [1, 2], "y": [1, 3]},
    "ExpandDims": {"input": [1, 2], "dim": 0},
    "Fill": {"dims": [2, 3], "value": 1.5},
    "Identity": {"input": [1, 2]},
    "IdentityN": {"input": [[1], [2.0]]},
    "MatMul": {"a": [[1.0, 2.0]], "b": [[3.0], [4.0]]},
    "Max": {"input": [[1.0, 5.0], [3.0, 2.0]], "reduction_indices": [1]},
    "MaxPool": {
        "input": IMG,
        "ksize": [1, 2, 2, 1],
        "strides": [1, 1, 1, 1],
        "padding": "VALID",
    },
    "Maximum": {"x": [1.0, 5.0], "y": [3.0, 2.0]},
    "Mean": {
        "input": [[1.0, 5.0], [3.0, 2.0]],
        "reduction_indices": 0,
        "keep_dims": True,
    },
    "MirrorPad": {
        "input": [[1, 2], [3, 4]],
        "paddings": [[1, 1], [1, 1]],
        "mode": "REFLECT",
    },
    "Mul": {"x": [2, 3], "y": 4},
    "Neg": {"x": [1.0, -2.0]},
    "Pack": {"values": [[1, 2], [3, 4]], "axis": 1},
    "Range": {"start": 0, "limit": 5, "delta": 2},
    "RealDiv": {"x": [1.0, 3.0], "y": [2.0, 4.0]},
    "Relu": {"features": [-1.0, 2.0]},
    "Reshape": {"tensor": [1, 2, 3, 4], "shape": [2, 2]},
    "Select": {"condition": [True, False], "t": [1, 2], "e": [3, 4]},
    "Shape": {"input": [[1, 2, 3]]},
    "Softmax": {"logits": [[1.0, 2.0, 3.0]]},
    "Split": {"split_dim": 0, "value": [1, 2, 3, 4], "num_split": 2},
    "SplitV": {
        "value": [1, 2, 3, 4, 5],
        "size_splits": [2, 3],
        "split_dim": 0,
        "num_split": 2,
    },
    "Sqrt": {"x": [4.0, 9.0]},
    "Square": {"x": [3, 4]},
    "Squeeze": {"input": [[1, 2]], "squeeze_dims": [0]},
    "Sub": {"x": [5, 6], "y": [1, 2]},
    "Sum": {"input": [[1, 2], [3, 4]], "reduction_indices": [0, 1]},
    "Tile": {"input": [[1, 2]], "multiples": [2, 1]},
    "Transpose": {"x": [[1, 2, 3]], "perm": [1, 0]},
    "Unique": {"x": [1, 1, 2, 5, 2]},
    "ZerosLike": {"x": [1.0, 2.0]},
}


def complete(op_def, kwargs: dict) -> dict:
    """kwargs plus None for every defaulted, non-inferred attr not given (as generated wrappers pass)."""
    inferred = {
        x
        for a in op_def.input_arg
        for x in (a.type_attr, a.number_attr, a.type_list_attr)
        if x
    }
    result = dict(kwargs)
    for attr in op_def.attr:
        if (
            attr.name not in inferred
            and attr.name not in result
            and attr.type != "type"
            and attr.HasField("default_value")
        ):
            result[attr.name] = None
    return result
