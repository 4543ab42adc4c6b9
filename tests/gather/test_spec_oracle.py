"""Differential tests: opgen's builder vs TF 2.21's OpDefBuilder::Finalize + ValidateOpDef.

Every spec runs through both (the real TF code via the C++ oracle harness). A valid spec
must give byte-identical OpDefs (docs included); an invalid one must fail in both with
the same message text (opgen adds the location).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.spec_corpus import (
    BROKEN_ARGS,
    BROKEN_ATTRS,
    BROKEN_VALIDATION_ATTRS,
    Spec,
    comparable,
    random_spec,
    to_oracle_calls,
    to_registration,
)

from opgen.errors import OpgenErrors
from opgen.spec.builder import build_op_def

pytestmark = pytest.mark.oracle


@pytest.fixture(scope="module")
def oracle(tf):
    from oracle.harness import get_oracle

    return get_oracle()


def ours(spec: Spec):
    """(op_def, None) or (None, TF-style message: our errors joined by newlines)."""
    try:
        return build_op_def(to_registration(spec))[0], None
    except OpgenErrors as e:
        for err in e.errors:
            assert err.location is not None and err.location.line > 0, err.format()
        return None, "\n".join(err.message for err in e.errors)


def check(specs: list[Spec], oracle) -> tuple[int, int]:
    """Compare every spec with TF; returns (#valid, #invalid). Fails listing mismatches."""
    results = oracle.finalize_many([(name, to_oracle_calls((name, calls))) for name, calls in specs])
    mismatches = []
    valid = invalid = 0
    for spec, tf_result in zip(specs, results):
        op_def, error = ours(spec)
        if tf_result.ok:
            valid += 1
            if op_def != tf_result.op_def:
                mismatches.append(f"{spec!r}\n  TF : {tf_result.op_def}\n  us : {op_def or error}")
        else:
            invalid += 1
            if error is None or comparable(error) != comparable(tf_result.error):
                mismatches.append(f"{spec!r}\n  TF : {tf_result.error!r}\n  us : {error!r}")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:10])
    return valid, invalid


def A(*specs: str) -> list[tuple[str, tuple]]:  # noqa: N802 - reads as the chain's .Attr
    return [("Attr", (s,)) for s in specs]


