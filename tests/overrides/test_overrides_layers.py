"""Fields a later override replaces (trial37 #3) and endpoints repeating a name (trial37 #7).

Layers merge part by part (`opgen.overrides.merge.MergeState.holders`): a field whose every
part a later layer, or a later entry merged with `merge_overrides`, sets again has no effect and
is an error at its own line naming the replacing one; a field whose value is kept (an
OpGenOverride `alias` keeps the function's name, `hide` prefixes it) stays in effect. The
golden cases `error_replaced_by_later_layer`, `error_skipped_by_later_layer`,
`error_apidef_duplicate_endpoint` and `error_alias_repeats_name` hold the messages.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format
from support.overrides_cases import GOLDEN

from opgen.errors import OpgenError
from opgen.overrides.load import load_overrides
from opgen_runtime.proto import op_def_pb2

OPS = text_format.Parse((GOLDEN / "_ops.pbtxt").read_text(), op_def_pb2.OpList())


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _errors(root: Path, monkeypatch: pytest.MonkeyPatch, merge: bool = False) -> list[str]:
    """The errors (without hints) loading the overrides under `root`, located relative to it (none: [])."""
    monkeypatch.chdir(root)
    try:
        load_overrides(".", OPS, merge=merge)
    except OpgenError as e:
        return [line.replace("./", "") for line in e.report().splitlines() if ": error: " in line]
    return []


def test_the_trial_repro_names_both_dead_lines_and_what_replaces_them(tmp_path, monkeypatch, capsys):
    """trial37 #3: `rename_to` under an ApiDef layer listing endpoints, `input_rename` under an
    ApiDef `in_arg { rename_to }`: `overrides check` fails at each line (it said OK)."""
    from opgen import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ops.pbtxt").write_text((GOLDEN / "_ops.pbtxt").read_text())
    _write(tmp_path, {
        "ov/zz.pbtxt": 'op {\n  name: "Add"\n  rename_to: "Plus"\n  input_rename { from: "x" to: "values" }\n}\n',
        "ov/api_def/python_api/api_def_Add.pbtxt": 'op {\n  graph_op_name: "Add"\n  endpoint { name: "plus" }\n'
                                                   '  endpoint { name: "add" deprecated: true }\n'
                                                   '  in_arg { name: "x" rename_to: "data" }\n}\n'})
    assert cli.main(["overrides", "check", "ops.pbtxt", "--overrides", "ov"]) == 2
    err = capsys.readouterr().err
    assert err == (
        'ov/zz.pbtxt:3:3: error: Add: `rename_to: "Plus"` has no effect: `endpoint { name: "plus" }` at '
        "ov/api_def/python_api/api_def_Add.pbtxt:3:3 replaces it\n"
        "  hint: remove it, or make the change in the later override: an `endpoint` list (an OpGenOverride "
        "`rename_to` or `alias` alike) replaces all the op's names before it, aliases included\n"
        "ov/zz.pbtxt:4:3: error: Add: `input_rename` of 'x' has no effect: the `rename_to` of in_arg 'x' at "
        "ov/api_def/python_api/api_def_Add.pbtxt:5:22 replaces it\n"
        "  hint: remove it, or make the change in the later override: of the overrides setting a part, the last "
        "merged wins (layers merge in order: a directory's files, then its subdirectories)\n"
        "2 errors in 1 file\n")
    # without the dead lines: OK, and "changed by" names the ApiDef layer's lines only
    (tmp_path / "ov" / "zz.pbtxt").unlink()
    assert cli.main(["oplist", "ops.pbtxt", "--api", "--overrides", "ov"]) == 0
    assert ("python: def plus(data, y, name=None) [VISIBLE]\naliases: add (deprecated)\nchanged by: "
            "ov/api_def/python_api/api_def_Add.pbtxt:3:3, ov/api_def/python_api/api_def_Add.pbtxt:4:3, "
            "ov/api_def/python_api/api_def_Add.pbtxt:5:3\n") in capsys.readouterr().out


@pytest.mark.parametrize(("files", "expected"), [
    pytest.param({"a.pbtxt": 'op { name: "Add" rename_to: "Plus" }',
                  "b/c.pbtxt": 'op { name: "Add" hide: true }'}, "", id="hide-keeps-the-rename"),
    pytest.param({"a.pbtxt": 'op { name: "Add" rename_to: "Plus" }',
                  "b/c.pbtxt": 'op { name: "Add" alias: "Sum" }'}, "", id="alias-keeps-the-rename"),
    pytest.param({"a.pbtxt": 'op { name: "Add" alias: "Sum" }',
                  "b/c.pbtxt": 'op { name: "Add" rename_to: "Plus" }'},
                 'a.pbtxt:1:18: error: Add: `alias: "Sum"` has no effect: `rename_to: "Plus"` at b/c.pbtxt:1:18 '
                 "replaces it", id="rename-drops-the-aliases"),
    pytest.param({"a.pbtxt": 'op { graph_op_name: "Add" endpoint { name: "Plus" } endpoint { name: "Sum" } }',
                  "b/c.pbtxt": 'op { name: "Add" alias: "Total" }'},
                 'a.pbtxt:1:53: error: Add: `endpoint { name: "Sum" }` has no effect: `alias: "Total"` at '
                 "b/c.pbtxt:1:18 replaces it", id="alias-keeps-the-first-endpoint-only"),
    pytest.param({"a.pbtxt": 'op { graph_op_name: "Add" endpoint { name: "Plus" } endpoint { name: "Sum" } }',
                  "b/c.pbtxt": 'op { name: "Add" hide: true }'}, "", id="hide-keeps-every-endpoint"),
    pytest.param({"a.pbtxt": 'op { graph_op_name: "Add" description: "D" description_prefix: "P" }',
                  "b/c.pbtxt": 'op { graph_op_name: "Add" description_suffix: "S" }'}, "", id="suffix-adds"),
    pytest.param({"a.pbtxt": 'op { graph_op_name: "Add" in_arg { name: "x" rename_to: "a" description: "D" } }',
                  "b/c.pbtxt": 'op { graph_op_name: "Add" in_arg { name: "x" rename_to: "b" } }'},
                 "a.pbtxt:1:46: error: Add: the `rename_to` of in_arg 'x' has no effect: the `rename_to` of "
                 "in_arg 'x' at b/c.pbtxt:1:46 replaces it", id="an-arg-field-by-field"),
    pytest.param({"a.pbtxt": 'op { name: "Resize" attr_default { name: "scale" value { i: 3 } } '
                             'attr_rename { from: "scale" to: "factor" } }',
                  "b/c.pbtxt": 'op { graph_op_name: "Resize" attr { name: "scale" default_value { i: 4 } } }'},
                 "a.pbtxt:1:21: error: Resize: `attr_default` of 'scale' has no effect: the `default_value` of "
                 "attr 'scale' at b/c.pbtxt:1:51 replaces it", id="an-attr-default-not-its-rename"),
])
def test_a_field_is_dead_only_when_every_part_it_set_is_set_again(tmp_path, monkeypatch, files, expected):
    _write(tmp_path, files)
    assert _errors(tmp_path, monkeypatch) == ([expected] if expected else [])


def test_a_later_entry_of_one_layer_replaces_alike(tmp_path, monkeypatch):
    """With `merge_overrides`, entries of one layer merge in load order: a later one replaces too."""
    _write(tmp_path, {"a.pbtxt": 'op { name: "Add" input_rename { from: "x" to: "a" } }',
                      "b.pbtxt": 'op { name: "Add" input_rename { from: "x" to: "b" } }'})
    assert _errors(tmp_path, monkeypatch, merge=True) == [
        ("a.pbtxt:1:18: error: Add: `input_rename` of 'x' has no effect: `input_rename` of 'x' at b.pbtxt:1:18 "
        "replaces it")]


def test_a_field_that_changes_nothing_is_not_named_as_a_change(tmp_path):
    """`opgen oplist --api`'s "changed by" (`ApiModel.provenance`) lists the fields that changed
    something: an `in_arg` naming its input only (TF's files write such blocks) is left out."""
    _write(tmp_path, {"a.pbtxt": 'op {\n  graph_op_name: "Add"\n  in_arg { name: "x" }\n'
                                 '  in_arg { name: "y" rename_to: "other" }\n}\n'})
    model = load_overrides(tmp_path, OPS)
    assert [str(loc).removeprefix(f"{tmp_path}/") for loc in model.provenance["Add"]] == ["a.pbtxt:4:3"]


@pytest.mark.parametrize(("endpoints", "expected"), [
    ('endpoint { name: "math.add" } endpoint { name: "add" deprecated: true }', ""),  # TF's: two namespaces
    ('endpoint { name: "plus" } endpoint { name: "plus" deprecated: true }',
     ("a.pbtxt:1:53: error: Add: API name 'plus' is listed twice: the one at a.pbtxt:1:27 names the function, so "
     "this one's `deprecated: true` would have no effect (the function itself cannot be deprecated)")),
    ('endpoint { name: "Plus" } endpoint { name: "plus" }',
     ("a.pbtxt:1:53: error: Add: API name 'plus' gives the same Python name as 'Plus': the one at a.pbtxt:1:27 "
     "names the function, so this one would bind no alias")),
    ('endpoint { name: "add" } endpoint { name: "math.sum" } endpoint { name: "math.sum" deprecated: true }',
     ("a.pbtxt:1:82: error: Add: API name 'math.sum' is listed twice: the one at a.pbtxt:1:52 binds that alias "
     "already, so this one would bind nothing")),
])
def test_an_endpoint_repeating_a_name_of_its_namespace(tmp_path, monkeypatch, endpoints, expected):
    """trial37 #7: the same name twice (a copy-paste slip) is reported at the second; TF's
    `math.add` beside `add` are two names in TF and one here, as documented."""
    _write(tmp_path, {"a.pbtxt": f'op {{ graph_op_name: "Add" {endpoints} }}'})
    assert _errors(tmp_path, monkeypatch) == ([expected] if expected else [])


def test_a_field_setting_the_value_already_there_is_an_error_at_it(tmp_path, monkeypatch):
    """A rename to the name a part has already (the op's own, or one an earlier layer set) changes
    nothing: an error at that field, the earlier field keeping its effect; golden cases
    error_field_changes_nothing and error_apidef_field_changes_nothing hold the other forms."""
    _write(tmp_path, {"a.pbtxt": 'op { name: "Add" rename_to: "Plus" input_rename { from: "y" to: "b" } }\n',
                      "sub/b.pbtxt": 'op { name: "Add" rename_to: "plus" input_rename { from: "y" to: "b" } }\n'})
    assert _errors(tmp_path, monkeypatch) == [
        ("sub/b.pbtxt:1:18: error: Add: `rename_to: \"plus\"` changes nothing: the op's Python names are plus "
         "already (set so at a.pbtxt:1:18)"),
        ("sub/b.pbtxt:1:36: error: Add: `input_rename` of 'y' changes nothing: input 'y' is named 'b' already "
         "(set so at a.pbtxt:1:36)")]


def test_tf_forms_that_restate_nothing_new_stay_accepted(tmp_path):
    """Forms TF's own api_def files use as structure are not no-op errors: an `in_arg` block
    with its name only or with a description, an attr default equal to the op's (TF's
    base_api/api_def_Squeeze.pbtxt), a namespaced endpoint naming the op's function."""
    _write(tmp_path, {"a.pbtxt": 'op { graph_op_name: "Resize" in_arg { name: "images" } '
                                 'in_arg { name: "size" description: "Height, width." } '
                                 'attr { name: "dims" default_value { list { } } } }\n',
                      "sub/b.pbtxt": 'op { graph_op_name: "Add" endpoint { name: "math.add" } }\n'})
    model = load_overrides(tmp_path, OPS)
    assert [str(loc).removeprefix(f"{tmp_path}/") for loc in model.provenance["Resize"]] == ["a.pbtxt:1:56",
                                                                                              "a.pbtxt:1:110"]
    assert model.api_defs["Add"].endpoint[0].name == "math.add"
