"""The parts of op-library loading that need no TensorFlow: the stale-library comparison
and its wording, `library` resolution errors, and the runtime's import hook.
(tests/tf/test_op_library_loading.py runs them with compiled libraries in fresh processes.)"""

from __future__ import annotations

import sys

import pytest
from google.protobuf import text_format

from opgen_runtime.proto import op_def_pb2
from opgen_runtime.tf import import_hooks, op_libraries
from opgen_runtime.tf.op_libraries import OpLibraryError

MODULE_OP = """
name: "Scale"
input_arg { name: "x" type_attr: "T" description: "the values" }
output_arg { name: "y" type_attr: "T" }
attr { name: "T" type: "type" allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } } }
attr { name: "factor" type: "float" default_value { f: 3 } }
attr { name: "N" type: "int" has_minimum: true minimum: 1 default_value { i: 2 } }
attr { name: "mode" type: "string" default_value { s: "fast" } }
summary: "Scales."
"""


def _op(edit: str = "") -> op_def_pb2.OpDef:
    """MODULE_OP with `edit` (`old => new` text replacements, `;`-separated)."""
    text = MODULE_OP
    for change in filter(None, edit.split(";")):
        old, new = change.split("=>")
        assert old.strip() in text, old
        text = text.replace(old.strip(), new.strip())
    return text_format.Parse(text, op_def_pb2.OpDef())


def _compare(library_edit: str) -> tuple[list[str], list[str]]:
    """(errors, notes) of the library's op edited so, against MODULE_OP."""
    errors, notes = op_libraries._compare({"Scale": _op()}, {"Scale": _op(library_edit)})
    assert set(errors) | set(notes) <= {"Scale"}
    return errors.get("Scale", []), notes.get("Scale", [])


@pytest.mark.parametrize(("edit", "error"), [
    ("f: 3 => f: 2", "op Scale: attr 'factor' default: module 3.0, library 2.0"),
    ('s: "fast" => s: "slow"', "op Scale: attr 'mode' default: module 'fast', library 'slow'"),
    ("default_value { f: 3 } =>", "op Scale: attr 'factor' default: module 3.0, library no default"),
    ('name: "x" => name: "values"', "op Scale: inputs: module (x: T), library (values: T)"),
    ('name: "y" => name: "out"', "op Scale: outputs: module (y: T), library (out: T)"),
    ("type: DT_FLOAT type: DT_DOUBLE => type: DT_FLOAT",
     "op Scale: attr 'T' allowed values: module [float32, float64], library [float32]"),
    ("minimum: 1 => minimum: 2", "op Scale: attr 'N' minimum: module 1, library 2"),
    ('type: "float" => type: "int"; f: 3 => i: 3', "op Scale: attr 'factor' type: module float, library int"),
    ('attr { name: "mode" type: "string" default_value { s: "fast" } } =>',
     "op Scale: attr 'mode' (string = 'fast'): in the module, not the library"),
    ('summary => attr { name: "extra" type: "bool" } summary',
     "op Scale: attr 'extra' (bool, no default): in the library, not the module"),
])
def test_incompatible_or_renamed_is_an_error_naming_op_and_field(edit, error):
    errors, notes = _compare(edit)
    assert (errors, notes) == ([error], [])


def test_every_difference_of_an_op_is_named_at_once():
    """A renamed input beside a breaking change is named too (one fix must not reveal the next),
    and a breaking change of an arg list is not restated as an accepted one."""
    errors, notes = _compare('name: "x" => name: "values"; f: 3 => f: 2; summary => is_stateful: true summary')
    assert errors == ["op Scale: attr 'factor' default: module 3.0, library 2.0",
                      "op Scale: inputs: module (x: T), library (values: T)"]
    assert notes == ["op Scale: is_stateful: module false, library true"]
    errors, _ = _compare('name: "x" type_attr: "T" => name: "x" type: DT_INT32')
    assert len(errors) == 1 and errors[0].startswith("op Scale: inputs: module (")


@pytest.mark.parametrize(("edit", "note"), [
    ('summary => attr { name: "extra" type: "float" default_value { f: 0.1 } } summary',
     "op Scale: attr 'extra' (float = 0.1): in the library, not the module"),
    ("type: DT_FLOAT type: DT_DOUBLE => type: DT_FLOAT type: DT_DOUBLE type: DT_HALF",
     "op Scale: attr 'T' allowed values: module [float32, float64], library [float32, float64, float16]"),
    ("has_minimum: true minimum: 1 =>", "op Scale: attr 'N' minimum: module 1, library no minimum"),
    ("summary => is_stateful: true summary", "op Scale: is_stateful: module false, library true"),
])
def test_compatible_change_is_a_note(edit, note):
    assert _compare(edit) == ([], [note])


def test_documentation_alone_is_no_difference():
    assert _compare('description: "the values" => ; summary: "Scales." => summary: "Other."') == ([], [])


def test_missing_package_of_a_resource_library_is_a_library_error():
    with pytest.raises(OpLibraryError) as raised:
        op_libraries.resolve_library("my_ops.gen_ops", "opgen_no_such_package:_ops.so")
    assert str(raised.value).startswith(
        "op library 'opgen_no_such_package:_ops.so' of module 'my_ops.gen_ops' names package "
        "'opgen_no_such_package', which cannot be imported as a package (No module named 'opgen_no_such_package')")


def test_call_when_imported_runs_after_the_module_executed(tmp_path, monkeypatch):
    (tmp_path / "opgen_hook_probe.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []
    import_hooks.call_when_imported("opgen_hook_probe", lambda module: seen.append(module.VALUE))
    assert seen == [] and "opgen_hook_probe" not in sys.modules
    import opgen_hook_probe  # noqa: F401

    assert seen == [42]
    assert "opgen_hook_probe" not in import_hooks._waiting  # done with once called
    import_hooks.call_when_imported("opgen_hook_probe", lambda module: seen.append(-module.VALUE))  # imported: now
    assert seen == [42, -42]
    monkeypatch.delitem(sys.modules, "opgen_hook_probe")