HAND_WRITTEN: list[Spec] = (
    [
        (
            "AddN",
            [
                ("Input", ("inputs: N * T",)),
                ("Output", ("sum: T",)),
                *A("N: int >= 1", "T: {numbertype, variant}"),
                ("SetIsCommutative", ()),
                ("SetIsAggregate", ()),
            ],
        ),
        ("IdentityN", [("Input", ("input: T",)), ("Output", ("output: T",)), *A("T: list(type)")]),
        (
            "Split",
            [
                ("Input", ("split_dim: int32",)),
                ("Input", ("value: T",)),
                ("Output", ("output: num_split * T",)),
                *A("num_split: int >= 1", "T: type"),
            ],
        ),
        (
            "Assign",
            [
                ("Input", ("ref: Ref(T)",)),
                ("Input", ("value: T",)),
                ("Output", ("output_ref: Ref(T)",)),
                *A("T: type", "validate_shape: bool = true", "use_locking: bool = true"),
                ("SetAllowsUninitializedInput", ()),
            ],
        ),
        (
            "VarHandle",
            [
                ("Output", ("resource: resource",)),
                *A("container: string = ''", "shared_name: string = ''", "dtype: type", "shape: shape"),
            ],
        ),
        ("RefN", [("Input", ("x: Ref(N * T)",)), *A("N: int", "T: type")]),
        (
            "Conv",
            [
                *A(
                    "padding: {'SAME', 'VALID', 'EXPLICIT'}",
                    "explicit_paddings: list(int) = []",
                    "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
                    "dilations: list(int) = [1, 1, 1, 1]",
                )
            ],
        ),
        (
            "Defaults",
            [
                *A(
                    "a: int = -3",
                    "b: float = 1e-3",
                    "c: bool = True",
                    'd: string = "x\\ty"',
                    "e: type = DT_HALF",
                    "f: shape = { dim { size: -1 } dim { size: 3 } }",
                    "g: tensor = { dtype: DT_FLOAT tensor_shape { } float_val: 1 }",
                    'h: func = { name: "f" }',
                    "i: list(type) = [DT_INT32, DT_HALF]",
                    "j: list(shape) = [{ dim { size: 1 } }, { unknown_rank: true }]",
                    "k: list(func) = []",
                    "l: list(string) = [\"a\", 'b']",
                    "m: list(float) = [1, .5, -inf]",
                    "n: list(bool) = [true, False]",
                    "o: shape = {}",
                    "p: type = 3",
                )
            ],
        ),
        (
            "Quirks",
            [
                *A(
                    "a: int = 1 2",
                    "b: int = 1 # comment",
                    "c: int>=1=5",
                    "d : int",
                    "e: list (int)",
                    "f: {int32, int32, numbertype}",
                    "g: {realnumerictype}",
                    "h: {'a', \"b\\n\", 'c',}",
                    "i: int >= -3 = 1",
                    "j: list(int) = [1] i: [2]",
                    "k: string = 'x' y",
                    "l: float = +2",
                    "m: type = -0",
                    "n: list(type) = [ ]",
                    "o: shape = { dim { size: 1 } dim_x }",
                    "p: float = 1e50",
                    "q: float = 1e-50",
                    'r: string = "\\u00e9"',
                    's: func = { name: "f" attr { key: "a" value { i: 1 } } attr { key: "a" value { i: 2 } } }',
                    "t: int = -9223372036854775808",
                )
            ],
        ),
        ("QuirksBad1", A('s: string = "a" "b"')),
        ("QuirksBad2", A("i: int = 1 s: 'x'")),
        ("QuirksBad3", A("i: int = 007")),
        ("QuirksBad4", A("f: float = 1e")),
        ("QuirksBad5", A("f: float = +-1")),
        ("QuirksBad6", A("t: type = 2147483648")),
        ("QuirksBad7", A("l: list(int) = [1, 2] # c")),
        ("QuirksBad8", A('f: func = { name: "f" attr { key: "a" } }')),
        ("QuirksBad9", A("i: int = 9223372036854775808")),
        (
            "Compound",
            [
                *A(
                    "a: numbertype",
                    "b: numerictype",
                    "c: realnumbertype",
                    "d: quantizedtype",
                    "e: list(numbertype)",
                    "f: {quantizedtype, bool}",
                    "g: {float32, float64, float16}",
                )
            ],
        ),
        (
            "ImplicitMin",
            [
                *A("N: int", "L: list(type)", "M: int >= 0", "K: list(type) >= 0"),
                ("Input", ("a: N * float",)),
                ("Input", ("b: L",)),
                ("Output", ("c: M * int32",)),
                ("Output", ("d: K",)),
            ],
        ),
        ("ResourceRef", [("Input", ("r: Ref(resource)",))]),
        ("Stateful", [("SetDoNotOptimize", ()), ("SetIsDistributedCommunication", ())]),
        ("Dep", [("Deprecated", (7, "Use Dep2 instead")), ("Output", ("y: float",))]),
        ("Ctl", [("ControlOutput", ("a",)), ("ControlOutput", ("b-garbage",))]),
        ("Ns>Inner", []),
        ("_Internal", []),
        ("_", []),
        ("A_34", []),
        ("A>B>C", []),
        (
            "DocFull",
            [
                ("Input", ("x: float",)),
                ("Output", ("y: float",)),
                *A("T: type"),
                (
                    "Doc",
                    (
                        (
                            "\n\nSummary line.   \n\n\nDescription para 1.\n  indented line\n\nPara 2.\n\n\n"
                            "x: The input.\n  continued more\n    deeper\n\n  after blank\n"
                            "y:= Output without type.\nT : spaced colon name\n"
                        ),
                    ),
                ),
            ],
        ),
        ("DocEdge", [("Input", ("n: float",)), ("Doc", ("x: summary looks like entry\nn: \nEND",))]),
        ("DocTabs", [("Input", ("n: float",)), ("Doc", ("S\n\nn: a\n\tb\n  c",))]),
        ("DocOverwrite", [("Input", ("n: float",)), ("Doc", ("S\nn: one\nn: two",))]),
        ("DocEmptyFirst", [("Doc", ("",)), ("Doc", ("Second wins",))]),
        ("DocWordColon", [("Doc", ("S\n\nDesc with word: colon\n  x: indented\n",))]),
        (
            "TypeCtor",
            [
                ("Output", ("handle: variant",)),
                *A("element_dtype: type"),
                ("SetTypeConstructor", ("UnaryTensorContainer", "TFT_ARRAY", "element_dtype")),
            ],
        ),
        (
            "TypeCtor2",
            [
                ("Output", ("handle: variant",)),
                *A("output_types: list(type) >= 1"),
                ("SetTypeConstructor", ("VariadicTensorContainer", "TFT_DATASET", "output_types")),
            ],
        ),
        (
            "TypeCtor3",
            [
                ("Output", ("y: variant",)),
                ("SetTypeConstructor", ("UnaryTensorContainer", "TFT_DATASET", "TFT_STRING")),
            ],
        ),
        ("TypeCtor4", [("Output", ("y: resource",)), ("SetTypeConstructor", ("Nullary", "TFT_MUTEX_LOCK"))]),
        ("TypeCtor5", [("Output", ("y: variant",)), ("SetTypeConstructor", ("UnaryGeneric", "TFT_DATASET"))]),
        ("TypeCtor6", [("Output", ("y: variant",)), ("SetTypeConstructor", ("Unary", "TFT_RAGGED", "Tvalues"))]),
        ("TypeCtor7", [("Output", ("y: variant",)), ("SetTypeConstructor", ("NoOp",))]),
        ("TypeCtor8", [("Output", ("y: variant",)), ("SetTypeConstructor", ("NoOutputs",))]),
        # Invalid: Finalize errors accumulate across calls, in TF's order.
        (
            "Many",
            [
                *A("x: {Float}", "y: int32"),
                ("Input", ("A: float",)),
                ("Doc", ("Sum.\n\nNote: bad",)),
                ("Doc", ("again",)),
                ("Deprecated", (1, "a")),
                ("Deprecated", (2, "b")),
            ],
        ),
        ("BadRefs", [*A("N: list(int)", "S: string"), ("Input", ("a: N * float",)), ("Input", ("b: S",))]),
        ("WrongLen", [*A("N: list(int)"), ("Input", ("a: N * float",))]),
        ("MinOnType", [*A("T: type"), ("Input", ("a: T * float",))]),
        ("NoNAttr", [("Input", ("a: N * float",))]),
        ("BothLists", [*A("N: int", "L: list(type)"), ("Input", ("a: N * L",))]),
        ("DefaultBelowImplicit", [*A("N: int = 0"), ("Input", ("a: N * float",))]),
        ("DupArg", [("Input", ("a: float",)), ("Output", ("a: float",))]),
        ("DupAttrArg", [*A("a: int"), ("Input", ("a: float",))]),
        ("bad_name", []),
        ("", []),
        ("Bad Name", []),
        ("AllowedInt", [*A("x: int = 3")]),
        ("ShapeTwice", [("SetShapeFn", ("f",)), ("SetShapeFn", ("g",))]),
        ("CtlBad", [("ControlOutput", ("1a",)), ("ControlOutput", ("",))]),
    ]
    + [("BadAttr", A(s)) for s in BROKEN_ATTRS]
    + [("BadValid", A(s)) for s in BROKEN_VALIDATION_ATTRS]
    + [("BadArg", [*A("T: type", "N: int"), ("Input", (s,))]) for s in BROKEN_ARGS]
    + [("BadOut", [("Output", (s,))]) for s in BROKEN_ARGS]
)


