"""SetTypeConstructor: TF 2.21's full_type:: helpers evaluated into experimental_full_type."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from opgen.spec.full_type import (
    TypeConstructorError,
    match_type_constructor,
    parse_type_constructor,
)
from opgen_runtime.proto import full_type_pb2, op_def_pb2

EXPECTED = {
    'full_type::Nullary(TFT_MUTEX_LOCK)': "type_id: TFT_MUTEX_LOCK",
    'full_type::Unary(TFT_RAGGED, "Tvalues")': 'type_id: TFT_RAGGED args { type_id: TFT_VAR s: "Tvalues" }',
    "full_type::UnaryGeneric(TFT_DATASET)": "type_id: TFT_DATASET args { type_id: TFT_ANY }",
    "full_type::UnaryTensorContainer(TFT_DATASET, TFT_STRING)":
        "type_id: TFT_DATASET args { type_id: TFT_TENSOR args { type_id: TFT_STRING } }",
    'tensorflow::full_type::UnaryTensorContainer(TFT_ARRAY, "element_dtype")':
        'type_id: TFT_ARRAY args { type_id: TFT_TENSOR args { type_id: TFT_VAR s: "element_dtype" } }',
    '::tensorflow::full_type::VariadicTensorContainer(TFT_DATASET, "output_" "types")':
        'type_id: TFT_DATASET args { type_id: TFT_FOR_EACH args { type_id: TFT_PRODUCT } '
        'args { type_id: TFT_TENSOR args { type_id: TFT_VAR s: "output_types" } } '
        'args { type_id: TFT_VAR s: "output_types" } }',
}


@pytest.mark.parametrize("expr", sorted(EXPECTED))
def test_helpers_write_output_zero(expr):
    ctor = parse_type_constructor(expr)
    op = op_def_pb2.OpDef(name="Op")
    op.output_arg.add(name="y")
    op.output_arg.add(name="z")
    assert ctor.apply(op) is None
    assert text_format.MessageToString(op.output_arg[0].experimental_full_type, as_one_line=True) == EXPECTED[expr]
    assert not op.output_arg[1].HasField("experimental_full_type")
    assert match_type_constructor(op.output_arg[0].experimental_full_type) == ctor
    assert parse_type_constructor(ctor.to_cc()) == ctor


def test_noop_and_no_outputs_write_nothing():
    for expr in ("full_type::NoOp()", "full_type::NoOutputs()"):
        op = op_def_pb2.OpDef(name="Op")
        assert parse_type_constructor(expr).apply(op) is None
        assert op == op_def_pb2.OpDef(name="Op")


def test_constructor_needs_an_output():
    op = op_def_pb2.OpDef(name="Op")
    assert "has no outputs" in parse_type_constructor("full_type::Nullary(TFT_ARRAY)").apply(op)


@pytest.mark.parametrize("expr", ["MyCtor()", "full_type::Unary(TFT_ARRAY)", "full_type::Nullary(TFT_NOPE)",
                                  "[](OpDef* d) { return OkStatus(); }", "full_type::Unary(TFT_ARRAY, \"a\",)"])
def test_unsupported_expressions(expr):
    with pytest.raises(TypeConstructorError):
        parse_type_constructor(expr)


def test_unmatched_full_type():
    t = full_type_pb2.FullTypeDef(type_id=1002)
    t.args.add(type_id=1000).args.add(type_id=2)
    t.args.add(type_id=2)
    assert match_type_constructor(t) is None
