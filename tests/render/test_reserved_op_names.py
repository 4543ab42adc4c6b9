"""Ops whose Python name is reserved (`Lambda`, `Print`): the same functions as TF 2.21's
generator (`GetPythonWrappers`: none for a visible reserved name), and a located warning
saying so, with the override that gives one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.call_wrappers import check_module
from support.paths import REPO

from opgen.cli import main

# (`Float`, `Len`: a deliberate difference, docs/cli.md: a function named like a builtin the bodies
# call gets a trailing `_`.)
NAMES = ["Lambda", "Print", "Pass", "Class", "Exec", "None", "Abs", "Fine"]


def _build(tmp_path: Path, capsys, names: list[str] = NAMES) -> tuple[set[str], str]:
    (tmp_path / "cc").mkdir()
    (tmp_path / "cc" / "r.cc").write_text(
        '#include "tensorflow/core/framework/op.h"\n'
        + "".join(f'REGISTER_OP("{n}").Input("x: float").Output("y: float");\n' for n in names))
    # the sources declare TF's own ops on purpose: keep them (docs/gathering.md, core ops)
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\ncore_ops = ["*"]\nsources = ["cc"]\nout = "out"\n')
    assert main(["build", "--quiet", "--out", str(tmp_path / "out"), str(tmp_path / "cc")]) == 0
    text = (tmp_path / "out" / "gen_r.py").read_text()
    return set(re.findall(r"^def (\w+)", text, re.M)), capsys.readouterr().err


def test_reserved_op_names_warn(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    functions, err = _build(tmp_path, capsys)
    assert "lambda" not in functions and "print" not in functions
    # One warning for all of them (TF's registry has a dozen), at the first.
    [warning] = [line for line in err.splitlines() if ": warning: " in line]
    assert warning.endswith("cc/r.cc:2:1: warning: 5 ops get no Python function: their names are Python keywords or "
                            "reserved names (TensorFlow's generated wrappers skip them too): 'Lambda', 'Print', "
                            "'Pass', 'Class', 'Exec'")
    assert 'rename_to: "LambdaOp"' in err and "_lambda" in err


def test_one_reserved_op_name(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    functions, err = _build(tmp_path, capsys, ["Print", "Fine"])
    assert functions == {"fine"}
    assert err.endswith("cc/r.cc:2:1: warning: op 'Print' gets no Python function: its name 'print' is a Python "
                        "keyword or reserved name (TensorFlow's generated wrappers skip it too)\n"
                        '  hint: give it another name with an override (op { name: "Print" rename_to: "PrintOp" }, '
                        'or an ApiDef\'s endpoint { name: "PrintOp" }) or hide it (hide: true, or visibility: HIDDEN, '
                        "generates _print)\n")


@pytest.mark.oracle
def test_same_functions_as_tf(tmp_path, capsys, monkeypatch, tf):
    from tensorflow.python.framework import _pywrap_python_op_gen

    from opgen_runtime.proto import op_def_pb2

    monkeypatch.chdir(tmp_path)
    functions, _ = _build(tmp_path, capsys)
    op_list = op_def_pb2.OpList()
    for n in NAMES:
        op = op_list.op.add(name=n)
        op.input_arg.add(name="x", type=1)
        op.output_arg.add(name="y", type=1)
    tf_src = _pywrap_python_op_gen.GetPythonWrappers(op_list.SerializeToString()).decode()
    tf_functions = {f for f in re.findall(r"^def (\w+)", tf_src, re.M) if not f.endswith("_eager_fallback")}
    assert functions == tf_functions


def test_functions_named_like_annotated_builtins_get_a_trailing_underscore(tmp_path, capsys, monkeypatch):
    """`Int`, `Str`, `Bool` would give functions the annotations of the whole module read in place
    of the builtins (every wrapper's `name: str | None`), at run time (`typing.get_type_hints`)
    as type checkers do."""
    monkeypatch.chdir(tmp_path)
    functions, _ = _build(tmp_path, capsys, ["Int", "Str", "Bool", "Fine"])
    assert functions == {"int_", "str_", "bool_", "fine"}
    assert check_module(tmp_path / "out" / "gen_r.py").crashes == []


def test_each_warning_once_per_build(tmp_path):
    """A real `opgen build` (a fresh process, 2 workers and enough ops that rendering forks them,
    an empty format cache), then a rebuild after one op changed: each warning, the reserved-name
    one among them, is on stderr once per build."""
    (tmp_path / "cc").mkdir()
    ops = "".join(f'REGISTER_OP("Op{i}").Input("x: float").Output("y: float");\n' for i in range(300))
    source = tmp_path / "cc" / "r.cc"
    source.write_text('#include "missing.h"\n'
                      'REGISTER_OP("Lambda").Input("x: float").Output("y: float");\n'
                      'REGISTER_OP("Print").Input("x: float").Output("y: float");\n' + ops)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\ncore_ops = ["*"]\nsources = ["cc"]\nout = "out"\njobs = 2\n')
    # buffered streams as a user's shell gives them: a buffer a forked worker inherits and flushes
    # again would print its text twice
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env.update(PYTHONPATH=str(REPO), XDG_CACHE_HOME=str(tmp_path / "cache"))
    for edit in ("", 'REGISTER_OP("Changed").Output("y: float");\n'):
        source.write_text(source.read_text() + edit)
        proc = subprocess.run([sys.executable, "-m", "opgen", "build"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        warnings = [line for line in proc.stderr.splitlines() if ": warning: " in line]
        assert len(warnings) == 2, proc.stderr
        assert len(set(warnings)) == 2, proc.stderr
        assert sum("get no Python function" in w for w in warnings) == 1, proc.stderr


NAMED_NAME = {
    "attr": ('REGISTER_OP("Tagged").Input("x: float").Output("y: float").Attr("name: string = \'tag\'");\n',
             'op { name: "Tagged" attr_rename { from: "name" to: "tag_name" } }\n'),
    "input": ('REGISTER_OP("Tagged").Input("name: T").Output("y: T").Attr("T: type");\n',
              'op { name: "Tagged" input_rename { from: "name" to: "value" } }\n'),
}


@pytest.mark.parametrize("kind", sorted(NAMED_NAME))
def test_an_arg_named_name_is_a_located_error_even_renamed(tmp_path, capsys, monkeypatch, kind):
    """`_apply_op_helper` takes the node's name as `name`, so no OpDef input or (passed) attr
    of that name can reach it: renaming the Python parameter wrote `name=..., name=name`, a
    module that does not compile. A located error, with or without the override."""
    monkeypatch.chdir(tmp_path)
    source, override = NAMED_NAME[kind]
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "t.cc").write_text(source)
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\nout = "gen"\n')
    column = source.index(".Attr" if kind == "attr" else ".Input") + 2  # at its declaration
    expected = (f"ops/t.cc:1:{column}: error: op Tagged: its {kind} 'name' cannot be passed to _apply_op_helper, "
                "whose own 'name' is the node's name")
    assert main(["build"]) == 2
    assert expected in capsys.readouterr().err.replace(str(tmp_path) + os.sep, "")
    (tmp_path / "overrides").mkdir()
    (tmp_path / "overrides" / "o.pbtxt").write_text(override)
    assert main(["build"]) == 2
    err = capsys.readouterr().err
    assert expected in err.replace(str(tmp_path) + os.sep, "") and f"hint: rename the {kind} in REGISTER_OP" in err
    assert not (tmp_path / "gen").exists()


def test_errors_of_different_ops_and_stages_come_in_one_run(tmp_path, capsys, monkeypatch):
    """The errors of every op (an input named `name`, an attr named `name`) and the module's
    name collisions (an op named like the module's `collections` import) come in one run, in
    source order; the ops without errors do not hide them, and nothing is written."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    Path("ops.cc").write_text('REGISTER_OP("First").Input("name: float").Output("y: float");\n'
                              'REGISTER_OP("Collections").Output("y: float");\n'
                              'REGISTER_OP("Third").Attr("name: int").Output("y: float");\n'
                              'REGISTER_OP("Fine").Output("y: float");\n')
    assert main(["build", "ops.cc", "--out", "gen"]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if ": error: " in line]
    assert [line.split(": error: ")[0] for line in errors] == ["ops.cc:1:22", "ops.cc:2:1", "ops.cc:3:22"]  # (the args)
    assert "input 'name'" in errors[0] and "'collections' of op Collections" in errors[1] and "attr 'name'" in errors[2]
    assert not Path("gen").exists()


def test_tfs_wrapper_of_an_arg_named_name_does_not_compile(tf):
    from tensorflow.python.framework import _pywrap_python_op_gen

    from opgen_runtime.proto import op_def_pb2

    op_list = op_def_pb2.OpList()
    op = op_list.op.add(name="Tagged")
    op.input_arg.add(name="x", type=1)
    op.output_arg.add(name="y", type=1)
    op.attr.add(name="name", type="string").default_value.s = b"tag"
    with pytest.raises(SyntaxError):
        compile(_pywrap_python_op_gen.GetPythonWrappers(op_list.SerializeToString()).decode(), "tf", "exec")


def test_ops_whose_names_collide_get_one_error_per_pair_at_the_later_op(tmp_path, capsys, monkeypatch):
    """`FooBar` and `FOOBar` both make `foo_bar` (and TF's `_dispatcher_for_foo_bar`): one error,
    located at the later op and naming where the earlier one is, as a duplicate op's error does;
    the names derived from the colliding one add none (trial31 #2). A third op of that name is
    another pair. `Foo_Bar` makes `foo__bar`: no collision."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    Path("snake.cc").write_text('REGISTER_OP("FooBar").Output("y: float");\n'
                                'REGISTER_OP("Foo_Bar").Output("y: float");\n'
                                'REGISTER_OP("FOOBar").Output("y: float");\n')
    assert main(["build", "snake.cc", "--out", "gen"]) == 2
    err = capsys.readouterr().err
    assert err == ("snake.cc:3:1: error: module gen_snake: name 'foo_bar' of op FOOBar is already used by op FooBar, "
                   "at snake.cc:1:1\n"
                   "  hint: rename one of the ops with an override (rename_to), or put them in different modules\n"
                   "1 error in 1 file\n"), err
    assert not Path("gen").exists()
    with Path("snake.cc").open("a") as f:
        f.write('REGISTER_OP("FooBAR").Output("y: float");\n')  # (`foo_bar` too)
    assert main(["build", "snake.cc", "--out", "gen"]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if ": error: " in line]
    assert errors == [
        f"snake.cc:{line}:1: error: module gen_snake: name 'foo_bar' of op {op} is already used by op FooBar, "
        "at snake.cc:1:1" for line, op in ((3, "FOOBar"), (4, "FooBAR"))
    ], errors
    assert not Path("gen").exists()
