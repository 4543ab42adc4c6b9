"""Unit tests of the embedded runtime's building blocks (no TensorFlow needed), plus
oracle checks of dtypes/TensorShape/device/name rules against TF."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support.paths import REPO

from opgen_runtime import Graph, TensorShape
from opgen_runtime.graph.devices import canonical_device
from opgen_runtime.ops import execute as _execute
from opgen_runtime.ops import op_def_library as lib
from opgen_runtime.ops import registry
from opgen_runtime.proto import op_def_pb2
from opgen_runtime.values import dtypes
from opgen_runtime.values.constant_op import make_tensor_proto


def _op(text: str) -> op_def_pb2.OpDef:
    from google.protobuf import text_format

    return text_format.Parse(text, op_def_pb2.OpDef())


TEST_OPS = [
    _op(
        'name: "RtPlaceholder" output_arg { name: "output" type_attr: "dtype" } '
        'attr { name: "dtype" type: "type" } '
        'attr { name: "shape" type: "shape" default_value { shape { unknown_rank: true } } }'
    ),
    _op(
        'name: "RtAdd" input_arg { name: "x" type_attr: "T" } input_arg { name: "y" type_attr: "T" } '
        'output_arg { name: "z" type_attr: "T" } '
        'attr { name: "T" type: "type" allowed_values { list { type: DT_FLOAT type: DT_INT32 } } }'
    ),
    _op(
        'name: "RtAddN" input_arg { name: "inputs" type_attr: "T" number_attr: "N" } '
        'output_arg { name: "sum" type_attr: "T" } '
        'attr { name: "N" type: "int" has_minimum: true minimum: 1 } attr { name: "T" type: "type" }'
    ),
    _op(
        'name: "RtCall" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" } '
        'attr { name: "T" type: "type" } attr { name: "f" type: "func" }'
    ),
    _op(
        'name: "RtAttrs" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" } '
        'attr { name: "T" type: "type" } attr { name: "k" type: "int" default_value { i: 1 } } '
        'attr { name: "flag" type: "bool" default_value { b: false } }'
    ),
    _op('name: "RtOld" output_arg { name: "y" type: DT_FLOAT } deprecation { version: 7 explanation: "Use RtNew" }'),
]


@pytest.fixture(scope="module", autouse=True)
def _registered():
    registry.register_op_list(
        "tests.runtime_core",
        op_def_pb2.OpList(op=TEST_OPS).SerializeToString(),
        {"RtAdd": "BroadcastBinaryOpShapeFn", "RtAddN": None},
    )


def test_import_pulls_in_neither_tensorflow_nor_numpy():
    code = (
        "import sys, opgen_runtime, opgen_runtime.ops.op_def_library, opgen_runtime.ops.execute, opgen_runtime.atypes;"
        "print('tensorflow' in sys.modules, 'numpy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert out.stdout.split() == ["False", "False"]


def test_dtypes_every_datatype_and_ref():
    from opgen_runtime.proto import datatypes

    for enum, names in datatypes.BY_ENUM.items():
        dt = dtypes.as_dtype(enum)
        assert dt.name == names.python and dt.as_datatype_enum == enum
        assert getattr(dtypes, names.generator) is dt
        ref = dtypes.as_dtype(enum + 100)
        assert (
            ref.name == names.python + "_ref"
            and ref.base_dtype is dt
            and ref._is_ref_dtype
        )
        assert dtypes.as_dtype(names.python) is dt
    assert dtypes.as_dtype("half") is dtypes.float16 is dtypes.half
    assert (
        dtypes.as_dtype("float") is dtypes.float32
        and dtypes.as_dtype(float) is dtypes.float32
    )
    assert (
        dtypes.as_dtype(bool) is dtypes.as_dtype("bool")
        and dtypes.as_dtype(object) is dtypes.string
    )
    for bad in (int, str, "DT_FLOAT", 0, "float33"):
        with pytest.raises(TypeError):
            dtypes.as_dtype(bad)
    assert dtypes.float32 == "float32" and dtypes.float32 != dtypes.float32_ref
    assert dtypes.float32.is_compatible_with(dtypes.float32_ref)


def test_dtypes_from_numpy():
    np = pytest.importorskip("numpy")
    assert dtypes.as_dtype(np.float32) is dtypes.float32
    assert dtypes.as_dtype(np.dtype("int64")) is dtypes.int64
    assert dtypes.as_dtype(np.dtype("<U3")) is dtypes.string
    assert dtypes.as_dtype(np.bool_) is dtypes.as_dtype("bool")
    assert dtypes.float16.as_numpy_dtype is np.float16


def test_tensor_shape_semantics():
    s = TensorShape([None, 3])
    assert (
        str(s) == "(None, 3)"
        and str(TensorShape(None)) == "<unknown>"
        and str(TensorShape([2])) == "(2,)"
    )
    assert s.merge_with([2, None]).as_list() == [2, 3]
    assert (
        s.is_compatible_with([5, 3])
        and not s.is_compatible_with([5, 4])
        and not s.is_compatible_with([1])
    )
    assert TensorShape(None).merge_with(s) == s
    assert TensorShape(3).as_list() == [3]
    with pytest.raises(ValueError, match="are not compatible"):
        s.merge_with([1, 4])
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        TensorShape([-1])
    with pytest.raises(TypeError):
        TensorShape([1.5])
    assert TensorShape([None, 2]).as_proto().dim[0].size == -1
    assert TensorShape(None).as_proto().unknown_rank


def test_execute_make_helpers():
    assert _execute.make_int(1.7, "a") == 1 and _execute.make_str("x", "a") == b"x"
    assert (
        _execute.make_type("float32", "T") == 1
        and _execute.make_type(dtypes.float32_ref, "T") == 1
    )
    assert (
        _execute.make_shape([None, 2], "s") == [None, 2]
        and _execute.make_shape(None, "s") is None
    )
    assert _execute.make_tensor("dtype: DT_FLOAT float_val: 1", "t").float_val == [1.0]
    with pytest.raises(TypeError, match=r"Expected bool for argument 'b' not 1."):
        _execute.make_bool(1, "b")
    with pytest.raises(
        ValueError,
        match=r"Error converting s to a TensorShape: Dimension -2 must be >= 0.",
    ):
        _execute.make_shape([-2], "s")


def test_unique_names_scopes_and_case_insensitivity():
    g = Graph()
    with g.as_default():
        names = [
            lib._apply_op_helper("RtPlaceholder", dtype="float32", shape=None)[2].name
            for _ in range(3)
        ]
        assert names == ["RtPlaceholder", "RtPlaceholder_1", "RtPlaceholder_2"]
        assert (
            lib._apply_op_helper(
                "RtPlaceholder", name="rtplaceholder_1", dtype="float32", shape=None
            )[2].name
            == "rtplaceholder_1_1"
        )
        with g.name_scope("outer"):
            op = lib._apply_op_helper("RtAdd", x=1.0, y=2.0)[2]
        assert op.name == "outer/RtAdd"
        assert [t.name for t in op.inputs] == ["outer/RtAdd/x:0", "outer/RtAdd/y:0"]
        with g.name_scope("outer/"):
            assert (
                lib._apply_op_helper("RtAdd", name="fixed/", x=1.0, y=2.0)[2].name
                == "fixed"
            )
        with pytest.raises(ValueError, match="Duplicate node name in graph: 'fixed'"):
            lib._apply_op_helper("RtAdd", name="fixed/", x=1.0, y=2.0)
        with pytest.raises(ValueError, match="is not a valid root scope name"):
            lib._apply_op_helper("RtAdd", name="-bad", x=1.0, y=2.0)


def test_control_dependencies_and_devices():
    g = Graph()
    with g.as_default():
        a = lib._apply_op_helper("RtPlaceholder", dtype="float32", shape=None)[3][0]
        with g.control_dependencies([a]), g.device("/cpu:0"):
            b = lib._apply_op_helper("RtAdd", x=a, y=1.0)[2]
            c = lib._apply_op_helper("RtAdd", x=2.0, y=1.0)[2]
            with g.control_dependencies(None):
                d = lib._apply_op_helper("RtAdd", x=2.0, y=1.0)[2]
    assert b.node_def.input == [
        "RtPlaceholder",
        "RtAdd/y",
    ]  # a data input already dominates
    # the Consts made inside the block carry the control input, and then dominate the op (TF's pruning)
    assert c.node_def.input == ["RtAdd_1/x", "RtAdd_1/y"]
    assert c.inputs[0].op.node_def.input == ["^RtPlaceholder"]
    assert d.node_def.input == ["RtAdd_2/x", "RtAdd_2/y"]
    assert b.device == "/device:CPU:0"
    assert canonical_device("/job:w/task:1/gpu:2") == "/job:w/task:1/device:GPU:2"


def test_registry_conflicts_name_both_modules():
    registry.register_op_list(
        "tests.other", op_def_pb2.OpList(op=TEST_OPS[:1]).SerializeToString()
    )  # identical: fine
    changed = op_def_pb2.OpDef()
    changed.CopyFrom(TEST_OPS[0])
    changed.summary = "docs never conflict"
    registry.register_op_list(
        "tests.fourth", op_def_pb2.OpList(op=[changed]).SerializeToString()
    )
    changed.attr[0].name = "dtype2"
    with pytest.raises(
        ValueError, match=r"RtPlaceholder .*'tests.third'.*'tests.runtime_core'"
    ):
        registry.register_op_list(
            "tests.third", op_def_pb2.OpList(op=[changed]).SerializeToString()
        )
    with Graph().as_default(), pytest.raises(RuntimeError, match=r"^Unrecognized Op name NoSuchOpAtAll$"):
        lib._apply_op_helper("NoSuchOpAtAll")


def test_registry_reads_op_names_in_any_field_order_and_parses_on_first_lookup():
    """Registration reads only the op names (fast when the name is serialized first, as
    protobuf writes it); any other valid layout registers the same ops, and the OpList is
    parsed on the first lookup, not at registration."""
    long_name = "RtLong" + "x" * 200  # a 2-byte length, and an OpDef over 127 bytes
    canonical = op_def_pb2.OpDef(name=long_name, summary="s" * 300)
    short = op_def_pb2.OpDef(name="RtSummaryFirst", summary="first")
    # OpDef.summary (field 5) before OpDef.name (field 1): valid protobuf, not protobuf's own order
    serialized = short.SerializeToString()
    name_field = op_def_pb2.OpDef(name=short.name).SerializeToString()
    reordered = serialized[len(name_field) :] + name_field
    assert op_def_pb2.OpDef.FromString(reordered) == short
    data = op_def_pb2.OpList(op=[canonical]).SerializeToString() + b"\n" + bytes([len(reordered)]) + reordered
    registry.register_op_list("tests.field_order", data)
    assert registry._modules["tests.field_order"].parsed is None
    assert registry.get(long_name) == canonical
    assert registry.get("RtSummaryFirst") == short
    assert set(registry.op_defs_of("tests.field_order")) == {long_name, "RtSummaryFirst"}


def test_function_attrs_are_added_to_the_inputs_graph():
    """A function value goes to the op's graph (the inputs'), not to the outer default graph."""

    class Function:
        name = "my_function"

        def __init__(self) -> None:
            self.graphs: list[Graph] = []

        def add_to_graph(self, graph: Graph) -> None:
            self.graphs.append(graph)

    function = Function()
    with Graph().as_default() as g:
        x = lib._apply_op_helper("RtPlaceholder", dtype="float32", shape=None)[3][0]
    with Graph().as_default():
        op = lib._apply_op_helper("RtCall", x=x, f=function)[2]
    assert function.graphs == [g]
    assert op.graph is g and op.node_def.attr["f"].func.name == "my_function"


def test_deprecated_op_raises_not_implemented():
    with (
        Graph().as_default(),
        pytest.raises(
            NotImplementedError,
            match=r"^Op RtOld is not available in GraphDef version 2474. "
            r"It has been removed in version 7. Use RtNew.$",
        ),
    ):
        lib._apply_op_helper("RtOld")


def test_number_attr_shape_and_outputs():
    with Graph().as_default() as g:
        structure, stateful, op, outputs = lib._apply_op_helper(
            "RtAddN", inputs=[1, 2, 3]
        )
        assert (
            structure == [None]
            and not stateful
            and op.get_attr("N") == 3
            and op.get_attr("T") == dtypes.int32
        )
        assert outputs[0].dtype is dtypes.int32 and outputs[0].name == "RtAddN:0"
        add = lib._apply_op_helper("RtAdd", x=[[1.0, 2.0]], y=[3.0])[3][0]
        assert add.shape.as_list() == [1, 2]
    graph_def = g.as_graph_def()
    assert graph_def.versions.producer == 2474 and [n.name for n in graph_def.node][
        :3
    ] == ["RtAddN/inputs_0", "RtAddN/inputs_1", "RtAddN/inputs_2"]


def test_reused_call_plans_build_what_fresh_ones_do():
    """Calls that differ only in input dtypes, value types (True vs 1, 0.0 vs -0.0), list
    lengths or attr values never share a plan wrongly: each builds the node, or raises the
    error, that the same call planned afresh does."""
    from opgen_runtime.ops import fast_path

    def build(fresh: bool) -> list:
        with Graph().as_default():
            f32, i32 = (
                lib._apply_op_helper("RtPlaceholder", dtype=dtype, shape=None)[3][0]
                for dtype in ("float32", "int32")
            )
            calls = [
                ("RtAdd", {"x": f32, "y": f32}),
                ("RtAdd", {"x": i32, "y": i32}),
                ("RtAdd", {"y": i32, "x": i32}),
                ("RtAdd", {"x": f32, "y": 0.0}),
                ("RtAdd", {"x": f32, "y": -0.0}),
                ("RtAdd", {"x": i32, "y": 1}),
                ("RtAdd", {"x": i32, "y": True}),
                ("RtAdd", {"x": f32, "y": [1, 2]}),
                ("RtAdd", {"x": f32, "y": (1, 2)}),
                ("RtAdd", {"x": i32, "y": f32}),
                ("RtAddN", {"inputs": [f32, f32]}),
                ("RtAddN", {"inputs": [f32, f32, f32]}),
                ("RtAddN", {"inputs": (i32,)}),
                ("RtAddN", {"inputs": [f32, i32]}),
                ("RtAttrs", {"x": f32, "k": 2, "flag": True}),
                ("RtAttrs", {"x": f32, "k": 2, "flag": False}),
                ("RtAttrs", {"x": f32, "k": True, "flag": 1}),
                ("RtAttrs", {"x": i32, "k": 1, "flag": None}),
                ("RtAttrs", {"x": i32}),
                ("RtAttrs", {"x": i32, "T": dtypes.int32}),
            ]
            results: list = []
            for op_type, keywords in calls * 2:
                if fresh:
                    fast_path._PLANS.clear()
                try:
                    op = lib._apply_op_helper(op_type, **keywords)[2]
                except (TypeError, ValueError) as e:
                    results.append((type(e), str(e)))
                else:
                    results.append(op.node_def)
        return results

    fast_path._PLANS.clear()
    reused = build(fresh=False)
    assert 0 < len(fast_path._PLANS) < 20  # plans were made and reused
    assert reused == build(fresh=True)


@pytest.mark.parametrize(
    "value,dtype,expected",
    [
        (1, None, 3),
        (2**40, None, 9),
        (2**63, None, 23),
        (1.5, None, 1),
        (True, None, 10),
        ("a", None, 7),
        (1j, None, 18),
        ([], None, 1),
        ([1, 2.0], None, 1),
        ([True, 1], None, 3),
        (1, "float32", 1),
        (True, "int32", 3),
    ],
)
def test_python_value_dtype_inference(value, dtype, expected):
    assert make_tensor_proto(value, dtype).dtype == expected


@pytest.mark.oracle
def test_tensor_protos_equal_tensorflow(tf):
    import numpy as np
    from tensorflow.python.framework import tensor_util

    from opgen_runtime.proto import tensor_pb2

    values = [
        1,
        -7,
        2**40,
        2**63,
        1.5,
        True,
        "a",
        b"xy",
        1j,
        [],
        [1, 2.0],
        [True, 1],
        [[1, 2], [3, 4]],
        [[1.5]],
        [1, 2**40],
        ["a", "bc"],
        [True, False],
        [[[]]],
        np.array([1, 2]),
        np.float64(2.5),
        np.array([[1.5, 2]], np.float32),
        np.array(["a", "b"]),
        np.array(True),
        np.int8(3),
    ]
    for v in values:
        for dtype in (
            None,
            "float32",
            "int64",
            "float16",
            "bfloat16",
            "float64",
            "int8",
            "uint8",
            "complex64",
            "bool",
            "string",
        ):
            if dtype == "bfloat16" and v is values[3]:
                continue  # ml_dtypes cannot cast a uint64 array (TypeError); we convert it: accepted deviation
            try:
                theirs = tensor_util.make_tensor_proto(
                    v, dtype=dtype
                ).SerializeToString(deterministic=True)
            except Exception as e:  # noqa: BLE001
                with pytest.raises(type(e)):
                    make_tensor_proto(v, dtype)
                continue
            ours = make_tensor_proto(v, dtype)
            assert tensor_pb2.TensorProto.FromString(theirs) == ours, (v, dtype)


@pytest.mark.oracle
def test_python_and_numpy_inputs_build_tf_identical_graphs(tf):
    """Consts from Python scalars, nested lists, strings and numpy values, through both helpers."""
    import numpy as np
    from oracle.tf_registry import tf_op_list_bytes
    from tensorflow.python.framework import op_def_library as tf_lib

    registry.register_op_list("tensorflow_registry", tf_op_list_bytes())
    calls = [
        ("AddV2", {"x": [[1, 2], [3, 4]], "y": 5}),
        ("AddV2", {"x": np.array([1.5, 2.5]), "y": 2.0}),
        ("AddV2", {"x": np.float64(1.5), "y": [1, 2]}),
        ("AddV2", {"x": np.array([[1, 2]], np.int8), "y": np.int8(3)}),
        ("AddV2", {"x": [1 + 2j, 3j], "y": 1}),
        ("LogicalAnd", {"x": [True, False], "y": True}),
        ("StringJoin", {"inputs": ["a", b"b", np.array(["c", "d"])], "separator": "-"}),
        ("Pack", {"values": [1, 2, np.int32(3)], "axis": None}),
        ("Fill", {"dims": np.array([2, 3], np.int64), "value": 0.25}),
        ("Sum", {"input": [[1.0, 2.0]], "reduction_indices": [], "keep_dims": None}),
        (
            "Sum",
            {
                "input": [[1.0, 2.0]],
                "reduction_indices": np.array([0, 1]),
                "keep_dims": True,
            },
        ),
        ("ConcatV2", {"values": [[1, 2], [3, 2**40]], "axis": -1}),
        ("Cast", {"x": [2**31, 7], "DstT": "float16", "Truncate": None}),
        ("Identity", {"input": []}),
        ("Identity", {"input": [[]]}),
        ("Identity", {"input": "text"}),
        ("Identity", {"input": np.zeros((2, 0, 3), np.float32)}),
    ]
    for op_type, kwargs in calls:
        with tf.Graph().as_default() as theirs:
            try:
                tf_lib._apply_op_helper(op_type, **kwargs)
            except (TypeError, ValueError) as e:
                with Graph().as_default(), pytest.raises(type(e)) as ours_error:
                    lib._apply_op_helper(op_type, **kwargs)
                assert str(ours_error.value) == str(e)
                continue
        with Graph().as_default() as ours:
            lib._apply_op_helper(op_type, **kwargs)
        ours_def = ours.as_graph_def()
        theirs_def = type(ours_def).FromString(
            theirs.as_graph_def().SerializeToString()
        )
        assert list(ours_def.node) == list(theirs_def.node), (op_type, kwargs)


def test_backend_selection_from_environment():
    code = "import sys, opgen_runtime as r; print(r.get_backend(), 'tensorflow' in sys.modules)"
    env = dict(os.environ, PYTHONPATH=str(REPO), OPGEN_BACKEND="tensorflow")
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert out.stdout.split() == [
        "tensorflow",
        "False",
    ]  # selected, TF still imported lazily
    env["OPGEN_BACKEND"] = "torch"
    bad = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert (
        bad.returncode != 0
        and "OPGEN_BACKEND='torch' is not one of embedded, tensorflow" in bad.stderr
    )
    from opgen_runtime import set_backend

    with pytest.raises(ValueError, match="unknown backend 'jax'"):
        set_backend("jax")
