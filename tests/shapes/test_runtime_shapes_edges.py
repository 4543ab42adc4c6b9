"""Edge cases of the ported shape functions, TF 2.21 graph mode as the oracle.

Size-0 dimensions, dimension overflow, bad window attrs and TF's exact error texts: each
case is generated (a product of shapes and attrs), built on both sides by
`oracle.shape_differential.build`, and the outcome (output shapes, or the exception type
and its whole message) must be equal. No expectation is written by hand.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

pytestmark = pytest.mark.oracle

F32, I32 = 1, 3


def _ph(shape: Any, dtype: int = F32) -> tuple[Any, ...]:
    return ("ph", "unknown" if shape is None else shape, dtype)


def _compare(differential, cases: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
    failures = []
    for op, inputs, attrs in cases:
        theirs = differential.build(True, op, inputs, attrs)
        ours = differential.build(False, op, inputs, attrs)
        if ours != theirs:
            failures.append(f"{op} {inputs} {attrs}:\n  ours {ours}\n  TF   {theirs}")
    print(f"{len(cases)} cases")
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} failures)"


# shapes with size-0, size-1, unknown and other dimensions, and unknown rank
ZERO_SHAPES: list[Any] = [
    None, [], [0], [1], [5], [None], [2, 3], [0, 3], [None, 3], [3, 2], [1, 0],
    [0, 1], [None, 0], [0, None], [2, 0, 3],
]


def test_broadcasting_with_size_zero_dims(differential):
    """BroadcastBinaryOpOutputShapeFnHelper: 0 broadcasts only against 1."""
    cases = [
        (op, {"x": _ph(a), "y": _ph(b)}, {})
        for op in ("AddV2", "Maximum")
        for a, b in itertools.product(ZERO_SHAPES, ZERO_SHAPES)
    ]
    cases += [
        ("BroadcastArgs", {"s0": ("const", a), "s1": ("const", b)}, {})
        for a, b in itertools.product([[0], [1], [5], [2, 3], [0, 3], [3, 0]], repeat=2)
    ]
    _compare(differential, cases)


def test_reshape_with_zero_element_tensors(differential):
    """SetOutputShapeForReshape: a 0 in a shape makes its element count known (0), so a
    -1 beside it is not inferred."""
    shapes = [None, [2, 3], [6], [0], [None, 0], [0, None], [None, 3], [None, None], [0, 3], [3, 0, 2]]
    targets = [
        [-1, 0], [0, -1], [2, -1, 0], [-1], [-1, 3], [3, -1], [0], [0, 3], [-1, -1], [6],
        [2, 3], [0, 0], [-1, 2], [], [1, -1],
    ]
    cases = [
        ("Reshape", {"tensor": _ph(s), "shape": ("const", t)}, {})
        for s, t in itertools.product(shapes, targets)
    ]
    _compare(differential, cases)


CONV_SHAPES = [
    ([1, 8, 8, 3], [3, 3, 3, 4]),
    ([1, 8, 8, 0], [3, 3, 0, 4]),
    ([1, 8, 8, 6], [3, 3, 0, 4]),
    ([1, 8, 8, None], [3, 3, 0, 4]),
    ([1, 8, 8, 0], [3, 3, 3, 4]),
    ([1, 8, 8, 4], [3, 3, 2, 0]),
    ([1, 0, 8, 3], [3, 3, 3, 4]),
    ([1, 8, 8, 3], [0, 3, 3, 4]),
    ([2, 3, 8, 8], [3, 3, 3, 4]),
    ([1, 8, 8, 0], [3, 3, 3, None]),
    ([None, None, None, None], [0, 0, 0, 0]),
    ([1, 8, 8, 3], [None, 3, 3, 4]),
]
# (padding, explicit_paddings): None takes the attr's default (empty)
PADDINGS = [
    ("SAME", None),
    ("VALID", None),
    ("EXPLICIT", None),
    ("EXPLICIT", [0, 0, 1, 1]),
    ("EXPLICIT", [0, 0, 1, 1, 1, 1, 0, 0]),
    ("EXPLICIT", [0, 0, 0, 0, 1, 1, 1, 1]),
    ("EXPLICIT", [1, 0, 1, 1, 1, 1, 0, 0]),
    ("EXPLICIT", [0, 0, -1, 1, 1, 1, 0, 0]),
    ("SAME", [0, 0, 1, 1, 1, 1, 0, 0]),
    ("VALID", [0, 0, 0, 0, 0, 0, 0, 0]),
]
STRIDES = [[1, 1, 1, 1], [1, 1, 1], [1, 2, 2, 1], [1, 1, 1, 1, 1], [1, 0, 1, 1], [2, 1, 1, 1]]
DILATIONS = [None, [1, 1, 1], [1, 2, 2, 1], [2, 1, 1, 1], [1, 1, 1, 0]]


def test_conv2d_family_attrs_and_zero_depths(differential):
    """Conv2DShapeImpl / DepthwiseConv2DNativeShapeImpl: zero depths, explicit_paddings
    checks (CheckValidPadding), stride and dilation counts, each op's own name."""
    cases = []
    for op in ("Conv2D", "DepthwiseConv2dNative"):
        extra = {"use_cudnn_on_gpu": None} if op == "Conv2D" else {}
        for (image, filt), data_format in itertools.product(CONV_SHAPES, ("NHWC", "NCHW")):
            base = {"strides": [1, 1, 1, 1], "padding": "SAME", "data_format": data_format,
                    "dilations": None, "explicit_paddings": None, **extra}
            inputs = {"input": _ph(image), "filter": _ph(filt)}
            for padding, explicit in PADDINGS:
                cases.append((op, inputs, dict(base, padding=padding, explicit_paddings=explicit)))
            for strides in STRIDES:
                cases.append((op, inputs, dict(base, strides=strides)))
            for dilations in DILATIONS:
                cases.append((op, inputs, dict(base, dilations=dilations)))
            cases.append((op, inputs, dict(base, strides=[1, 1, 1], dilations=[1, 1, 1])))
    _compare(differential, cases)


