"""Shape inference: opgen's built-in shape functions give TF's static shapes.

Each case builds Placeholders of given (partial) shapes and optional Const inputs, then
one op, on both sides; the output shapes (TensorShape, incl. unknown dims/rank) must be
equal, and where TF's shape function rejects the inputs ours must raise ValueError too.
"""

from __future__ import annotations

import itertools

import pytest

pytestmark = pytest.mark.oracle

U = "unknown"  # unknown rank

SHAPE_FNS = {
    "Abs": "UnchangedShape",
    "Neg": "UnchangedShape",
    "Relu": "UnchangedShape",
    "Tanh": "UnchangedShape",
    "Identity": "UnchangedShape",
    "Sqrt": "UnchangedShape",
    "AddV2": "BroadcastBinaryOpShapeFn",
    "Mul": "BroadcastBinaryOpShapeFn",
    "Maximum": "BroadcastBinaryOpShapeFn",
    "Sub": "BroadcastBinaryOpShapeFn",
    "Less": "BroadcastBinaryOpShapeFn",
    "MatMul": "MatMulShape",
    "Sum": "ReductionShape",
    "Max": "ReductionShape",
    "Mean": "ReductionShape",
    "ConcatV2": "ConcatV2Shape",
    "Concat": "ConcatShape",
    "NoOp": "NoOutputs",
    "Conv2D": "shape_inference::Conv2DShapeWithExplicitPadding",
    "DepthwiseConv2dNative": "shape_inference::DepthwiseConv2DNativeShapeWithExplicitPadding",
    "MaxPool": "shape_inference::MaxPoolShapeWithExplicitPadding",
    "BiasAdd": "shape_inference::BiasAddShape",
    "VariableV2": "shape_inference::ExplicitShape",
    "AssignAdd": "shape_inference::MergeBothInputsShapeFn",
}

SHAPES = [
    U,
    [],
    [3],
    [None],
    [2, 3],
    [None, 3],
    [2, None],
    [1, 3],
    [2, 1],
    [4, 2, 3],
    [None, None],
]


@pytest.fixture(scope="module")
def env(tf):
    from oracle.tf_registry import tf_op_list_bytes

    from opgen_runtime import register_shape_fn
    from opgen_runtime.ops import registry
    from opgen_runtime.shapes import fns as shape_fns

    registry.register_op_list(
        "tensorflow_registry_shapes", tf_op_list_bytes(), SHAPE_FNS
    )
    # The first module to register an op decides its declared shape function, and other
    # test modules in this process may have registered the same TF ops first (with other or
    # no names). Pin the functions under test, as a user would with register_shape_fn.
    for op_type, fn_name in SHAPE_FNS.items():
        register_shape_fn(op_type, fn_name.rsplit("::", 1)[-1])
    for op_type, fn in shape_fns.BY_OP.items():
        if op_type not in SHAPE_FNS:
            register_shape_fn(op_type, fn)
    return tf


def _build(is_tf, op, inputs, attrs):
    """inputs: list of ("ph", shape) | ("const", value, dtype) | ("list", [...]); returns shapes or error type."""
    if is_tf:
        import tensorflow as tf
        from tensorflow.python.framework import op_def_library as lib

        graph = tf.Graph()
    else:
        from opgen_runtime import Graph
        from opgen_runtime.ops import op_def_library as lib

        graph = Graph()

    def make(spec):
        if spec[0] in ("ph", "iph"):
            shape = None if spec[1] == U else spec[1]
            dtype = "float32" if spec[0] == "ph" else "int32"
            return lib._apply_op_helper("Placeholder", dtype=dtype, shape=shape)[3][0]
        if spec[0] == "const":
            return spec[1]
        return [make(s) for s in spec[1]]

    with graph.as_default():
        kwargs = {name: make(s) for name, s in inputs.items()}
        try:
            outs = lib._apply_op_helper(op, **kwargs, **attrs)[3]
        except ValueError:
            return "ValueError"
    return [None if o.shape.rank is None else tuple(o.shape.as_list()) for o in outs]


