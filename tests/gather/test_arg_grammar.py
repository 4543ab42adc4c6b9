"""Input/Output/ControlOutput grammar (`op_def_builder.cc` FinalizeInputOrOutput), TF 2.21 results."""

from __future__ import annotations

import pytest

from opgen.spec.arg_grammar import field_offset, finalize_arg, finalize_control_output
from opgen.spec.attr_grammar import SpecError, finalize_attr
from opgen_runtime.proto import op_def_pb2


def op_with(*attrs: str) -> op_def_pb2.OpDef:
    op = op_def_pb2.OpDef(name="Op")
    for spec in attrs:
        assert finalize_attr(spec, op) is None
    return op


def test_fixed_type_attr_type_and_type_list():
    op = op_with("T: type", "L: list(type)")
    assert finalize_arg("a: float32", False, op) is None
    assert finalize_arg("b: T", False, op) is None
    assert finalize_arg("c: L", True, op) is None
    a, b = op.input_arg
    assert (a.type, b.type_attr, op.output_arg[0].type_list_attr) == (1, "T", "L")
    assert op.attr[1].has_minimum and op.attr[1].minimum == 1  # implicit minimum for the type list


def test_number_attr_gets_implicit_minimum_whatever_its_type():
    op = op_with("N: int", "T: type", "M: int >= 0")
    assert finalize_arg("a: N * T", False, op) is None
    assert finalize_arg("b: T * float", False, op) is None  # T gets a minimum too (fails validation later)
    assert finalize_arg("c: M*int32", False, op) is None
    assert [(a.has_minimum, a.minimum) for a in op.attr] == [(True, 1), (True, 1), (True, 0)]


def test_ref_and_resource():
    op = op_with("N: int", "T: type")
    assert finalize_arg("r: Ref ( N * T )", False, op) is None
    assert op.input_arg[0].is_ref and op.input_arg[0].number_attr == "N"
    assert not op.is_stateful
    assert finalize_arg("h: Ref(resource)", True, op) is None
    assert op.is_stateful  # a fixed resource arg makes the op stateful
    op = op_with("T: type")
    assert finalize_arg("x: float_ref", False, op) is None  # accepted here, rejected by ValidateOpDef
    assert op.input_arg[0].type == 101


# `at`: where in the spec the part the error is about starts (the word the message quotes)
@pytest.mark.parametrize("spec,message,at", [
    ("A: float", "Trouble parsing 'name:'", None),
    ("out_Z: float", "Trouble parsing 'name:'", None),
    ("x: ref(float)", "Reference to unknown attr 'ref'", 3),
    ("x: Ref(float", "Did not find closing ')' for 'Ref(', instead found: ''", 12),
    ("x: float extra", "Extra 'extra' unparsed at the end", 9),
    ("x: 3", "Trouble parsing either a type or an attr name at '3'", 3),
    ("x: S", "Reference to attr 'S' with type string that isn't type or list(type)", 3),
    ("x: float_ref_ref", "Reference to unknown attr 'float_ref_ref'", 3),
])
def test_errors(spec, message, at):
    op = op_with("S: string")
    assert finalize_arg(spec, True, op) == SpecError(f'{message} from Output("{spec}") for Op Op', at)


def test_fields_are_located_for_validation_errors():
    assert [field_offset("x: N * T", f) for f in ("name", "number_attr", "type_attr", "type_list_attr")] == [0, 3, 7, 7]
    assert field_offset("x: Ref(float_ref)", "type") == 7


def test_control_outputs():
    op = op_def_pb2.OpDef(name="Op")
    assert finalize_control_output("ctl-and-garbage", op) is None
    assert finalize_control_output("1st", op) == SpecError(
        "Trouble parsing 'name:' from ControlOutput(\"1st\") for Op Op")
    assert list(op.control_output) == ["ctl", ""]
