"""The oracle infrastructure itself: the C++ harness (each mode) and the op-library route."""

from __future__ import annotations

import textwrap

import pytest
from oracle.harness import OracleError, SpecCall, get_oracle
from oracle.tf_library import LibraryLoadError, library_op_list
from oracle.tf_registry import tf_op_list

from opgen_runtime.proto import full_type_pb2, op_def_pb2

pytestmark = pytest.mark.oracle


def registry_op(name: str) -> op_def_pb2.OpDef:
    return next(op for op in tf_op_list().op if op.name == name)


ADD_N = [
    SpecCall("Input", ("inputs: N * T",)),
    SpecCall("Output", ("sum: T",)),
    SpecCall("Attr", ("N: int >= 1",)),
    SpecCall("Attr", ("T: {numbertype, variant}",)),
    SpecCall("SetIsCommutative"),
    SpecCall("SetIsAggregate"),
    SpecCall("SetShapeFn", ("shape_inference::UnchangedShape",)),
]


def test_finalize_known_good_spec_equals_tf_registry():
    result = get_oracle().finalize("AddN", ADD_N)
    assert (result.ok, result.stage, result.error) == (True, "ok", None)
    assert result.op_def == registry_op("AddN")


def test_finalize_keeps_docs():
    doc = "\n\nSummary line.   \n\n\nPara 1.\n  indented\n\ninputs: The input.\n  continued\nN : count\n"
    op = get_oracle().finalize("AddN", [*ADD_N, SpecCall("Doc", (doc,))]).op_def
    assert (op.summary, op.description) == ("Summary line.", "Para 1.\n  indented")
    assert op.input_arg[0].description == "The input.\ncontinued"
    assert op.attr[0].description == "count"


@pytest.mark.parametrize(
    ("name", "calls", "stage", "message"),
    [
        (
            "Op",
            [SpecCall("Attr", ("x: int32",))],
            "finalize",
            "Extra '32' unparsed at the end from Attr(\"x: int32\") for Op Op",
        ),
        (
            "Op",
            [SpecCall("Attr", ("x: {int32 float}",))],
            "finalize",
            "Expected , or } after types in list, not: 'float}' from Attr(\"x: {int32 float}\") for Op Op",
        ),
        (
            "Op",
            [SpecCall("Input", ("A: float",))],
            "finalize",
            "Trouble parsing 'name:' from Input(\"A: float\") for Op Op",
        ),
        (
            "Op",
            [
                SpecCall("Doc", ("a",)),
                SpecCall("Doc", ("b",)),
                SpecCall("Deprecated", (3, "x")),
                SpecCall("Deprecated", (4, "y")),
                SpecCall("SetShapeFn"),
                SpecCall("SetShapeFn"),
            ],
            "finalize",
            "Extra call to Doc() for Op Op\nDeprecated called twice for Op Op\nSetShapeFn called twice for Op Op",
        ),
        (
            "Op",
            [SpecCall("Doc", ("Sum.\n\nNote: this.",))],
            "finalize",
            "No matching input/output/attr for name 'Note' from Doc() for Op Op",
        ),
        (
            "Op",
            [SpecCall("Attr", ("N: int = 0",)), SpecCall("Input", ("a: N * float",))],
            "validate",
            "Value for attr 'N' of 0 must be at least minimum 1\n\t in Op 'Op'",
        ),
        (
            "Op",
            [SpecCall("Attr", ("float: int",))],
            "validate",
            "Attr can't have name float that matches a data type; in OpDef: ",
        ),
        (
            "lower",
            [],
            "validate",
            "Invalid name: lower (Did you use CamelCase?); in OpDef: ",
        ),
    ],
)
def test_finalize_errors_are_tfs(name, calls, stage, message):
    result = get_oracle().finalize(name, calls)
    assert (result.ok, result.op_def, result.stage) == (False, None, stage)
    assert (
        result.error.startswith(message)
        if message.endswith(": ")
        else result.error == message
    )


def test_resource_input_makes_op_stateful_and_deprecation_is_recorded():
    op = (
        get_oracle()
        .finalize(
            "ReadVariableOp",
            [
                SpecCall("Input", ("resource: resource",)),
                SpecCall("Output", ("value: dtype",)),
                SpecCall("Attr", ("dtype: type",)),
            ],
        )
        .op_def
    )
    assert op == registry_op("ReadVariableOp")
    dep = (
        get_oracle()
        .finalize("Old", [SpecCall("Deprecated", (7, "Use New"))])
        .op_def.deprecation
    )
    assert (dep.version, dep.explanation) == (7, "Use New")