def _cases():
    cases = []
    for op in ("Abs", "Neg", "Relu", "Tanh", "Identity", "Sqrt"):
        for s in SHAPES:
            cases.append(
                (
                    op,
                    {{"Identity": "input", "Relu": "features"}.get(op, "x"): ("ph", s)},
                    {},
                )
            )
    for op in ("AddV2", "Mul", "Maximum", "Sub", "Less"):
        for a, b in itertools.product(SHAPES, SHAPES[:8]):
            cases.append((op, {"x": ("ph", a), "y": ("ph", b)}, {}))
    mm = [U, [2, 3], [3, 2], [None, 3], [3, None], [None, None], [3], [2, 3, 4]]
    for a, b in itertools.product(mm, mm):
        for ta, tb in ((False, False), (True, False), (False, True)):
            cases.append(
                (
                    "MatMul",
                    {"a": ("ph", a), "b": ("ph", b)},
                    {
                        "transpose_a": ta,
                        "transpose_b": tb,
                        "grad_a": None,
                        "grad_b": None,
                    },
                )
            )
    for op in ("Sum", "Max", "Mean"):
        for s in (U, [2, 3], [None, 3], [4, 2, 3]):
            for axes in ([0], [1], [-1], [0, 1], [], 0, [5]):
                for keep in (False, True):
                    cases.append(
                        (
                            op,
                            {"input": ("ph", s), "reduction_indices": ("const", axes)},
                            {"keep_dims": keep},
                        )
                    )
            cases.append(
                (
                    op,
                    {"input": ("ph", s), "reduction_indices": ("iph", [1])},
                    {"keep_dims": True},
                )
            )
            cases.append(
                (
                    op,
                    {"input": ("ph", s), "reduction_indices": ("iph", [1])},
                    {"keep_dims": False},
                )
            )
    concat_inputs = [
        [[2, 3], [4, 3]],
        [[2, 3], [None, 3]],
        [[2, 3], U],
        [U, U],
        [[2, 3], [2, 4]],
        [[2, 3], [2, 3, 1]],
        [[2, None], [None, 5], [1, 5]],
        [[], []],
    ]
    for values in concat_inputs:
        for axis in (0, 1, -1, -2, ("iph", [])):
            axis_spec = axis if isinstance(axis, tuple) else ("const", axis)
            cases.append(
                (
                    "ConcatV2",
                    {
                        "values": ("list", [("ph", s) for s in values]),
                        "axis": axis_spec,
                    },
                    {},
                )
            )
            cases.append(
                (
                    "Concat",
                    {
                        "concat_dim": axis_spec,
                        "values": ("list", [("ph", s) for s in values]),
                    },
                    {},
                )
            )
    for values in (
        [[2, 3], [2, 3]],
        [[2, 3], [None, 3]],
        [U, [2, 3]],
        [[2, 3], [3, 3]],
        [U, U],
        [[2], [2], [None]],
        [[0, 3], [0, 3], [0, 3]],
        [[2, 3], [2, 3], [2, 4]],
    ):
        cases.append(("AddN", {"inputs": ("list", [("ph", s) for s in values])}, {}))
        for axis in (0, 1, -1, 2):
            cases.append(
                (
                    "Pack",
                    {"values": ("list", [("ph", s) for s in values])},
                    {"axis": axis},
                )
            )
    for s in (U, [4, 6], [None, 6], [4, None], [3, 5]):
        for axis in (0, 1, -1, 2, -3, [0], ("iph", [])):
            for n in (1, 2, 3):
                axis_spec = axis if isinstance(axis, tuple) else ("const", axis)
                cases.append(
                    (
                        "Split",
                        {"split_dim": axis_spec, "value": ("ph", s)},
                        {"num_split": n},
                    )
                )
    for s in (U, [2, 3], [None]):
        cases.append(("Shape", {"input": ("ph", s)}, {"out_type": None}))
    images = [
        U,
        [1, 5, 5, 3],
        [None, 5, None, 3],
        [2, 4, 6, None],
        [1, 5, 5, 4],
        [1, 2, 2, 3],
        [5, 5, 3],
    ]
    filters = [
        U,
        [2, 2, 3, 8],
        [3, 3, None, 2],
        [None, 2, 3, 4],
        [2, 2, 2, 1],
        [6, 6, 3, 1],
    ]
    for image, filt in itertools.product(images, filters):
        for padding, strides, data_format, dilations in (
            ("VALID", [1, 1, 1, 1], "NHWC", [1, 1, 1, 1]),
            ("SAME", [1, 2, 2, 1], "NHWC", [1, 1, 1, 1]),
            ("VALID", [1, 1, 2, 2], "NCHW", [1, 1, 1, 1]),
            ("VALID", [1, 1, 1, 1], "NHWC", [1, 2, 2, 1]),
        ):
            attrs = {
                "strides": strides,
                "padding": padding,
                "data_format": data_format,
                "dilations": dilations,
                "explicit_paddings": None,
            }
            cases.append(
                (
                    "Conv2D",
                    {"input": ("ph", image), "filter": ("ph", filt)},
                    dict(attrs, use_cudnn_on_gpu=None),
                )
            )
            cases.append(
                (
                    "DepthwiseConv2dNative",
                    {"input": ("ph", image), "filter": ("ph", filt)},
                    attrs,
                )
            )
    cases.append(
        (
            "Conv2D",
            {"input": ("ph", [1, 5, 5, 3]), "filter": ("ph", [2, 2, 3, 8])},
            {
                "strides": [1, 1, 1, 1],
                "padding": "EXPLICIT",
                "explicit_paddings": [0, 0, 1, 2, 0, 1, 0, 0],
                "data_format": None,
                "dilations": None,
                "use_cudnn_on_gpu": None,
            },
        )
    )
    for image in images:
        for ksize, strides, padding, data_format in (
            ([1, 2, 2, 1], [1, 2, 2, 1], "VALID", "NHWC"),
            ([1, 3, 3, 1], [1, 1, 1, 1], "SAME", "NHWC"),
            ([1, 1, 2, 2], [1, 1, 2, 2], "VALID", "NCHW"),
            ([1, 6, 6, 1], [1, 1, 1, 1], "VALID", "NHWC"),
        ):
            cases.append(
                (
                    "MaxPool",
                    {"input": ("ph", image)},
                    {
                        "ksize": ksize,
                        "strides": strides,
                        "padding": padding,
                        "data_format": data_format,
                        "explicit_paddings": None,
                    },
                )
            )
    for value in (U, [2, 3], [4, 2, 3], [2, 3, 4, 5], [2], [None, None, 3]):
        for bias in (U, [3], [None], [4], [2, 2]):
            for data_format in ("NHWC", "NCHW"):
                cases.append(
                    (
                        "BiasAdd",
                        {"value": ("ph", value), "bias": ("ph", bias)},
                        {"data_format": data_format},
                    )
                )
    for shape in (None, [2, 3], [None, 4]):
        cases.append(
            (
                "VariableV2",
                {},
                {
                    "shape": shape,
                    "dtype": "float32",
                    "container": None,
                    "shared_name": None,
                },
            )
        )
    return cases


