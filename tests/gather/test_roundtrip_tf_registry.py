"""Round trip over TensorFlow 2.21's whole op registry (~1900 OpDefs, `_` ops included).

OpList -> REGISTER_OP C++ (`opgen specs`) -> OpList (`opgen oplist`) must reproduce every
OpDef exactly; every registry OpDef must pass our ValidateOpDef; and registry ops with a
full type must come back through `SetTypeConstructor(full_type::...)`.
"""

from __future__ import annotations

import pytest
from oracle.tf_registry import tf_op_list

from opgen.cli import main
from opgen.spec.builder import build_op_def, registration
from opgen.spec.emit_cc import op_def_calls, op_list_to_cc
from opgen.spec.gather import gather
from opgen.spec.validate import validate_op_def
from opgen_runtime.proto import op_def_pb2

pytestmark = pytest.mark.oracle


@pytest.fixture(scope="module")
def registry(tf) -> op_def_pb2.OpList:
    return tf_op_list()


def test_registry_is_large_and_has_full_types(registry):
    assert len(registry.op) > 1800
    with_full_type = [op.name for op in registry.op for a in op.output_arg if a.HasField("experimental_full_type")]
    assert len(with_full_type) >= 140


def test_every_registry_op_passes_our_validate_op_def(registry):
    problems = {op.name: p.message for op in registry.op if (p := validate_op_def(op)) is not None}
    assert problems == {}


def test_every_registry_op_rebuilds_through_the_builder(registry):
    """emit_cc's builder calls, replayed through Finalize + ValidateOpDef, give the OpDef back."""
    mismatches = []
    for op in registry.op:
        rebuilt, _ = build_op_def(registration(op.name, op_def_calls(op)))
        if rebuilt != op:
            mismatches.append(op.name)
    assert mismatches == []


def test_specs_then_oplist_cli_reproduces_the_registry(registry, tmp_path, capsys):
    source = tmp_path / "registry.pb"
    source.write_bytes(registry.SerializeToString())
    cc = tmp_path / "registry_ops.cc"
    assert main(["specs", str(source), "-o", str(cc)]) == 0
    assert cc.read_text().count("REGISTER_OP(") == len(registry.op)
    out = tmp_path / "back.pb"
    assert main(["oplist", str(cc), "--include-internal", "--format", "pb", "-o", str(out)]) == 0
    back = op_def_pb2.OpList.FromString(out.read_bytes())
    ours = {op.name: op for op in back.op}
    assert [op.name for op in back.op] == [op.name for op in registry.op]  # Export order
    assert [op.name for op in registry.op if ours.get(op.name) != op] == []


def test_specs_keeps_docs_and_full_types(tmp_path):
    op = op_def_pb2.OpDef(name="Documented", summary="One line.", description="Para.\n  indented\n\nMore.")
    x = op.input_arg.add(name="x", type=1, description="first\nsecond:  not an entry\n\n  deep")
    y = op.output_arg.add(name="y", type=21, description="= no type")
    y.experimental_full_type.type_id = 10102
    y.experimental_full_type.args.add(type_id=2)
    attr = op.attr.add(name="T", type="type", description="dtype")
    attr.allowed_values.list.type.extend([1, 2])
    del x
    op_list = op_def_pb2.OpList(op=[op])
    calls = op_def_calls(op)
    assert ("SetTypeConstructor", ("full_type::UnaryGeneric(TFT_DATASET)",)) in calls
    assert build_op_def(registration(op.name, calls))[0] == op
    assert "R\"doc(" in op_list_to_cc(op_list)


def test_specs_strings_hold_no_trigraph(tmp_path):
    """trial15 #7: `??/` is a backslash before C++17 (trigraphs), which would end a string
    literal early and let an OpList's text become code; every such `?` is written `\\?`, and
    the OpDef reads back the same."""
    op = op_def_pb2.OpDef(name="Quiz", summary="Why??/ who???")
    op.deprecation.version = 3
    op.deprecation.explanation = 'gone??/"); int injected = 1; //'
    attr = op.attr.add(name="s", type="string")
    attr.default_value.s = b"??/??="
    cc = op_list_to_cc(op_def_pb2.OpList(op=[op]))
    assert "??" not in cc
    assert build_op_def(registration(op.name, op_def_calls(op)))[0] == op
    (tmp_path / "quiz.cc").write_text(cc)
    assert gather([str(tmp_path / "quiz.cc")]).op_list.op[0] == op


def test_specs_reports_inexpressible_op_defs(tmp_path, capsys):
    ok = op_def_pb2.OpDef(name="Fine")
    bad = op_def_pb2.OpDef(name="Float8Only")
    attr = bad.attr.add(name="T", type="type")
    attr.allowed_values.list.type.append(24)  # float8_e5m2: no {...} spelling exists
    source = tmp_path / "ops.pbtxt"
    from google.protobuf import text_format

    source.write_text(text_format.MessageToString(op_def_pb2.OpList(op=[ok, bad])))
    out = tmp_path / "ops.cc"
    assert main(["specs", str(source), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    line = source.read_text().split("\n").index('  name: "Float8Only"')  # (its `op {` line, 1-based)
    assert err.startswith(f"{source}:{line}:1: error: op Float8Only cannot be written as REGISTER_OP: attr 'T' "
                          "allows DT_FLOAT8_E5M2")
    assert "hint: --skip-inexpressible writes the others, with a comment for this one" in err
    assert not out.exists()
    assert main(["specs", str(source), "-o", str(out), "--skip-inexpressible"]) == 0
    text = out.read_text()
    assert 'REGISTER_OP("Fine");' in text and "// opgen: cannot express Float8Only" in text
