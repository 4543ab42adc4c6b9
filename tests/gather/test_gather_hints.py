"""TF's messages, unchanged, with opgen's how-to-fix hints added."""

from __future__ import annotations

import pytest

from opgen.spec.gather import GatherErrors, gather

HEADER = '#include "tensorflow/core/framework/op.h"\n'


def _errors(tmp_path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (tmp_path / name).write_text(HEADER + text)
    with pytest.raises(GatherErrors) as e:
        gather([str(tmp_path / name) for name in files])
    return [err.format() for err in e.value.errors]


def test_duplicate_registration_says_where_the_first_is(tmp_path):
    errors = _errors(tmp_path, {"a.cc": 'REGISTER_OP("C1");\nREGISTER_OP("C1");\n', "b.cc": 'REGISTER_OP("C1");\n'})
    first = f"first registered at {tmp_path / 'a.cc'}:2:1"
    assert errors == [
        (f"{tmp_path / 'a.cc'}:3:1: error: Op with name C1\n  hint: {first}; an op name can be registered once: "
         "rename one of them or delete the duplicate"),
        (f"{tmp_path / 'b.cc'}:2:1: error: Op with name C1\n  hint: {first}; an op name can be registered once: "
         "rename one of them or delete the duplicate"),
    ]


def _built_errors(op: str, calls: list[tuple[str, tuple]]) -> list:
    from opgen.errors import OpgenErrors
    from opgen.spec.builder import build_op_def, registration

    with pytest.raises(OpgenErrors) as e:
        build_op_def(registration(op, calls))
    return e.value.errors


# (bad Attr spec, the hint's fix, which must be an Attr TF accepts)
FIXES = [
    ("T: type = float", "T: type = DT_FLOAT"),
    ("L: list(type) = [float, int64]", "L: list(type) = [DT_FLOAT, DT_INT64]"),
    ("R: {float, double} = double", "R: {float, double} = DT_DOUBLE"),
    ("T: type = int", "T: type = DT_INT32"),
]


@pytest.mark.parametrize(("bad", "fixed"), FIXES)
def test_type_default_hint_spells_the_enum(bad, fixed):
    [error] = _built_errors("Z", [("Attr", (bad,))])
    assert error.message.startswith("Could not parse default value ")
    assert error.hint == f'a type default is a DataType enum: Attr("{fixed}")'


@pytest.mark.parametrize(
    ("spec", "hint"),
    [
        (
            "T: {float, int}",
            "did you mean 'int32'? (types are TF's names: float, double, int32, int64, string, bool, ...)",
        ),
        (
            "s: strin",
            (
                "did you mean 'string'? (attr types: string, int, float, bool, type, shape, tensor, func, "
                "list(...) of one, or a set of allowed values ({float, int32}))"
            ),
        ),
        ("s: string = abc", "the default of a string attr is a quoted string (`s: string = 'text'`)"),
        (
            "e: {'a', 'b'} = c",
            "the default of a {'a', 'b'} attr is one of the allowed values, quoted (`e: {'a', 'b'} = 'a'`)",
        ),
        (
            "l: list(int) = 7",
            "a list default is bracketed, `= [v1, v2]` (`= []` when empty), each value an integer (`n: int = 3`)",
        ),
        ("l: list(type) = [DT_INT32 , DT_HALF]", None),  # the enums are right: no hint rather than a wrong one
    ],
)
def test_hints(spec, hint):
    [error] = _built_errors("Z", [("Attr", (spec,))])
    assert error.hint == hint


def test_follow_on_error_says_where_it_comes_from():
    _attr_error, input_error = _built_errors("B2", [("Input", ("x: T",)), ("Attr", ("T: {float, int}",))])
    assert input_error.message == ("Reference to attr 'T' with type  that isn't type or list(type) "
                                   'from Input("x: T") for Op B2')
    assert input_error.hint == "follows from the error in attr 'T' (TensorFlow reports both): fix that one first"


@pytest.mark.oracle
def test_hinted_fixes_are_accepted_and_follow_on_errors_are_tfs(tf):
    from oracle.harness import SpecCall, get_oracle

    oracle = get_oracle()
    fixes = [fixed for _, fixed in FIXES] + ["s: string = 'text'", "e: {'a', 'b'} = 'a'", "l: list(int) = [1, 2]",
                                             "b: bool = true", "x: float = 0.5", "n: int = 3",
                                             "s: shape = { dim { size: 2 } }"]
    for spec in fixes:
        result = oracle.finalize("Z", [SpecCall("Attr", (spec,))])
        assert result.ok, (spec, result.error)
    # TF reports the follow-on error too: opgen keeps it (with its hint), in TF's order.
    calls = [("Input", ("x: T",)), ("Attr", ("T: {float, int}",))]
    result = oracle.finalize("B2", [SpecCall(m, a) for m, a in calls])
    assert result.error.split("\n") == [e.message for e in _built_errors("B2", calls)]