def test_hand_written_edge_cases_match_tf(oracle):
    valid, invalid = check(HAND_WRITTEN, oracle)
    assert valid >= 30 and invalid >= 80, (valid, invalid)


def _float_spellings(count: int) -> list[str]:
    """Spellings of a float default: hexadecimal (`0x1.8p1`, `0X10`), signs, exponents,
    `inf`/`nan` words, leading zeros and junk, written by hand and generated from pieces."""
    pieces = ["0", "1", "9", "0x", "0X", "x", "a", "F", "f", "e", "E", "p", "P", ".", "+", "-", "1e5", "inf",
              "INF", "Infinity", "nan", "NaN", "infin", " ", "08", "00", "0x1p", "3", "7f", "0b", "d", "_"]
    spellings = {"0x1p3", "0x10", "0x1.8p1", "0x1p-2", "-0x1p3", "+0x9", "010", "0x", "0x.", "0x.8", "0x1.",
                 "0x1e3", "0x1p", "0x1p+3", "0x1P-1", "0x1p0.5", "0x-1", "00x1", "0x1p999999", "-0x1p999999",
                 "0x1p-150", "0x1.0000008000000001p0", "0x1.fffffep127", "0x1.ffffffp127", "0x" + "f" * 31,
                 "1e3f", "infinity", "-nan", "+-1", "- 1.0", "3.40282357e38", "1e-46"}
    r = random.Random(20261127)
    while len(spellings) < count:
        spellings.add("".join(r.choice(pieces) for _ in range(r.randint(1, 5))).strip())
    return sorted(s for s in spellings if s)


