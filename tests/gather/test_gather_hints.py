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
    first = f"Op with name C1 is already registered, at {tmp_path / 'a.cc'}:2:1"
    hint = "an op name can be registered once: rename one of them or delete the duplicate"
    assert errors == [
        f"{tmp_path / 'a.cc'}:3:1: error: {first}\n  hint: {hint}",
        f"{tmp_path / 'b.cc'}:2:1: error: {first}\n  hint: {hint}",
    ]


def test_duplicate_registration_in_a_header_names_the_units_that_include_it(tmp_path):
    """The same REGISTER_OP twice: a header read by two translation units, or twice by one
    (no include guard); TF's library load fails the same way."""
    (tmp_path / "dup.h").write_text('REGISTER_OP("R9");\n')
    a, b, c, dup = (tmp_path / name for name in ("a.cc", "b.cc", "c.cc", "dup.h"))
    assert _errors(tmp_path, {"a.cc": '#include "dup.h"\n', "b.cc": '#include "dup.h"\n'}) == [
        (f"{dup}:1:1: error: Op with name R9 is registered twice: both {a} and {b} include {dup}\n"
        f"  hint: a REGISTER_OP in a header runs in each translation unit that includes it: include {dup} "
        "from one translation unit only, or move the REGISTER_OP to a .cc file"),
    ]
    assert _errors(tmp_path, {"c.cc": '#include "dup.h"\n#include "dup.h"\n'}) == [
        (f"{dup}:1:1: error: Op with name R9 is registered twice: {c} includes {dup} twice\n"
        f"  hint: give {dup} an include guard (#pragma once) or include it once"),
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


_TYPE_SET_HINT = ("did you mean '{}'? (a type attr allowing one of TensorFlow's sets of types: numbertype, "
                  "numerictype, quantizedtype, realnumbertype)")


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
        # TF reads `int` of `integer` and `int32`, then reports the rest as extra
        (
            "n: integer",
            (
                "did you mean 'int'? (attr types: string, int, float, bool, type, shape, tensor, func, "
                "list(...) of one, or a set of allowed values ({float, int32}))"
            ),
        ),
        (
            "n: int32",
            (
                "did you mean 'int'? (attr types: string, int, float, bool, type, shape, tensor, func, "
                "list(...) of one, or a set of allowed values ({float, int32}))"
            ),
        ),
        (
            "T: realnumbertypes",  # TF reads the set `realnumbertype`, then reports the `s` as extra
            _TYPE_SET_HINT.format("realnumbertype"),
        ),
        ("T: quantisedtype", _TYPE_SET_HINT.format("quantizedtype")),
        ("x: float >= 2", None),  # the type is right
        ("mode: {'a', 'b'} = 'c'", 'the default must be one of the allowed values: "a", "b" (or add "c" to them)'),
        (
            "T: {float, half} = DT_INT64",
            "the default must be one of the allowed values: float, half (or add int64 to them)",
        ),
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


# (calls of a bad chain, the hint, calls fixed as the hint says: TF accepts them)
CHAIN_FIXES = [
    ([("Output", ("y: flaot",))], "did you mean the type 'float'? (or declare the type attr: .Attr(\"flaot: type\"))",
     [("Output", ("y: float",))]),
    # two characters swapped: int64, though difflib finds the shorter int4 closer (trial37 #9)
    ([("Attr", ("T: {float, int46}",))],
     "did you mean 'int64'? (types are TF's names: float, double, int32, int64, string, bool, ...)",
     [("Attr", ("T: {float, int64}",))]),
    ([("Output", ("y: T",))], 'use a type name (float, int32, ...) or declare the type attr: .Attr("T: type")',
     [("Output", ("y: T",)), ("Attr", ("T: type",))]),
    ([("Attr", ("T: type = DT_FLAOT",))],
     "did you mean DT_FLOAT? (a type default is a DataType enum such as DT_FLOAT or DT_INT32)",
     [("Attr", ("T: type = DT_FLOAT",))]),
    ([("Input", ("x float",))], 'an input is declared as "name: type": Input("x: float")',
     [("Input", ("x: float",))]),
    ([("Output", ("Y: float",))],
     "an output's name is lower-case letters, digits and _, starting with a letter: Output(\"x: float\")",
     [("Output", ("y: float",))]),
    ([("Input", ("x: ref(float)",))], "a reference input is written Ref(type): x: Ref(float)",
     [("Input", ("x: Ref(float)",))]),
    ([("Input", ("x: N * float",))], 'declare the length attr: .Attr("N: int >= 1")',
     [("Input", ("x: N * float",)), ("Attr", ("N: int >= 1",))]),
]


@pytest.mark.parametrize(("calls", "hint", "fixed"), CHAIN_FIXES)
def test_misspelt_chain_hints(calls, hint, fixed):
    [error] = _built_errors("Z", calls)
    assert error.hint == hint
    assert build_op_def_ok("Z", fixed)


def build_op_def_ok(op: str, calls: list[tuple[str, tuple]]) -> bool:
    from opgen.spec.builder import build_op_def, registration

    return build_op_def(registration(op, calls))[0].name == op


@pytest.mark.oracle
def test_chain_hint_fixes_are_accepted_by_tensorflow(tf):
    from oracle.harness import SpecCall, get_oracle

    oracle = get_oracle()
    for _, _, fixed in CHAIN_FIXES:
        result = oracle.finalize("Z", [SpecCall(m, a) for m, a in fixed])
        assert result.ok, (fixed, result.error)


def test_misspelt_method_and_macros_say_what_was_meant(tmp_path):
    [method] = _built_errors("Z", [("Atr", ("T: type",))])
    assert method.hint == "did you mean 'Attr'?"
    errors = _errors(tmp_path, {"a.cc": 'REGISTER_OPP("A").Attr("T: type");\n'})
    assert errors[0].endswith("hint: did you mean 'REGISTER_OP'? Otherwise define 'REGISTER_OPP', or include the "
                              "header that defines it")
    # Every header read: a misspelt kernel macro is reported (g++ would reject it) rather than its kernels lost
    kernel = 'REGISTER_KERNEL_BUILDR(Name("MyOp").Device(DEVICE_CPU), K);\n'
    (tmp_path / "k.cc").write_text(HEADER + '#include "tensorflow/core/framework/op_kernel.h"\n'
                                   'REGISTER_OP("MyOp");\n' + kernel)
    warnings: list[str] = []
    gather([str(tmp_path / "k.cc")], warn=warnings.append)
    [warning] = [w for w in warnings if "REGISTER_KERNEL_BUILDR" in w]
    assert "k.cc:4:1: warning:" in warning
    assert "hint: did you mean 'REGISTER_KERNEL_BUILDER'?" in warning
    with pytest.raises(GatherErrors, match="REGISTER_KERNEL_BUILDR"):
        gather([str(tmp_path / "k.cc")], strict_kernels=True)


def test_error_in_a_helpers_text_says_where_the_entry_is_written(tmp_path, monkeypatch, capsys):
    """The error stays at the C++ call; its hint adds the [tool.opgen.helpers] entries' lines. (An
    error in a literal written in the call stands at its word, with no such hint.)"""
    from opgen.cli import main

    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\nsources = ["ops.cc"]\n\n[tool.opgen.helpers]\nNumericTypeAttr = "T: {flaot, double}"\n'
        'TName = "T: "\nTypes = "{flaot}"\n')
    (tmp_path / "ops.cc").write_text('REGISTER_OP("A")\n    .Attr(NumericTypeAttr());\n'
                                     'REGISTER_OP("B").Attr(TName() + Types());\n'
                                     'REGISTER_OP("C").Attr("T: {flaot}");\n')
    monkeypatch.chdir(tmp_path)
    assert main(["oplist"]) == 2
    pyproject, ops = "pyproject.toml", "ops.cc"  # (relative: below the working directory)
    did_you_mean = "did you mean 'float'? (types are TF's names: float, double, int32, int64, string, bool, ...)"
    assert capsys.readouterr().err == (
        f"{ops}:2:11: error: Unrecognized type string 'flaot' from Attr(\"T: {{flaot, double}}\") for Op A\n"
        f"  hint: {did_you_mean}; the text comes from [tool.opgen.helpers] NumericTypeAttr at {pyproject}:5:1\n"
        f"{ops}:3:23: error: Unrecognized type string 'flaot' from Attr(\"T: {{flaot}}\") for Op B\n"
        f"  hint: {did_you_mean}; the text comes from [tool.opgen.helpers] TName at {pyproject}:6:1, "
        f"[tool.opgen.helpers] Types at {pyproject}:7:1\n"
        f"{ops}:4:28: error: Unrecognized type string 'flaot' from Attr(\"T: {{flaot}}\") for Op C\n"
        f"  hint: {did_you_mean}\n"
        "3 errors in 1 file\n"
    )
