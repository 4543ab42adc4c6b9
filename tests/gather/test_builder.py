"""build_op_def: builder-level errors, flags, Deprecated, SetShapeFn names, Finalize order,
argument checking and locations (`op_def_builder.cc`, `op.h`)."""

from __future__ import annotations

import pytest

from opgen.errors import Location, OpgenErrors
from opgen.model import BuilderCall, CallArg, Registration
from opgen.spec.builder import build_op_def, registration


def build(calls, name="Foo"):
    return build_op_def(registration(name, calls))


def errors(calls, name="Foo") -> list[str]:
    with pytest.raises(OpgenErrors) as e:
        build(calls, name)
    return [err.format() for err in e.value.errors]


def test_flags_deprecation_control_outputs():
    op, shape_fn = build([("SetIsCommutative", ()), ("SetIsAggregate", ()), ("SetDoNotOptimize", ()),
                          ("SetAllowsUninitializedInput", ()), ("SetIsDistributedCommunication", ()),
                          ("Deprecated", (12, "Use Bar")), ("ControlOutput", ("c",)),
                          ("SetForwardTypeFn", ("MyForwardFn",)), ("SetReverseTypeFn", (0, "MyReverseFn"))])
    assert (op.is_commutative, op.is_aggregate, op.is_stateful, op.allows_uninitialized_input,
            op.is_distributed_communication) == (True,) * 5
    assert (op.deprecation.version, op.deprecation.explanation) == (12, "Use Bar")
    assert list(op.control_output) == ["c"] and shape_fn is None


@pytest.mark.parametrize("expr,name", [
    ("shape_inference::UnchangedShape", "shape_inference::UnchangedShape"),
    ("::tensorflow :: MyShape", "::tensorflow::MyShape"),
    ("[](InferenceContext* c) { return OkStatus(); }", None),
    ("nullptr", None),
])
def test_shape_fn_name(expr, name):
    assert build([("SetShapeFn", (expr,))])[1] == name


def test_attrs_are_processed_before_args_whatever_the_call_order():
    op, _ = build([("Input", ("x: T",)), ("Output", ("y: N * T",)), ("Attr", ("T: type",)), ("Attr", ("N: int",))])
    assert op.input_arg[0].type_attr == "T" and op.attr[1].minimum == 1


def test_d1_errors_come_first_then_finalize_order():
    got = errors([("Input", ("A: float",)), ("Doc", ("x",)), ("Doc", ("y",)), ("Attr", ("z: int32",)),
                  ("SetShapeFn", ("f",)), ("SetShapeFn", ("g",)), ("Deprecated", (1, "a")),
                  ("Deprecated", (2, "b"))])
    assert [g.split(": error: ")[1].split("\n  hint: ")[0] for g in got] == [
        "Extra call to Doc() for Op Foo",
        "SetShapeFn called twice for Op Foo",
        "Deprecated called twice for Op Foo",
        'Extra \'32\' unparsed at the end from Attr("z: int32") for Op Foo',
        'Trouble parsing \'name:\' from Input("A: float") for Op Foo',
    ]
    assert got[0].startswith("<spec>:4:")  # the second Doc call


def _doc_hint(doc: str) -> str:
    """The hint of the error of a Doc line naming no part of RollingWindow (input x, output
    windows, attrs size, stride and T, which the input's type infers)."""
    (got,) = errors([("Input", ("x: T",)), ("Output", ("windows: T",)), ("Attr", ("size: int >= 1",)),
                     ("Attr", ("stride: int >= 1 = 1",)), ("Attr", ("T: {float, double}",)), ("Doc", (doc,))],
                    "RollingWindow")
    meant, _, rest = got.split("\n  hint: ")[1].rpartition("a line starting ")
    assert rest == ("'window:' documents the input, output or attr of that name (RollingWindow "
                    "has x, windows, size, stride, T): rename or remove it, or indent the line if it is "
                    "description text")
    return meant.strip()


def test_doc_hint_never_offers_a_part_another_line_documents():
    """trial34 #2: attr `window` renamed `size`, its Doc line left behind. The closest name,
    the output `windows`, is documented by another line (following the hint would document
    it twice): the hint offers the one part of the wrapper no Doc line documents, `size`,
    whatever its spelling (`T`, inferred from the input, is no argument of the wrapper)."""
    assert _doc_hint("S\n\nx: in.\nwindows: out.\nwindow: length.\nstride: step.") == (
        "did you mean the attr 'size', the one part of RollingWindow no Doc line documents (attrs inferred from the "
        "inputs aside)?")
    # two parts undocumented (size, stride), neither close: no guess
    assert _doc_hint("S\n\nx: in.\nwindows: out.\nwindow: length.") == ""
    # the closest undocumented part, named with its kind (here the misspelling is of an output's name)
    assert _doc_hint("S\n\nwindow: out.") == "did you mean the output 'windows'?"


def test_empty_first_doc_does_not_count():
    op, _ = build([("Doc", ("",)), ("Doc", ("Second.",))])
    assert op.summary == "Second."


def test_validation_error_points_at_the_call():
    got = errors([("Input", ("a: float",)), ("Attr", ("N: int = 0",)), ("Input", ("b: N * float",))])
    assert got == ["<spec>:3:8: error: Value for attr 'N' of 0 must be at least minimum 1\n    in Op 'Foo'"]
    got = errors([], name="lower")
    # (TF's dump of the whole OpDef after `; in OpDef: ` is left out: the location says which op)
    assert got == [(
        "<spec>:1:1: error: Invalid name: lower (Did you use CamelCase?)\n"
        '  hint: an op name is CamelCase: a capital letter, then letters, digits and _: REGISTER_OP("Lower")'
    )]


def test_unknown_method_and_bad_arguments():
    loc = Location("a.cc", 3, 7)
    reg = Registration("Foo", Location("a.cc", 1, 1), (
        BuilderCall("SetIsFancy", (), loc),
        BuilderCall("Input", (CallArg("int", 3, loc),), loc),
        BuilderCall("Attr", (CallArg("expr", "GetPaddingAttrString()", loc),), loc),
    ))
    with pytest.raises(OpgenErrors) as e:
        build_op_def(reg)
    messages = [err.message for err in e.value.errors]
    assert messages[0].startswith("unknown REGISTER_OP builder method 'SetIsFancy' for Op Foo (known: Attr, ")
    assert messages[1] == "Input() takes a string, got an integer for Op Foo"
    assert messages[2] == "Attr() takes a string, got an expression for Op Foo"
    assert all(err.location == loc for err in e.value.errors)


def test_type_constructor_runs_after_the_doc():
    op, _ = build([("Output", ("y: variant",)), ("Doc", ("S\ny: out",)),
                   ("SetTypeConstructor", ('full_type::Unary(TFT_ARRAY, "T")',))])
    assert op.output_arg[0].description == "out"
    assert op.output_arg[0].experimental_full_type.args[0].s == "T"