def test_float_default_spellings_match_tf(oracle):
    """trial11 F2: TF reads a float default as a double (hexadecimal ones too: `0x1p3` is 8),
    then casts it; both builders on 1200 spellings, scalar and in a list."""
    spellings = _float_spellings(1200)
    specs = [spec for i, text in enumerate(spellings) for spec in (
        (f"FloatDefault{i}", list(A(f"a: float = {text}"))), (f"FloatList{i}", list(A(f"a: list(float) = [{text}]"))))]
    valid, invalid = check(specs, oracle)
    assert valid >= 150 and invalid >= 1000, (valid, invalid)


# Grammar branches the generated corpus must reach (regexes over the repr of the calls).
FEATURES = {
    "type set": r"'\w+\s*:\s*\{\s*[a-z]", "compound": r"numbertype|quantizedtype|realnumbertype",
    "string set": r"\{\s*[\"']", "list(": r"list\s*\(", ">= N": r">=", "int default": r"int.*= -?\d",
    "float default": r"float = ", "bool default": r"bool = ", "string default": r"string = ",
    "DT_ default": r"= DT_", "shape default": r"shape = \{", "tensor default": r"tensor = \{",
    "func default": r"func = ", "list default": r"= \[", "N * T": r"\*", "type list": r"list\s*\(\s*type",
    "Ref": r"Ref", "resource": r"resource", "Doc continuation": r"continued", "Doc =": r":= ",
    "flags": r"SetIs", "Deprecated": r"Deprecated", "type constructor": r"SetTypeConstructor",
    "ControlOutput": r"ControlOutput", "SetShapeFn": r"SetShapeFn",
}