@pytest.mark.parametrize(
    ("name", "calls"),
    [
        (
            "EmptyTensorList",
            [
                SpecCall("Input", ("element_shape: shape_type",)),
                SpecCall("Input", ("max_num_elements: int32",)),
                SpecCall("Output", ("handle: variant",)),
                SpecCall("Attr", ("element_dtype: type",)),
                SpecCall("Attr", ("shape_type: {int32, int64}",)),
                SpecCall(
                    "SetTypeConstructor",
                    ("UnaryTensorContainer", "TFT_ARRAY", "element_dtype"),
                ),
            ],
        ),
        (
            "OptionalFromValue",
            [
                SpecCall("Input", ("components: Toutput_types",)),
                SpecCall("Output", ("optional: variant",)),
                SpecCall("Attr", ("Toutput_types: list(type) >= 1",)),
                SpecCall(
                    "SetTypeConstructor",
                    ("VariadicTensorContainer", "TFT_OPTIONAL", "Toutput_types"),
                ),
            ],
        ),
    ],
)
def test_type_constructors_match_registry(name, calls):
    assert get_oracle().finalize(name, calls).op_def == registry_op(name)


def test_every_type_constructor_helper_runs():
    base = [SpecCall("Output", ("out: variant",)), SpecCall("Attr", ("T: type",))]
    helpers = [
        ("NoOp",),
        ("NoOutputs",),
        ("Nullary", "TFT_STRING"),
        ("Unary", "TFT_TENSOR", "T"),
        ("UnaryGeneric", "TFT_DATASET"),
        ("UnaryTensorContainer", "TFT_ARRAY", "TFT_INT32"),
        ("UnaryTensorContainer", "TFT_ARRAY", "T"),
        ("VariadicTensorContainer", "TFT_OPTIONAL", "T"),
    ]
    results = get_oracle().finalize_many(
        [("Op", [*base, SpecCall("SetTypeConstructor", h)]) for h in helpers]
    )
    full_types = [
        r.op_def.output_arg[0].experimental_full_type if r.ok else r.error
        for r in results
    ]
    assert (
        not full_types[0].type_id and not full_types[1].type_id
    )  # NoOp/NoOutputs set nothing
    assert [full_types[i].type_id for i in (2, 3, 4, 5, 6, 7)] == [
        full_type_pb2.TFT_STRING,
        full_type_pb2.TFT_TENSOR,
        full_type_pb2.TFT_DATASET,
        full_type_pb2.TFT_ARRAY,
        full_type_pb2.TFT_ARRAY,
        full_type_pb2.TFT_OPTIONAL,
    ]
    assert (
        full_types[5].args[0].args[0].type_id == full_type_pb2.TFT_INT32
    )  # the FullTypeId overload
    assert full_types[6].args[0].args[0].s == "T"  # the var-name overload


def test_unknown_method_is_a_usage_error():
    with pytest.raises(OracleError, match="unknown builder method 'Frobnicate'"):
        get_oracle().finalize("Op", [SpecCall("Frobnicate")])


def test_finalize_many_is_fast_and_ordered():
    specs = [
        (
            f"Op{i}",
            [
                SpecCall("Attr", (f"T: type = DT_INT{8 << (i % 4)}",)),
                SpecCall("Input", ("x: T",)),
            ],
        )
        for i in range(3000)
    ]
    results = get_oracle().finalize_many(specs)
    assert [r.op_def.name for r in results] == [name for name, _ in specs]
    assert results[1].op_def.attr[0].default_value.type == 5  # DT_INT16


def test_validate():
    oracle = get_oracle()
    op = op_def_pb2.OpDef()
    op.CopyFrom(registry_op("AddN"))
    assert oracle.validate(op) is None
    op.input_arg[0].number_attr = "M"
    assert oracle.validate(op).startswith(
        "No attr with name 'M' for input 'inputs'; in OpDef: "
    )


def _op(name: str, *calls: SpecCall) -> op_def_pb2.OpDef:
    result = get_oracle().finalize(name, calls)
    assert result.ok, result.error
    return result.op_def