def test_pooling_attrs_and_zero_sizes(differential):
    cases = []
    images = [[1, 8, 8, 3], [1, 8, 8, 0], [1, 0, 8, 3], [None, 8, 8, 3], [2, 3, 8, 8]]
    windows = [[1, 2, 2, 1], [1, 2, 2], [1, 9, 9, 1], [1, 1, 1, 0], [1, 1, 1, 2], [0, 1, 1, 1]]
    for op in ("MaxPool", "AvgPool", "MaxPoolWithArgmax"):
        for image, data_format in itertools.product(images, ("NHWC", "NCHW")):
            if op == "MaxPoolWithArgmax" and data_format == "NCHW":
                continue
            base: dict[str, Any] = {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "SAME"}
            if op != "MaxPoolWithArgmax":
                base["data_format"] = data_format
            else:
                base.update(Targmax=None, include_batch_in_index=None)
            if op == "MaxPool":
                base["explicit_paddings"] = None
            inputs = {"input": _ph(image)}
            for ksize in windows:
                cases.append((op, inputs, dict(base, ksize=ksize)))
            for strides in windows:
                cases.append((op, inputs, dict(base, strides=strides)))
            paddings = PADDINGS if op == "MaxPool" else [("SAME", None), ("VALID", None)]
            for padding, explicit in paddings:
                attrs = dict(base, padding=padding)
                if op == "MaxPool":
                    attrs["explicit_paddings"] = explicit
                cases.append((op, inputs, attrs))
    _compare(differential, cases)


BIG = [2**62, 2**40, 2**32, 2**31 - 1, 2**63 - 1]


