"""A user's template errors name the template as given (`--templates DIR`) and its line;
invalid Python from a custom template names the op and the template."""

from __future__ import annotations

import shutil

import pytest
from support.paths import REPO

from opgen.cli import main


@pytest.fixture
def build(tmp_path, monkeypatch, capsys):
    (tmp_path / "cc").mkdir()
    (tmp_path / "cc" / "a.cc").write_text('#include "tensorflow/core/framework/op.h"\n'
                                          'REGISTER_OP("Fine").Input("x: float").Output("y: float");\n')
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["cc"]\n')
    shutil.copytree(REPO / "templates", tmp_path / "tpl", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(tmp_path)

    def build(first_lines: str) -> str:
        path = tmp_path / "tpl" / "function.py.j2"
        path.write_text(first_lines + (REPO / "templates" / "function.py.j2").read_text())
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


def test_a_missing_include_is_located_at_the_including_line(build):
    """trial15 #14: it was located at the missing target with a bare message."""
    err = build('\n{% include "../cc/a.cc" %}\n')
    assert err.startswith("tpl/function.py.j2:2: error: template error: function.py.j2 includes '../cc/a.cc', which "
                          "--templates does not hold\n  hint: fix the template in --templates"), err