def test_generated_corpus_matches_tf(oracle):
    """900 random specs (a third broken on purpose) through both builders."""
    import re

    r = random.Random(20260402)
    specs = [random_spec(r, broken=i % 3 == 0) for i in range(900)]
    valid, invalid = check(specs, oracle)
    assert valid >= 300 and invalid >= 100, (valid, invalid)
    texts = [repr(calls) for i, (_, calls) in enumerate(specs) if i % 3 != 0]
    reached = {name: sum(bool(re.search(rx, t)) for t in texts) for name, rx in FEATURES.items()}
    assert min(reached.values()) >= 5, reached


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rnd=st.randoms(use_true_random=False), broken=st.booleans())
def test_hypothesis_specs_match_tf(oracle, rnd, broken):
    check([random_spec(rnd, broken)], oracle)


def test_cpp_source_path_matches_tf(oracle, tmp_path):
    """A subset through the whole front end: C++ text -> gather -> OpDef / located errors."""
    from support.spec_corpus import to_cc

    from opgen.errors import OpgenError
    from opgen.spec.gather import gather

    r = random.Random(7)
    specs = HAND_WRITTEN[:60] + [random_spec(r, broken=i % 3 == 0) for i in range(120)]
    results = oracle.finalize_many([(name, to_oracle_calls((name, calls))) for name, calls in specs])
    mismatches = []
    for i, (spec, tf_result) in enumerate(zip(specs, results)):
        path = tmp_path / f"spec{i}.cc"
        path.write_text(to_cc(spec))
        try:
            got = gather([str(path)], include_internal=True).op_list.op
            op_def, error = (got[0] if got else None), None
        except OpgenError as e:
            errors = getattr(e, "errors", [e])
            assert all(str(err.location).startswith(str(path) + ":") for err in errors), e.format()
            op_def, error = None, "\n".join(err.message for err in errors)
        if tf_result.ok and op_def != tf_result.op_def:
            mismatches.append(f"{spec!r}: TF ok, us {error!r}")
        if not tf_result.ok and (error is None or comparable(error) != comparable(tf_result.error)):
            mismatches.append(f"{spec!r}:\n  TF {tf_result.error!r}\n  us {error!r}")
    assert not mismatches, "\n".join(mismatches[:5])


SUMMARY_ATTRS = [
    "l: list(int) = [" + ", ".join(str(i) for i in range(60)) + "]",
    "f: list(float) = [0.1, 1e-5, 1e20, 3, inf, -inf, nan, 1.5e-40, 123456789]",
    "t: tensor = { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 1 int_val: 2 int_val: 3 }",
    "t2: tensor = { dtype: DT_STRING tensor_shape { dim { size: 2 } } string_val: \"a\" string_val: \"b\" }",
    "t3: tensor = { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 1.5 }",
    "t4: tensor = { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 1 int_val: 2 }",
    "t5: tensor = { dtype: DT_BOOL tensor_shape { } bool_val: true }",
    "t6: tensor = { dtype: DT_FLOAT tensor_shape { dim { size: 5 } } float_val: 1 float_val: 2 }",
    "t7: tensor = { dtype: DT_INT64 tensor_shape { dim { size: 2 } dim { size: 1 } dim { size: 2 } } int64_val: 4 }",
    "sh: shape = { unknown_rank: true }", "ls: list(shape) = [{}, { dim { size: 2 } dim { size: -1 } }]",
    "s: string = \"" + "x" * 100 + "\"", "s2: string = \"tab\\there\\001\"", "ty: list(type) = [DT_INT32, DT_HALF]",
    "fs: list(func) = [{ name: \"g\" }]", "T: numbertype = DT_FLOAT", "f1: float = 1234567", "f2: float = 0.1",
    "fn: func = { name: \"f\" attr { key: \"b\" value { i: 1 } } attr { key: \"a\" value { s: \"x\" } } }",
    "lt: list(type) = [" + ", ".join(["DT_INT32"] * 31) + "]", "n: int >= 2 = 3", "b: bool = false",
    "st: {'a', 'b'} = 'a'",
]


