"""Op libraries register with TensorFlow as soon as TF could need them, never twice, and a
stale library is caught (`opgen_runtime.tf.op_libraries`, docs/custom-ops.md).

The package `pkg` (tests/data/op_library_loading) is one build with two libraries
(`[tool.opgen.libraries]`): `pkg.ops.gen_scale_ops` loads `_scale_ops.so` beside it,
`pkg.ops.gen_shift_ops` loads `pkg.ops:_shift_ops.so`. `pkg2` is a copy of the same
generated modules with its own copy of `_scale_ops.so` (a second file with the same
kernels) and the same `pkg.ops:_shift_ops.so` (the same file). Every scenario runs in a
fresh interpreter, as a user's program does; the libraries are compiled with g++ against
the TF wheel, cached by content hash (`oracle.cxx_build`), stale variants with `-D`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from support.paths import REPO

pytestmark = pytest.mark.oracle

DATA = REPO / "tests" / "data" / "op_library_loading"

# What each stale build of scale_ops.cc changes against the wrappers (built from the plain source).
VARIANTS = ("STALE_CHANGED_DEFAULT", "STALE_ADDED_ATTR", "STALE_RENAMED_INPUT", "COMPATIBLE_ADDED_ATTR")


@pytest.fixture(scope="module")
def libraries(tf) -> dict[str, Path]:
    """The compiled libraries: "scale", "shift", and each stale variant of scale_ops.cc."""
    from oracle.cxx_build import compile_op_library

    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    built = {
        "scale": compile_op_library(DATA / "scale_ops.cc", "_scale_ops.so"),
        "shift": compile_op_library(DATA / "shift_ops.cc", "_shift_ops.so"),
    }
    for variant in VARIANTS:
        built[variant] = compile_op_library(DATA / "scale_ops.cc", "_scale_ops.so", (variant,))
    return built


def _package(root: Path, libraries: dict[str, Path], scale: str = "scale") -> Path:
    """The project in `root`: `opgen build` run, `pkg` and `pkg2` with their libraries."""
    shutil.copytree(DATA, root, dirs_exist_ok=True)
    ops = root / "pkg" / "ops"
    ops.mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (ops / "__init__.py").write_text(
        "from .gen_scale_ops import *  # noqa: F403\nfrom .gen_shift_ops import *  # noqa: F403\n"
    )
    build = subprocess.run([sys.executable, "-m", "opgen", "build"], cwd=root, capture_output=True, text=True,
                           env=_env(root), check=False)
    assert build.returncode == 0, build.stderr
    shutil.copy(libraries[scale], ops / "_scale_ops.so")
    shutil.copy(libraries["shift"], ops / "_shift_ops.so")
    shutil.copytree(root / "pkg", root / "pkg2")
    return root


def _env(root: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=f"{root}{os.pathsep}{REPO}", TF_CPP_MIN_LOG_LEVEL="3")


def _start(root: Path, script: str) -> subprocess.Popen[str]:
    """`script` run from a file in `root` (so tracebacks quote its lines), with `out` to fill."""
    with tempfile.NamedTemporaryFile("w", dir=root, prefix="script_", suffix=".py", delete=False) as file:
        file.write("import json, sys, warnings\nout = {}\n" + script + "\nprint(json.dumps(out))\n")
    return subprocess.Popen([sys.executable, file.name], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=_env(root))


def _finish(process: subprocess.Popen[str], ok: bool = True) -> tuple[dict, str]:
    """(the script's `out`, its stderr); the exit status must be 0 when `ok`, else 1."""
    stdout, stderr = process.communicate()
    assert process.returncode == (0 if ok else 1), stderr[-3000:]
    return (json.loads(stdout.strip().splitlines()[-1]) if ok else {}), stderr


def _run(root: Path, script: str) -> dict:
    return _finish(_start(root, script))[0]


SAVE = """
import tensorflow as tf
import pkg.ops as ops

class Model(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        return ops.opgen_ll_shift(ops.opgen_ll_scale(x))

model = Model()
out["called"] = model(tf.constant([1.0, 2.0])).numpy().tolist()
tf.saved_model.save(model, "model")
"""


@pytest.fixture(scope="module")
def project(libraries, tmp_path_factory) -> Path:
    """The package, and `model/`: a SavedModel whose function runs both custom ops."""
    root = _package(tmp_path_factory.mktemp("op_library_loading"), libraries)
    assert _run(root, SAVE) == {"called": [3.0, 5.0]}  # 2x + 1
    return root


def test_one_build_names_a_library_per_module(project):
    assert 'library="_scale_ops.so"' in (project / "pkg" / "ops" / "gen_scale_ops.py").read_text()
    assert 'library="pkg.ops:_shift_ops.so"' in (project / "pkg" / "ops" / "gen_shift_ops.py").read_text()


LOAD_MODEL = """
import tensorflow as tf
warnings.simplefilter("error")  # no OpLibraryWarning, nor any other
model = tf.saved_model.load("model")
out["model"] = model(tf.constant([1.0, 2.0])).numpy().tolist()
dataset = tf.data.Dataset.from_tensor_slices([[1.0], [3.0]]).map(model)
out["dataset"] = [t.numpy().tolist() for t in dataset]
"""


def test_saved_model_in_a_fresh_process_tensorflow_imported_after_the_packages(project):
    """No wrapper runs: the libraries register when TF is imported (the import hook). Two
    packages name the same libraries (pkg2: a copy of one file, and the other file itself)."""
    script = """
import pkg.ops, pkg2.ops
assert "tensorflow" not in sys.modules, "importing the modules imported TensorFlow"
""" + LOAD_MODEL + """
out["pkg2"] = [pkg2.ops.opgen_ll_scale([1.0]).numpy().tolist(), pkg2.ops.opgen_ll_shift([1.0]).numpy().tolist()]
"""
    out = _run(project, script)
    assert out == {"model": [3.0, 5.0], "dataset": [[3.0], [7.0]], "pkg2": [[2.0], [2.0]]}


def test_saved_model_in_a_fresh_process_tensorflow_imported_first(project):
    """The libraries register at the module's import; a copy of the scale library the user
    loaded first (`tf.load_op_library`) is used, not loaded a second time."""
    script = """
import tensorflow as tf
import shutil
shutil.copy("pkg/ops/_scale_ops.so", "user_copy.so")
user = tf.load_op_library("./user_copy.so")
import pkg.ops, pkg2.ops
""" + LOAD_MODEL + """
out["calls"] = [pkg.ops.opgen_ll_scale([1.0], factor=4.0).numpy().tolist(),
                pkg2.ops.opgen_ll_scale([1.0]).numpy().tolist(), user.opgen_ll_scale([1.0]).numpy().tolist()]
"""
    out = _run(project, script)
    assert out == {"model": [3.0, 5.0], "dataset": [[3.0], [7.0]], "calls": [[4.0], [2.0], [2.0]]}


def test_load_op_libraries_before_saved_model_load(project):
    """The public call registers the libraries of imported modules; a second call does nothing."""
    script = """
import pkg.ops
from opgen_runtime import load_op_libraries
load_op_libraries()
load_op_libraries(pkg.ops.gen_scale_ops, "pkg.ops.gen_shift_ops")
import tensorflow as tf
out["model"] = tf.saved_model.load("model")(tf.constant([2.0])).numpy().tolist()
"""
    assert _run(project, script) == {"model": [5.0]}


STALE_DEFAULT = "op OpgenLlScale: attr 'factor' default: module 2.0, library 3.0; rebuild the library or the wrappers"
STALE_ATTR = "op OpgenLlScale: attr 'offset' (float, no default): in the library, not the module"
STALE_INPUT = "op OpgenLlScale: inputs: module (x: float), library (values: float)"
COMPATIBLE_ATTR = "op OpgenLlScale: attr 'offset' (float = 0.0): in the library, not the module"


def test_stale_libraries_are_errors_and_compatible_ones_warnings(libraries, tmp_path):
    """Each stale build of scale_ops.cc in its own process (run side by side): the error
    on import (TF first), on first use and from `load_op_libraries()` (TF imported after
    the module: a warning then); a compatible change warns and works."""
    runs = {}
    for variant, script in {
        "STALE_CHANGED_DEFAULT": "import tensorflow\nimport pkg.ops\n",
        "STALE_ADDED_ATTR": "import pkg.ops\nimport tensorflow\nprint('imported', file=sys.stderr)\n"
                            "pkg.ops.opgen_ll_scale([1.0])\n",
        "STALE_RENAMED_INPUT": "import pkg.ops\nfrom opgen_runtime import load_op_libraries\nload_op_libraries()\n",
        "COMPATIBLE_ADDED_ATTR": "import tensorflow as tf\nimport pkg.ops\nprint('imported', file=sys.stderr)\n"
                                 "out['call'] = pkg.ops.opgen_ll_scale([1.0]).numpy().tolist()\n",
    }.items():
        runs[variant] = _start(_package(tmp_path / variant, libraries, scale=variant), script)
    results = {variant: _finish(process, ok=variant.startswith("COMPATIBLE")) for variant, process in runs.items()}

    error = "opgen_runtime.tf.op_libraries.OpLibraryError: op library "
    _, stderr = results["STALE_CHANGED_DEFAULT"]
    assert stderr.splitlines()[-1].startswith(error) and stderr.splitlines()[-1].endswith(STALE_DEFAULT)
    assert "_scale_ops.so of module 'pkg.ops.gen_scale_ops' does not match the module: " in stderr
    assert "import pkg.ops" in stderr  # raised by the import

    _, stderr = results["STALE_ADDED_ATTR"]
    warned, raised = stderr.split("imported\n")
    assert "OpLibraryWarning: " in warned and STALE_ATTR in warned
    assert raised.splitlines()[-1].startswith(error) and STALE_ATTR in raised.splitlines()[-1]
    assert "opgen_ll_scale" in raised  # raised by the first call

    _, stderr = results["STALE_RENAMED_INPUT"]
    assert stderr.splitlines()[-1].startswith(error) and STALE_INPUT in stderr.splitlines()[-1]
    assert "load_op_libraries()" in stderr

    out, stderr = results["COMPATIBLE_ADDED_ATTR"]
    assert out == {"call": [2.0]}
    warned = stderr.split("imported\n")[0]
    assert (
        "OpLibraryWarning: op library " in warned and "differs compatibly from the module: " + COMPATIBLE_ATTR in warned
    )
    assert "Error" not in stderr
