"""Golden cases for override files: tests/golden/overrides/<case>/.

Each case folder holds `overrides/` (the override directory, loaded with the case folder
as working directory so locations read `overrides/x.pbtxt:3:5`), optionally `ops.pbtxt`
(the OpList; default: the shared `_ops.pbtxt`) and `options.toml` (`merge_overrides`), and
exactly one of `expected.txt` (the `opgen oplist --api` description) or
`expected_error.txt` (the error text). `OPGEN_UPDATE_GOLDEN=1` rewrites the expectations.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import tomllib
from google.protobuf import text_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.overrides_cases import CASES, GOLDEN

from opgen.errors import OpgenError
from opgen.overrides.load import describe_api_model, load_overrides
from opgen_runtime.proto import op_def_pb2

UPDATE = os.environ.get("OPGEN_UPDATE_GOLDEN") == "1"

# Every OpGenOverride field, every ApiDef field and every error overrides/README.md describes has a case.
REQUIRED_CASES = {
    "field_skip", "field_hide", "field_rename_to", "field_alias", "field_attr_default",
    "field_attr_rename", "field_input_rename", "field_output_rename",
    "apidef_visibility", "apidef_endpoints", "apidef_in_arg", "apidef_out_arg", "apidef_arg_order",
    "apidef_attr", "apidef_summary_description", "apidef_description_prefix_suffix",
    "apidef_multiline", "apidef_layers", "mixed_formats", "merge_enabled", "update_docs_chained",
    "error_parse_opgen", "error_parse_apidef_multiline", "error_unknown_op", "error_unknown_attr",
    "error_unknown_input", "error_unknown_output", "error_two_files_same_op",
    "error_rename_collides_param", "error_rename_keyword", "error_rename_collides_function",
    "error_alias_collides_function", "error_output_rename_collides",
    "error_attr_default_wrong_type", "error_attr_default_not_allowed",
    "error_attr_default_below_minimum", "error_attr_default_list_too_short",
    "error_arg_order_not_permutation", "error_skip_with_other_fields", "error_apidef_skip_with_fields",
    "error_attr_default_inferred_attr", "error_apidef_unmerged_field", "error_apidef_unknown_op",
    "error_entry_changes_nothing", "error_entry_without_name", "error_multiline_no_end_tag",
    "error_not_an_override_file", "error_rename_collides_module_global", "error_two_entries_same_file",
    "error_two_renames_collide", "error_visible_rename_to_keyword", "error_several_files", "error_all_at_once",
    "error_rename_collides_later_param", "error_parse_recovers", "error_parse_unbalanced", "error_parse_unclosed",
    "error_parse_unclosed_mid_file", "error_parse_apidef_unclosed", "error_replaced_by_later_layer",
    "error_skipped_by_later_layer", "error_apidef_duplicate_endpoint", "error_alias_repeats_name",
}


def load_case(case: str, monkeypatch) -> tuple[op_def_pb2.OpList, bool]:
    folder = GOLDEN / case
    monkeypatch.chdir(folder)
    ops_file = folder / "ops.pbtxt" if (folder / "ops.pbtxt").exists() else GOLDEN / "_ops.pbtxt"
    op_list = text_format.Parse(ops_file.read_text(), op_def_pb2.OpList())
    options = tomllib.loads((folder / "options.toml").read_text()) if (folder / "options.toml").exists() else {}
    return op_list, bool(options.get("merge_overrides", False))


def check_golden(path: Path, actual: str) -> None:
    if UPDATE:
        path.write_text(actual)
    assert path.exists(), f"{path} missing (run with OPGEN_UPDATE_GOLDEN=1)"
    assert actual == path.read_text()


def test_every_field_and_error_has_a_case():
    assert set(CASES) >= REQUIRED_CASES, sorted(REQUIRED_CASES - set(CASES))


@pytest.mark.parametrize("case", CASES)
def test_golden(case, monkeypatch):
    op_list, merge = load_case(case, monkeypatch)
    folder = GOLDEN / case
    expect_error = case.startswith("error_")
    try:
        model = load_overrides("overrides", op_list, merge=merge)
    except OpgenError as e:
        assert expect_error, f"unexpected error:\n{e.format()}"
        check_golden(folder / "expected_error.txt", e.report() + "\n")
        return
    assert not expect_error, "an error case loaded without error"
    check_golden(folder / "expected.txt", describe_api_model(model, op_list))


def test_no_directory_gives_the_default_model():
    op_list = text_format.Parse((GOLDEN / "_ops.pbtxt").read_text(), op_def_pb2.OpList())
    model = load_overrides(None, op_list)
    assert model.provenance == {}
    assert [e.name for e in model.api_defs["Add"].endpoint] == ["Add"]


def test_missing_directory_is_an_error(tmp_path):
    with pytest.raises(OpgenError, match="does not exist"):
        load_overrides(tmp_path / "nope", op_def_pb2.OpList())


def test_cli_check_and_api(tmp_path, monkeypatch, capsys):
    """`opgen overrides check` and `opgen oplist --api` on an OpList file, with a bad then a good override."""
    from opgen import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ops.pbtxt").write_text((GOLDEN / "_ops.pbtxt").read_text())
    (tmp_path / "ov").mkdir()
    (tmp_path / "ov" / "a.pbtxt").write_text('op {\n  name: "Add"\n  input_rename { from: "q" to: "w" }\n}\n')
    assert cli.main(["overrides", "check", "ops.pbtxt", "--overrides", "ov"]) == 2
    assert capsys.readouterr().err.startswith("ov/a.pbtxt:3:3: error: op Add has no input named 'q'")
    (tmp_path / "ov" / "a.pbtxt").write_text('op {\n  name: "Add"\n  input_rename { from: "x" to: "w" }\n}\n')
    assert cli.main(["overrides", "check", "ops.pbtxt", "--overrides", "ov"]) == 0
    assert cli.main(["oplist", "ops.pbtxt", "--api", "--overrides", "ov"]) == 0
    out = capsys.readouterr().out
    assert "python: def add(w, y, name=None) [VISIBLE]\nchanged by: ov/a.pbtxt:3:3\n" in out


def test_cli_reports_every_error_with_hints(tmp_path, monkeypatch, capsys):
    """`opgen overrides check`: a misspelled field gets a did-you-mean, an out-of-range integer
    its range (not the format hint), both in one run with a summary line."""
    from opgen import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ops.pbtxt").write_text((GOLDEN / "_ops.pbtxt").read_text())
    (tmp_path / "ov").mkdir()
    (tmp_path / "ov" / "a.pbtxt").write_text(
        'op {\n  name: "Abs"\n  hidde: true\n}\n'
        'op {\n  name: "Resize"\n  attr_default { name: "scale" value { i: 99999999999999999999 } }\n}\n')
    assert cli.main(["overrides", "check", "ops.pbtxt", "--overrides", "ov"]) == 2
    assert capsys.readouterr().err == (
        'ov/a.pbtxt:3:3: error: cannot parse as OpGenOverrides: Message type "OpGenOverride" has no field '
        'named "hidde".\n  hint: did you mean `hide`?\n'
        "ov/a.pbtxt:7:43: error: cannot parse as OpGenOverrides: Value out of range: 99999999999999999999\n"
        "  hint: an int attr value (`i`) is a signed 64-bit integer: -9223372036854775808 to 9223372036854775807\n"
        "2 errors in 1 file\n")
    # an attr value written as a scalar: its AttrValue shape
    (tmp_path / "ov" / "a.pbtxt").write_text('op {\n  name: "Resize"\n  attr_default { name: "scale" value: 3 }\n}\n')
    assert cli.main(["overrides", "check", "ops.pbtxt", "--overrides", "ov"]) == 2
    assert capsys.readouterr().err.splitlines()[:2] == [
        'ov/a.pbtxt:3:39: error: cannot parse as OpGenOverrides: Expected "{".',
        ("  hint: an attr value is an AttrValue message of one field: value { i: 8 }, { f: 0.5 }, { b: true }, "
        '{ s: "text" }, { type: DT_FLOAT }, { shape { dim { size: 2 } } } or { list { i: [1, 2] } }')]


def test_locations_follow_text_format_syntax(tmp_path):
    """List syntax, `<...>` messages, comments, `;` separators and concatenated strings."""
    from opgen.overrides.files import read_override_file

    path = tmp_path / "a.pbtxt"
    path.write_text(
        '# comment: with a colon\n'
        'op <\n'
        '  name: "Add" "" ;\n'
        '  alias: ["P1",\n'
        '          "P2"]\n'
        '  input_rename: { from: "x" to: "a" }\n'
        '>\n'
    )
    file = read_override_file(path, "a.pbtxt")
    entry = file.root.nth("op", 0)
    assert file.format == "opgen"
    assert [str(n.loc) for n in entry.all("alias")] == ["a.pbtxt:4:11", "a.pbtxt:5:11"]
    assert str(entry.first("input_rename").loc) == "a.pbtxt:6:3"
    assert str(entry.first("input_rename").first("to").loc) == "a.pbtxt:6:29"


def test_multiline_lines_map_back_to_the_file(tmp_path):
    from opgen.overrides.files import read_override_file

    path = tmp_path / "api_def_Add.pbtxt"
    path.write_text('op {\n  graph_op_name: "Add"\n  summary: <<END\none\ntwo\nEND\n  description: <<X\nd\nX\n}\n')
    file = read_override_file(path, "f")
    entry = file.root.nth("op", 0)
    assert file.format == "apidef"
    assert file.message.op[0].summary == "one\ntwo"
    assert [str(entry.first(f).loc) for f in ("summary", "description")] == ["f:3:3", "f:7:3"]


ALL_OVERRIDE_TEXTS = sorted({p.read_text() for p in GOLDEN.rglob("*.pbtxt") if "overrides" in p.parts})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mangled_files_give_located_errors_never_tracebacks(data, tmp_path_factory):
    """Cut, duplicate or insert text anywhere in real override files: opgen either loads the
    result or raises an OpgenError naming the file; never any other exception."""
    text = data.draw(st.sampled_from(ALL_OVERRIDE_TEXTS))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 12)))
        piece = data.draw(st.sampled_from(["", "{", "}", "<", ">", "[", "]", ":", ",", ";", "\n", '"', "'",
                                           "#", "-", "<<END\n", "END", text[i:j], " op { name: \"Add\" } ",
                                           "graph_op_name: \"Abs\" ", "i: -1", "[\"A\", \"B\"]"]))
        text = text[:i] + piece + text[j:]
    folder = tmp_path_factory.mktemp("mangled")
    (folder / "f.pbtxt").write_text(text)
    op_list = text_format.Parse((GOLDEN / "_ops.pbtxt").read_text(), op_def_pb2.OpList())
    try:
        load_overrides(folder, op_list)
    except OpgenError as e:
        assert "f.pbtxt" in e.format()


def test_type_phrases_name_a_renamed_attr_by_its_python_name(tmp_path):
    """`attr_rename` renames the attr wherever the docstring names it (a list's length, a
    dtype attr), as the parameter the reader passes; TF names the OpDef attr."""
    from opgen.python_api.function import FunctionApi, function_api

    op = text_format.Parse(
        'name: "SplitBands" input_arg { name: "x" type_attr: "T" }'
        ' output_arg { name: "bands" number_attr: "num_bands" type_attr: "T" } output_arg { name: "w" type_attr: "U" }'
        ' attr { name: "num_bands" type: "int" has_minimum: true minimum: 1 } attr { name: "T" type: "type" }'
        ' attr { name: "U" type: "type" }', op_def_pb2.OpDef())
    (tmp_path / "o.pbtxt").write_text('op { name: "SplitBands" attr_rename { from: "num_bands" to: "count" } '
                                      'attr_rename { from: "U" to: "out_type" } }\n')
    model = load_overrides(tmp_path, op_def_pb2.OpList(op=[op]))
    api = function_api(op, model.merged(op))
    assert isinstance(api, FunctionApi)
    assert "bands: A list of `count` `Tensor` objects with the same type as `x`." in api.docstring
    assert "w: A `Tensor` of type `out_type`." in api.docstring
    plain = function_api(op)
    assert isinstance(plain, FunctionApi)
    assert "A list of `num_bands` `Tensor`" in plain.docstring and "of type `U`." in plain.docstring


def test_type_phrases_name_a_renamed_input_by_its_python_name(tmp_path):
    """trial10 #15: after `input_rename`, "the same type as" and "the same length as" name the
    parameter the reader passes (`values`), not the OpDef input (`x`) that is no parameter."""
    from opgen.python_api.function import FunctionApi, function_api

    op = text_format.Parse(
        'name: "Stack2" input_arg { name: "x" type_attr: "T" number_attr: "N" }'
        ' input_arg { name: "y" type_attr: "T" number_attr: "N" } output_arg { name: "z" type_attr: "T" }'
        ' attr { name: "N" type: "int" has_minimum: true minimum: 1 } attr { name: "T" type: "type" }',
        op_def_pb2.OpDef())
    (tmp_path / "o.pbtxt").write_text('op { name: "Stack2" input_rename { from: "x" to: "values" } }\n')
    model = load_overrides(tmp_path, op_def_pb2.OpList(op=[op]))
    api = function_api(op, model.merged(op))
    assert isinstance(api, FunctionApi)
    assert [p.name for p in api.params] == ["values", "y"]
    assert ("y: A list with the same length as `values` of `Tensor` objects with the same type as `values`."
            in api.docstring)
    assert "A `Tensor`. Has the same type as `values`." in api.docstring
    assert "`x`" not in api.docstring


def test_an_entry_naming_a_renamed_attr_by_its_python_name_says_so(tmp_path, monkeypatch, capsys):
    """trial24 #3: `attr_default` names the attr as the op declares it, before `attr_rename`:
    the error says the name is the rename's and which name to write (inputs alike)."""
    from opgen import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ops.cc").write_text('REGISTER_OP("FwScale").Input("x: T").Output("y: T").Attr("T: {float, double}")'
                                     '.Attr("factor: float = 1.0");\n')
    (tmp_path / "ov").mkdir()
    (tmp_path / "ov" / "a.pbtxt").write_text('op {\n  name: "FwScale"\n  attr_rename { from: "factor" to: "k" }\n'
                                             '  attr_default { name: "k" value { f: 2.0 } }\n}\n')
    assert cli.main(["overrides", "check", "ops.cc", "--overrides", "ov"]) == 2
    assert capsys.readouterr().err.startswith(
        "ov/a.pbtxt:4:3: error: op FwScale has no attr named 'k'\n  hint: 'k' is the Python name attr 'factor' is "
        "renamed to; entries name attrs as the op declares them ('factor'); its attrs: T, factor\n")