def test_compat_examples_from_h1_and_h2():
    oracle = get_oracle()
    two_floats = _op(
        "Op", SpecCall("Input", ("a: float",)), SpecCall("Input", ("b: float",))
    )
    n_floats = _op(
        "Op", SpecCall("Input", ("a: N * float",)), SpecCall("Attr", ("N: int = 2",))
    )
    assert oracle.compatible(two_floats, n_floats) is None
    t_in = _op("Op", SpecCall("Input", ("a: T",)), SpecCall("Attr", ("T: type",)))
    t_plus = _op(
        "Op",
        SpecCall("Input", ("a: T",)),
        SpecCall("Input", ("b: int32",)),
        SpecCall("Attr", ("T: type",)),
    )
    assert oracle.compatible(t_in, t_plus) == (
        "Incompatible Op change: Input signature mismatch 'T' vs. 'T, int32'; "
        "old: Op<name=Op; signature=a:T -> ; attr=T:type>; "
        "new: Op<name=Op; signature=a:T, b:int32 -> ; attr=T:type>"
    )
    d1 = _op("Op", SpecCall("Attr", ("x: int = 1",)))
    d2 = _op("Op", SpecCall("Attr", ("x: int = 2",)))
    assert oracle.compat(d1, d2) == (
        None,
        "Attr 'x' has changed it's default value; from 1 to 2",
    )


def test_register_duplicates_first_wins_and_export_order():
    result = get_oracle().register(
        [
            ("Zeta", []),
            ("lower", []),
            ("_Hidden", []),
            ("Alpha", [SpecCall("Output", ("y: float",))]),
            ("Alpha", []),
            ("Bad", [SpecCall("Attr", ("x: int32",))]),
        ],
        include_internal=True,
    )
    # ValidateOpDef's messages end with a debug dump whose redaction marker varies.
    assert result.statuses[1].startswith(
        "Invalid name: lower (Did you use CamelCase?); in OpDef: "
    )
    assert [result.statuses[i] for i in (0, 2, 3, 4)] == [
        None,
        None,
        None,
        "Op with name Alpha",
    ]
    assert result.statuses[5].startswith("Extra '32' unparsed")
    assert [op.name for op in result.op_list.op] == ["Alpha", "Zeta", "_Hidden"]
    assert len(result.op_list.op[0].output_arg) == 1


def test_library_route_reports_ops_tf_already_has_with_docs(tmp_path):
    source = tmp_path / "ops.cc"
    source.write_text(
        textwrap.dedent("""\
        #include "tensorflow/core/framework/op.h"
        namespace tensorflow {
        REGISTER_OP("AddN")
            .Input("inputs: N * T").Output("sum: T")
            .Attr("N: int >= 1").Attr("T: {numbertype, variant}")
            .SetIsCommutative().SetIsAggregate()
            .Doc(R"doc(
        Adds tensors.

        inputs: Tensors to add.
        )doc");
        REGISTER_OP("_OpgenHidden").Output("y: float");
        }  // namespace tensorflow
        """)
    )
    ops = library_op_list([source])
    assert [op.name for op in ops.op] == ["AddN", "_OpgenHidden"]
    doc = "\nAdds tensors.\n\ninputs: Tensors to add.\n"
    assert (
        ops.op[0]
        == get_oracle().finalize("AddN", [*ADD_N, SpecCall("Doc", (doc,))]).op_def
    )
    stripped = op_def_pb2.OpDef()
    stripped.CopyFrom(ops.op[0])
    stripped.summary = ""
    stripped.input_arg[0].description = ""
    assert stripped == registry_op("AddN")


def test_library_route_load_error_carries_tfs_message(tmp_path):
    source = tmp_path / "bad.cc"
    source.write_text(
        '#include "tensorflow/core/framework/op.h"\n'
        'namespace tensorflow { REGISTER_OP("Good"); REGISTER_OP("Bad").Attr("x: int32"); }\n'
    )
    with pytest.raises(LibraryLoadError) as info:
        library_op_list([source])
    assert (
        str(info.value)
        == "Extra '32' unparsed at the end from Attr(\"x: int32\") for Op Bad"
    )


def test_libraries_sharing_a_source_both_report_its_ops(tmp_path):
    shared = tmp_path / "shared.cc"
    shared.write_text(
        '#include "tensorflow/core/framework/op.h"\n'
        'namespace tensorflow { REGISTER_OP("Identity").Input("input: T")'
        '.Output("output: T").Attr("T: type"); }\n'
    )
    other = tmp_path / "other.cc"
    other.write_text(
        '#include "tensorflow/core/framework/op.h"\nREGISTER_OP("NoOp");\n'
    )
    alone = library_op_list([shared])
    together = library_op_list([shared, other])
    assert [op.name for op in alone.op] == ["Identity"]
    assert [op.name for op in together.op] == ["Identity", "NoOp"]
    assert together.op[0] == alone.op[0] == registry_op("Identity")


def test_protocol_error_is_reported_and_the_oracle_restarts():
    oracle = get_oracle()
    with pytest.raises(OracleError, match="protocol_error: unknown command 'bogus'"):
        oracle._request([b"bogus"])
    assert get_oracle() is not oracle
    assert get_oracle().finalize("NoOp", []).op_def == registry_op("NoOp")
