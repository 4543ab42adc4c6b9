"""A user's template errors name the template as given (`--templates DIR`) and its line;
invalid Python from a custom template names the op and the template; a name looked up in
vain gets a hint naming what is there."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from support.paths import REPO

from opgen.cli import main
from opgen.python_api.function import FunctionApi


@pytest.fixture
def build(tmp_path, monkeypatch, capsys):
    (tmp_path / "cc").mkdir()
    (tmp_path / "cc" / "a.cc").write_text('#include "tensorflow/core/framework/op.h"\n'
                                          'REGISTER_OP("Fine").Input("x: float").Output("y: float");\n')
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["cc"]\n')
    monkeypatch.chdir(tmp_path)

    def build(first_lines: str, template: str = "function.py.j2", replace: tuple[str, str] = ("", "")) -> str:
        """The stderr of a failing build whose `template` starts with `first_lines` (and has
        `replace[0]`'s first occurrence replaced by `replace[1]`)."""
        shutil.rmtree(tmp_path / "tpl", ignore_errors=True)
        shutil.copytree(REPO / "templates", tmp_path / "tpl", ignore=shutil.ignore_patterns("__pycache__"))
        path = tmp_path / "tpl" / template
        text = (REPO / "templates" / template).read_text()
        assert replace[0] in text
        path.write_text(first_lines + text.replace(*replace, 1))
        assert main(["build", "--quiet", "--templates", "tpl"]) == 2
        assert not (tmp_path / "generated").exists()
        return capsys.readouterr().err

    return build


def test_syntax_error_names_the_template_path_and_line(build):
    err = build("\n{% if %}\n")
    assert err.startswith("tpl/function.py.j2:2: error: template error: Expected an expression, got "
                          "'end of statement block'\n  hint: fix the template in --templates")


def test_undefined_variable_has_its_line(build):
    err = build("\n\n{{ nope_var }}\n")
    assert err.startswith("tpl/function.py.j2:3: error: template error: 'nope_var' is undefined")


def test_invalid_python_names_the_op_and_the_template(build):
    err = build("\ndef (:\n")
    assert err.startswith("tpl/function.py.j2: error: black cannot format the generated code: cannot parse: ")
    assert ("\n    the code function.py.j2 rendered for op 'Fine' is not valid Python: invalid syntax, "
            "at its line 2: 'def (:'") in err


@pytest.mark.parametrize(("replace", "message"), [
    (("_registry.register_op_list(", "_registry.register_op_list(("), "'(' was never closed"),
    (("_registry.register_op_list(", "  _registry.register_op_list("), "unexpected indent"),
])
def test_invalid_python_from_the_registration_template_is_an_error(build, replace, message):
    """trial39 #2: the registration goes into the module as rendered (no formatter), so its
    invalid Python was written with exit 0 and broke every module's import."""
    err = build("", "module_registration.py.j2", replace)
    assert err.startswith("tpl/module_registration.py.j2: error: the code module_registration.py.j2 rendered for "
                          f"module gen_a is not valid Python: {message}, at its line "), err
    assert "\n  hint: fix the template in --templates\n" in err


def test_a_missing_include_is_located_at_the_including_line(build):
    """trial15 #14: it was located at the missing target with a bare message."""
    err = build('\n{% include "../cc/a.cc" %}\n')
    assert err.startswith("tpl/function.py.j2:2: error: template error: function.py.j2 includes '../cc/a.cc', which "
                          "--templates does not hold\n  hint: fix the template in --templates"), err


@pytest.mark.parametrize(("template", "typo", "meant", "names"), [
    ("module_header.py.j2", "header_docx", "header_doc", "header_doc, uses, exports, runtime_series"),
    ("module_registration.py.j2", "libary", "library",
     "op_defs, shape_fns, translated_fns, translated_shape_fns, library"),
])
def test_undefined_variable_hint_names_what_the_template_receives(build, template, typo, meant, names):
    err = build(f"\n{{{{ {typo} }}}}\n", template)
    assert err.startswith(f"tpl/{template}:2: error: template error: '{typo}' is undefined\n"
                          f"  hint: did you mean '{meant}'? {template} receives {names} (docs/templates.md); "
                          "fix the template in --templates\n"), err


def test_undefined_variable_far_from_any_name_lists_them_without_a_guess(build):
    err = build("{{ nope_var }}\n")
    assert "\n  hint: function.py.j2 receives f (docs/templates.md); fix the template in --templates\n" in err


def test_missing_attribute_of_the_function_api_lists_its_fields(build):
    err = build("\n\n{% if f.nmae %}{% endif %}\n")
    first, hint = err.splitlines()[:2]
    assert first == ("tpl/function.py.j2:3: error: template error: 'opgen.python_api.function.FunctionApi object' "
                     "has no attribute 'nmae'")
    assert hint.startswith("  hint: did you mean 'name'? a FunctionApi has op_name, name, "), hint
    listed = hint.split(" has ", 1)[1].split(" (docs/templates.md)")[0].split(", ")
    assert listed == [f.name for f in dataclasses.fields(FunctionApi)] + ["inputs", "attrs", "signature_text"]


def test_missing_attribute_of_a_param_and_of_a_dict(build):
    err = build("{% for p in f.params %}{{ p.anotation }}{% endfor %}\n")
    assert err.startswith("tpl/function.py.j2:1: error: template error: 'opgen.python_api.function.Param object' "
                          "has no attribute 'anotation'\n  hint: did you mean 'annotation'? a Param has name, keyword, "
                          "op_def_name, kind, annotation, default, doc, attr_type, converter, is_list, local "
                          "(docs/templates.md); fix the template in --templates\n"), err
    err = build("{{ uses.runtim }}\n", "module_header.py.j2")
    assert err.startswith("tpl/module_header.py.j2:1: error: template error: 'dict object' has no attribute 'runtim'\n"
                          "  hint: did you mean 'runtime'? the dict has keys noqa, collections, typing, runtime "
                          "(docs/templates.md); fix the template in --templates\n"), err


def test_missing_attribute_of_a_plain_value_keeps_the_plain_hint(build):
    err = build("\n{{ f.name.uper() }}\n")
    assert err.startswith("tpl/function.py.j2:2: error: template error: 'str object' has no attribute 'uper'\n"
                          "  hint: fix the template in --templates\n"), err


@pytest.mark.parametrize("line", [
    "{{ f.nmae | py_str }}",  # a filter given an undefined value
    '{{ [f.nmae] | str_list }}',  # ... in a list
    "{% if f.nmae is identifier %}{% endif %}",  # the `identifier` test
])
def test_undefined_value_given_to_a_filter_is_the_undefined_error(build, line):
    """It was `template function.py.j2 raised TypeError: expected string or bytes-like
    object, got 'StrictUndefined'`."""
    err = build(f"\n{line}\n")
    assert err.startswith("tpl/function.py.j2:2: error: template error: 'opgen.python_api.function.FunctionApi "
                          "object' has no attribute 'nmae'\n  hint: did you mean 'name'? a FunctionApi has "), err


def test_a_templates_mistake_is_one_error_naming_the_ops_it_fails(build, tmp_path):
    """trial28 #1: a typo in function.py.j2 failed each of 43 ops the same way, printed 43
    times; it is one error at the template's line, naming how many ops it fails."""
    (tmp_path / "cc" / "b.cc").write_text('#include "tensorflow/core/framework/op.h"\n' + "".join(
        f'REGISTER_OP("More{i}").Output("y: float");\n' for i in range(5)))
    err = build("\n{{ f.op_nmae }}\n")
    assert err.count("error: template error") == 1, err
    assert ("tpl/function.py.j2:2: error: template error: 'opgen.python_api.function.FunctionApi object' has no "
            "attribute 'op_nmae' (rendering each of 6 ops: Fine, More0, More1 and 3 more)") in err
    assert err.endswith("1 error in 1 file\n")


def test_a_templates_mistake_one_op_triggers_names_that_op(build, tmp_path):
    """trial39 #11: the ops were named only when several failed."""
    (tmp_path / "cc" / "b.cc").write_text('#include "tensorflow/core/framework/op.h"\n'
                                          'REGISTER_OP("Odd").Output("y: float").Attr("n: int = 3");\n')
    err = build("\n{% if f.attrs %}{{ f.attrs[0].nmae }}{% endif %}\n")
    assert ("tpl/function.py.j2:2: error: template error: 'opgen.python_api.function.Param object' has no attribute "
            "'nmae' (rendering op Odd)\n") in err, err


@pytest.mark.parametrize(("given", "what"), [("nosuch", "does not exist"), ("cc/a.cc", "is not a directory")])
def test_a_templates_directory_that_is_not_there_says_so(build, capsys, given, what):
    """trial39 #7: it said `nosuch/module_header.py.j2 not found`."""
    assert main(["build", "--quiet", "--templates", given]) == 2
    assert capsys.readouterr().err.startswith(f"{given}: error: templates directory {given} {what}\n  hint: "
                                              "--templates must name a directory holding module_header.py.j2, ")