def test_dimension_overflow(differential):
    """InferenceContext::Multiply/Add raise on int64 overflow, NumElements wraps as TF's
    int64 product does, and a shape attr must hold at most 2**63 - 1 elements."""
    shapes = [[2**62, 4], [2**62, 2], [2**32, 2**32], [2**62, None, 4], [None, 2**62, 4],
              [2**62, 4, None], [2**62, 4, 0], [2**62, 0, 4], [2, 2**62, 4, 3], [2**63 - 1], [2**62, 1]]
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("Placeholder", {}, {"dtype": F32, "shape": s}) for s in shapes
    ]
    cases += [
        ("VariableV2", {}, {"shape": s, "dtype": F32, "container": None, "shared_name": None})
        for s in shapes
    ]
    cases += [
        ("Tile", {"input": _ph([a]), "multiples": ("const", [b])}, {})
        for a, b in itertools.product([*BIG, 0, 3], [2**40, 2**32, 4, 2, 1, 0])
    ]
    cases += [
        ("Reshape", {"tensor": _ph(s), "shape": ("const", t)}, {})
        for s in ([6], [0], [None], [None, 2])
        for t in ([2**40, 2**30], [2**62, 4], [2**32, 2**32], [2**62, 3], [2**33, 2**31 + 1],
                  [2**62, 3, 0], [2**62, 3, -1], [2**62, 4, -1])
    ]
    cases += [
        ("ConcatV2", {"values": ("list", [_ph([a]), _ph([b])]), "axis": ("const", 0)}, {})
        for a, b in itertools.product(BIG, BIG)
    ]
    cases += [
        ("Pad", {"input": _ph([a]), "paddings": ("const", [[p, 0]])}, {})
        for a, p in itertools.product(BIG, [1, 2**62, 2**63 - 1])
    ]
    _compare(differential, cases)


def test_negative_dims_where_tf_aborts_raise_value_error(differential):
    """MakeDim(-5) and UnknownShapeOfRank(-2) CHECK-fail in TF (the process aborts, so there
    is no TF outcome to compare): the runtime raises a ValueError saying so."""
    from opgen_runtime import Graph, register_shape_fn
    from opgen_runtime.ops import op_def_library as lib

    calls = {
        "MakeDim(-5)": lambda c: c.set_output(0, c.vector(c.make_dim(-5))),
        "UnknownShapeOfRank(-2)": lambda c: c.set_output(0, c.unknown_shape_of_rank(-2)),
    }
    try:
        for what, fn in calls.items():
            register_shape_fn("Softsign", fn)
            with Graph().as_default():
                x = lib._apply_op_helper("Placeholder", dtype="float32", shape=[2])[3][0]
                pattern = f"'Softsign' called {re.escape(what)}: .* TensorFlow aborts the process here"
                with pytest.raises(ValueError, match=pattern):
                    lib._apply_op_helper("Softsign", features=x)
        # a dimension past int64: C++'s arithmetic overflowed computing it (trial15 #8)
        register_shape_fn("Softsign", lambda c: c.set_output(0, c.vector(c.make_dim(2**63))))
        with Graph().as_default():
            x = lib._apply_op_helper("Placeholder", dtype="float32", shape=[2])[3][0]
            with pytest.raises(ValueError, match="'Softsign' made the dimension 9223372036854775808, past int64"):
                lib._apply_op_helper("Softsign", features=x)
    finally:
        register_shape_fn("Softsign", "UnchangedShape")


MIXED_LISTS: list[list[Any]] = [
    [[], [2, 3]], [[2, 3], []], [[2, 3], [3], []], [[3], [2, 3], []], [None, []], [[], None],
    [[], []], [[3], [2, 3]], [[2, 3], [3]], [None, [3], [2, 3]], [[None], []], [[2, 3], [2, 3, 1]],
    [[2, 3], [4, 3], [2, 4]], [[2, 3], [2, 3], [3, 2]], [[0, 3], [2, 3]], [[2**62, 3], [2**62, 3]],
]


def test_pack_and_concat_rank_errors(differential):
    """Pack merges from the last input with TF's "From merging shape i" context;
    ConcatShapeHelper checks every input's rank (and scalars) before the axis is used."""
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for values in MIXED_LISTS:
        listed = ("list", [_ph(s) for s in values])
        for axis in (0, 1, -1, 2, ("ph", [], I32)):
            axis_spec = axis if isinstance(axis, tuple) else ("const", axis)
            cases.append(("ConcatV2", {"values": listed, "axis": axis_spec}, {}))
            cases.append(("Concat", {"concat_dim": axis_spec, "values": listed}, {}))
        for axis in (0, 1, -1, 3):
            cases.append(("Pack", {"values": listed}, {"axis": axis}))
        cases.append(("AddN", {"inputs": listed}, {}))
    _compare(differential, cases)


