"""Types a checker can use (docs/typing.md): mypy --strict and pyright over the example
library (generated/), a user's script that must check clean and run, and a script of
deliberate mistakes, each reported by both checkers on its line. TF's whole registry as
generated is checked in test_render_tf.py (its build is that file's fixture)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.type_checkers import REPO, pyright_missing, run_mypy, run_pyright

GENERATED = REPO / "generated"
SCRIPTS = REPO / "tests" / "data" / "typing"
USER_SCRIPT = SCRIPTS / "user_script.py"
MISTAKES = SCRIPTS / "mistakes.py"
TF_SCRIPT = SCRIPTS / "user_tf.py"
# The checkers' setting that makes results TensorFlow's classes (docs/typing.md).
TF_TYPES = "OPGEN_TENSORFLOW_TYPES"


def _corpus() -> list[Path]:
    return [*sorted(GENERATED.glob("gen_*.py")), USER_SCRIPT, MISTAKES]


def _planted() -> set[int]:
    lines = MISTAKES.read_text().splitlines()
    return {i for i, line in enumerate(lines, 1) if "  # mistake:" in line}


def _check(found: list[tuple[str, int, str]]) -> None:
    """No error outside the mistakes script; there, one error on each planted line and none elsewhere."""
    outside = [f for f in found if f[0] != MISTAKES.name]
    assert not outside, "\n".join(map(str, outside))
    per_line: dict[int, list[str]] = {}
    for _, line, message in found:
        per_line.setdefault(line, []).append(message)
    assert set(per_line) == _planted(), per_line
    assert all(len(messages) == 1 for messages in per_line.values()), per_line


def test_mypy_strict(tmp_path):
    _check(run_mypy(_corpus(), [GENERATED], tmp_path))


def test_pyright(tmp_path):
    missing = pyright_missing()
    if missing:
        pytest.skip(missing)
    _check(run_pyright(_corpus(), [GENERATED], tmp_path))


def test_pyright_tensorflow_types(tmp_path):
    """Told the code runs on TensorFlow, pyright accepts wrappers' results where TF's stubs ask
    for `tf.Tensor` (trial29: without it, most of this script's lines are errors), and the
    generated modules check clean under that setting too."""
    missing = pyright_missing()
    if missing:
        pytest.skip(missing)
    modules = sorted(GENERATED.glob("gen_*.py"))
    assert run_pyright([*modules, TF_SCRIPT], [GENERATED], tmp_path, {TF_TYPES: True}) == []
    untold = run_pyright([TF_SCRIPT], [GENERATED], tmp_path)
    assert {f[0] for f in untold} == {TF_SCRIPT.name} and len({f[1] for f in untold}) >= 5, untold


def test_mypy_tensorflow_types(tmp_path):
    """The same setting for mypy (`always_true`): the generated modules and the script check clean
    (TF's classes from TF's stubs where installed, else `Any`, as TF's own wrappers' results)."""
    modules = sorted(GENERATED.glob("gen_*.py"))
    assert run_mypy([*modules, TF_SCRIPT], [GENERATED], tmp_path, (TF_TYPES,)) == []


def test_user_script_runs():
    """The script the checkers accept also runs, on the embedded runtime."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(GENERATED), str(REPO)]), OPGEN_BACKEND="embedded")
    proc = subprocess.run([sys.executable, str(USER_SCRIPT)], capture_output=True, text=True, check=False, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Mean" in proc.stdout and "Unique" in proc.stdout, proc.stdout


@pytest.mark.oracle
def test_user_script_runs_on_tensorflow(tf):
    """Its TensorFlow part (the results' operators, indexing, `.numpy()`) runs on TF's tensors."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(GENERATED), str(REPO)]), OPGEN_BACKEND="tensorflow")
    proc = subprocess.run([sys.executable, str(USER_SCRIPT), "tensorflow"], capture_output=True, text=True,
                          check=False, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == ["[4.0, 6.0, 8.0, 10.0]", "4.0", "[-4.0, -4.0]", "[3, 1]", "float32"]


@pytest.mark.oracle
def test_tf_script_runs_on_tensorflow(tf):
    """The TensorFlow program the checkers accept under `OPGEN_TENSORFLOW_TYPES` runs."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(GENERATED), str(REPO)]), OPGEN_BACKEND="tensorflow")
    proc = subprocess.run([sys.executable, str(TF_SCRIPT)], capture_output=True, text=True, check=False, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-8:] == ["[0.0, -7.0, 28.0, 21.0]", "[4, 1]", "[[2.0, 0.0], [4.0, 5.0]]",
                                             "[3, 2]", "[3, 1]", "True", "float32", "[25.0, 36.0]"], proc.stdout