def test_static_shapes_equal_tensorflow(env):
    failures = []
    cases = _cases()
    for op, inputs, attrs in cases:
        theirs = _build(True, op, inputs, attrs)
        ours = _build(False, op, inputs, attrs)
        if ours != theirs:
            failures.append(f"{op} {inputs} {attrs}: ours {ours} TF {theirs}")
    print(f"{len(cases)} shape cases")
    assert not failures, "\n".join(failures[:30]) + f"\n({len(failures)} failures)"
    assert len(cases) >= 200


def test_unknown_shape_function_gives_unknown_shapes(env):
    from opgen_runtime import Graph
    from opgen_runtime.ops import op_def_library as lib

    with Graph().as_default():
        x = lib._apply_op_helper("Placeholder", dtype="float32", shape=[2, 3])[3][0]
        # Bitcast's shape function has no port (yet)
        (y,) = lib._apply_op_helper("Bitcast", input=x, type="int32")[3]
    assert x.shape.as_list() == [2, 3]
    assert y.shape.rank is None


def test_user_registered_shape_fn(env):
    from opgen_runtime import Graph, register_shape_fn
    from opgen_runtime.ops import op_def_library as lib

    def softsign_shape(c):
        c.set_output(0, c.make_shape([c.dim(c.input(0), 0), 7]))

    register_shape_fn("Softsign", softsign_shape)
    with Graph().as_default():
        x = lib._apply_op_helper("Placeholder", dtype="float32", shape=[2, 3])[3][0]
        (y,) = lib._apply_op_helper("Softsign", features=x)[3]
    assert y.shape.as_list() == [2, 7]
    register_shape_fn("Softsign", "UnchangedShape")
    with Graph().as_default():
        x = lib._apply_op_helper("Placeholder", dtype="float32", shape=[2, 3])[3][0]
        (y,) = lib._apply_op_helper("Softsign", features=x)[3]
    assert y.shape.as_list() == [2, 3]


def test_shape_function_reading_an_input_the_op_lacks_is_a_clear_error(env):
    """A shape function written for another signature (here one reading two inputs, as TF's
    Fill's does, for an op declared with one) is a ValueError naming the op, never an
    IndexError from inside the runtime."""
    from opgen_runtime import Graph, register_shape_fn
    from opgen_runtime.ops import op_def_library as lib

    def two_input_shape(c):
        c.set_output(0, c.input(1))

    register_shape_fn("Softsign", two_input_shape)
    try:
        with Graph().as_default():
            x = lib._apply_op_helper("Placeholder", dtype="float32", shape=[2])[3][0]
            with pytest.raises(ValueError, match=r"shape function of 'Softsign' reads input 1, but the op has 1 input"):
                lib._apply_op_helper("Softsign", features=x)
            # an output index out of range (TF's `outputs_.at()` throws there and aborts the process)
            register_shape_fn("Softsign", lambda c: c.set_output(1, c.input(0)))
            with pytest.raises(ValueError, match=r"shape function of 'Softsign' sets output 1, but the op has 1 "
                                                 r"output\(s\): .* or fix the index"):
                lib._apply_op_helper("Softsign", features=x)
    finally:
        register_shape_fn("Softsign", "UnchangedShape")