def test_other_window_ops(differential):
    """The other ports built on the Conv2D and pooling functions: MaxPoolV2 (window as
    input tensors), the quantized conv and pooling ops, MaxPoolGradGrad."""
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    images = [[1, 8, 8, 3], [1, 8, 8, 0], [1, 0, 8, 3], None]
    windows = [[1, 2, 2, 1], [1, 1, 1, 0], [1, 9, 9, 1], [0, 1, 1, 1], [1, 2, 2]]
    for image, padding in itertools.product(images, ("SAME", "VALID")):
        for ksize, strides in itertools.product(windows, windows[:3]):
            cases.append(("MaxPoolV2", {"input": _ph(image), "ksize": ("const", ksize),
                                        "strides": ("const", strides)}, {"padding": padding, "data_format": None}))
            cases.append(("QuantizedMaxPool", {"input": _ph(image, 11), "min_input": ("const", 0.0),
                                               "max_input": ("const", 1.0)},
                          {"ksize": ksize, "strides": strides, "padding": padding}))
        for filt in ([3, 3, 3, 4], [3, 3, 0, 4], [3, 3, 3, 0], [0, 3, 3, 4]):
            for strides in ([1, 1, 1, 1], [1, 1, 1], [1, 2, 2, 1]):
                cases.append(("QuantizedConv2D", {
                    "input": _ph(image, 11), "filter": _ph(filt, 11), "min_input": ("const", 0.0),
                    "max_input": ("const", 1.0), "min_filter": ("const", 0.0), "max_filter": ("const", 1.0),
                }, {"strides": strides, "padding": padding, "out_type": None, "dilations": None}))
    _compare(differential, cases)


FLOATS = [-1234567.0, 1234567.0, 123456.7, 0.1, 1 / 3, 3.14159274, 16777217.0, 1e-5, 1e20, -0.0, 0.0,
          float("inf"), float("-inf"), float("nan"), 1e-45, 2.5e-38, 3.4e38, 100.0, 1e6, 1e7, 0.5]
STRINGS: list[Any] = ['a"b\\c\nd\té', b"\xff\x00z", "", "'", "x" * 79, "x" * 80, "\n" * 39, "\n" * 40,
                      "é" * 20, "abcdefghij" * 9]


def test_node_summary_attr_texts(differential):
    """The `{{node X}} = Op[...]` summary of a shape error: floats (FloatToBuffer), strings
    (CEscape, elided from 80 characters), lists of 30 values or more (elided, attr_hash)."""
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for f in FLOATS:
        cases.append(("ApproximateEqual", {"x": _ph([2]), "y": _ph([3])}, {"tolerance": f}))
    for ratios in ([1.0, 1 / 3, 1.5, 1.0], [1.0, -1234567.0, 1.0, 1.0], FLOATS[:3], FLOATS, FLOATS[:15],
                   [0.5] * 29, [0.5] * 30, [1 / 3] * 31, FLOATS * 2):
        cases.append(("FractionalMaxPool", {"value": _ph([1, 8, 8, 3])},
                      {"pooling_ratio": ratios, "pseudo_random": None, "overlapping": None,
                       "deterministic": None, "seed": None, "seed2": None}))
    for separator in STRINGS:
        cases.append(("ReduceJoin", {"inputs": _ph([2, 3], 7), "reduction_indices": ("const", [5])},
                      {"keep_dims": None, "separator": separator}))
    for n in (1, 14, 15, 29, 30, 31, 40, 100):
        dims = [*range(n - 1), 7] if n > 1 else [7]
        cases.append(("Squeeze", {"input": _ph([1] * 8)}, {"squeeze_dims": [d % 8 for d in dims[:-1]] + [9]}))
        cases.append(("Squeeze", {"input": _ph([1] * 8)}, {"squeeze_dims": [-(d % 8) - 1 for d in dims[:-1]] + [-12]}))
    _compare(differential, cases)


def test_fingerprint64_equals_tensorflow(tf):
    """The attr_hash of long lists is farmhash's Fingerprint64, which tf.fingerprint
    computes too (each row's bytes, little-endian): every length path of farmhashna."""
    import random

    from opgen_runtime.shapes.summary import fingerprint64

    rng = random.Random(7)
    rows = [bytes(rng.randrange(256) for _ in range(n)) for n in [*range(200), 255, 256, 257, 1000]]
    for data in rows:
        t = tf.constant([list(data)], dtype=tf.uint8) if data else tf.zeros([1, 0], tf.uint8)
        theirs = int.from_bytes(bytes(tf.fingerprint(t).numpy()[0]), "little")
        assert fingerprint64(data) == theirs, len(data)
