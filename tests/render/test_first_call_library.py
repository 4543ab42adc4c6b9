"""A library whose ops need no attr conversion (tests/data/first_call_library): no attrs,
inferred type/number/type-list attrs only, no inputs, no outputs, list outputs, a hidden-only
op, one op per module. Each module imports exactly what its bodies use, and every wrapper
runs on its first call on the embedded runtime, in a tf.Graph and eagerly on TF (the library
compiled against the TF wheel)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.call_wrappers import (
    assert_all_called,
    check_build_dir,
    check_in_subprocess,
)
from support.paths import REPO
from support.projects import build_copy

from opgen.cli import main

LIBRARY = REPO / "tests" / "data" / "first_call_library"
MODULES = ("gen_hidden_only", "gen_inferred_number", "gen_inferred_type", "gen_list_outputs", "gen_no_attrs",
           "gen_no_inputs", "gen_no_outputs", "gen_type_list")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_copy(LIBRARY, tmp_path_factory.mktemp("first_call_library"))


def test_each_module_imports_exactly_what_it_uses(built):
    out = built / "first_call"
    assert sorted(p.stem for p in out.glob("*.py")) == list(MODULES)
    # F401: an import no body uses; F821: a name used but never imported or defined.
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F401,F821", str(out)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout
    hidden = (out / "gen_hidden_only.py").read_text()
    assert "import execute as _execute" in hidden and "_dispatch" not in hidden and "__all__ = []" in hidden
    assert "import dispatch as _dispatch" in (out / "gen_no_attrs.py").read_text()


def test_every_wrapper_runs_on_the_embedded_runtime(built):
    reports = check_build_dir(built / "first_call", tf=False)
    assert_all_called(reports, strict=True)
    assert sum(r.calls for r in reports) == len(MODULES)


@pytest.mark.oracle
def test_every_wrapper_runs_on_tensorflow(built, tf):
    """On both backends, in graph mode and eagerly, the library loaded by each module."""
    from oracle.cxx_build import compile_op_library

    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    out = built / "first_call"
    shutil.copy(compile_op_library(LIBRARY / "first_call_ops.cc", "_first_call_ops.so"), out / "_first_call_ops.so")
    env = dict(os.environ, PYTHONPATH=f"{out}{os.pathsep}{REPO}", TF_CPP_MIN_LOG_LEVEL="3")
    reports = check_in_subprocess(sorted(out.glob("gen_*.py")), env, tf=True, tf_eager=True)
    assert_all_called(reports, strict=True)
    assert [r.tf_skipped for r in reports] == [[]] * len(MODULES)
    assert sum(r.calls for r in reports) == 3 * len(MODULES)


def test_a_library_built_from_its_oplist_runs(tmp_path, monkeypatch):
    """The same ops through an OpList file (`opgen oplist`, then `opgen build ops.pbtxt`)."""
    shutil.copytree(LIBRARY, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    assert main(["oplist", "first_call_ops.cc", "-o", "ops.pbtxt"]) == 0
    assert main(["build", "ops.pbtxt", "--out", "from_oplist"]) == 0
    reports = check_build_dir(tmp_path / "from_oplist", tf=False)
    assert_all_called(reports, strict=True)
    assert sum(r.calls for r in reports) == len(MODULES)


def test_free_globals_follow_python_scoping():
    from opgen.render.emit import ChunkUses, free_globals

    code = '''
T = TypeVar("T", _atypes.Int32)


def f(x: Annotated[Any, T], collections=None, name=None):
    """Uses _dtypes.float32 and _dispatch.bound only in its docstring."""
    _ctx = _execute.eager_context()
    ys = [_op_def_library.thing(_i) for _i in x]
    s = "_registry.register_op_list"
    return len(ys), collections


g = f
'''
    assert free_globals(code) == {"TypeVar", "_atypes", "Annotated", "Any", "_execute", "_op_def_library"}
    assert ChunkUses.of(code) == ChunkUses(
        ("atypes", "execute", "op_def_library"), ("Annotated", "Any", "TypeVar"), False
    )
    assert free_globals("def broken(:\n") == frozenset()