def test_summarize_op_def_matches_tf(oracle):
    """SummarizeOpDef (floats, shapes, tensors, funcs, long lists with attr_hash) as
    TF prints it inside OpDefCompatible's message."""
    from oracle.harness import SpecCall

    from opgen.tf_text.attr_text import summarize_op_def

    calls = [SpecCall("Attr", (s,)) for s in SUMMARY_ATTRS]
    calls += [SpecCall("Input", ("x: T",)), SpecCall("Input", ("ns: n * int32",)),
              SpecCall("Output", ("y: Ref(float)",)), SpecCall("Output", ("z: ty",)),
              SpecCall("SetIsCommutative", ()), SpecCall("SetIsStateful", ())]
    result = oracle.finalize("Foo", calls)
    assert result.ok, result.error
    old = result.op_def
    new = oracle.finalize("Foo", [SpecCall("Attr", ("zz: int",))]).op_def
    message = oracle.compatible(old, new)
    assert message == (f"Incompatible Op change: Attr 'l' removed; old: {summarize_op_def(old)}; "
                       f"new: {summarize_op_def(new)}")


def test_fingerprint64_matches_tf(tf):
    import struct

    from opgen_runtime.proto.fingerprint import fingerprint64

    r = random.Random(3)
    data = [bytes(r.randrange(256) for _ in range(n)) for n in [*range(140), 200, 255, 256, 1000]]
    got = tf.fingerprint(tf.constant(data)).numpy()
    assert [struct.unpack("<Q", row.tobytes())[0] for row in got] == [fingerprint64(d) for d in data]


def test_emitted_cc_reproduces_tf_op_defs_with_docs(oracle, tmp_path):
    """TF's OpDefs (docs included) for generated specs -> REGISTER_OP C++ -> gather: identical."""
    from opgen.spec.emit_cc import Inexpressible, cc_for_op_def
    from opgen.spec.gather import gather

    r = random.Random(11)
    specs = [random_spec(r) for _ in range(400)]
    results = oracle.finalize_many([(name, to_oracle_calls((name, calls))) for name, calls in specs])
    op_defs = list({res.op_def.name: res.op_def for res in results if res.ok}.values())
    chunks, expected, skipped = [], [], []
    for op_def in op_defs:
        try:
            chunks.append(cc_for_op_def(op_def))
            expected.append(op_def)
        except Inexpressible as e:
            skipped.append(f"{op_def.name}: {e}")
    assert len(expected) >= 250 and len(skipped) <= len(op_defs) // 10, skipped
    by_name = {op.name: op for op in expected}
    path = tmp_path / "emitted.cc"
    path.write_text("".join(chunks))
    got = {op.name: op for op in gather([str(path)], include_internal=True).op_list.op}
    assert [name for name, op in by_name.items() if got.get(name) != op] == []


def test_emitted_cc_compiles_and_loads_in_tf(oracle, tmp_path, tf):
    """`opgen specs` output is real C++: compiled against the TF wheel and loaded with
    TF_LoadLibrary, it registers exactly the OpDefs it was written from (docs included)."""
    from oracle.tf_library import library_op_list
    from oracle.tf_registry import tf_op_list

    from opgen.spec.emit_cc import op_list_to_cc
    from opgen_runtime.proto import op_def_pb2

    r = random.Random(5)
    specs = [random_spec(r) for _ in range(60)]
    results = oracle.finalize_many([(name, to_oracle_calls((name, calls))) for name, calls in specs])
    ops = {res.op_def.name: res.op_def for res in results if res.ok and not res.op_def.control_output}
    for op in tf_op_list().op:  # registry ops with full types and deprecations
        if (op.output_arg and op.output_arg[0].HasField("experimental_full_type")) or op.HasField("deprecation"):
            ops.setdefault(op.name, op)
    source = tmp_path / "emitted_ops.cc"
    source.write_text(op_list_to_cc(op_def_pb2.OpList(op=list(ops.values()))))
    loaded = {op.name: op for op in library_op_list([source]).op}
    assert sorted(loaded) == sorted(ops)
    assert [name for name, op in ops.items() if loaded[name] != op] == []
