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
VARIANTS = ("STALE_CHANGED_DEFAULT", "STALE_ADDED_ATTR", "STALE_RENAMED_INPUT", "STALE_LACKS_NEGATE",
            "COMPATIBLE_ADDED_ATTR")


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


def test_a_library_with_python_keyword_names_registers_and_runs_eagerly(project):
    """An op whose input, attr and outputs are named like Python keywords: the library loads
    (TF's `tf.load_op_library` would exec TF's generated wrappers, which do not compile for
    such names, and fail the whole library), and an eager call whose input TF's fast path
    declines (a Python list) reaches the renamed input (`in_`) in the fallback."""
    script = """
import tensorflow as tf
import pkg.ops
warnings.simplefilter("error")
result = pkg.ops.opgen_ll_keywords([1.0, 2.0], lambda_=3.0)
out["list"] = [result.is_.numpy().tolist(), result.from_.numpy().tolist()]
out["tensor"] = pkg.ops.opgen_ll_keywords(in_=tf.constant([2.0])).is_.numpy().tolist()
out["graph"] = tf.function(lambda x: pkg.ops.opgen_ll_keywords(x, lambda_=0.5).is_)(tf.constant([4.0])).numpy().tolist()
"""
    assert _run(project, script) == {"list": [[3.0, 6.0], [1.0, 2.0]], "tensor": [2.0], "graph": [2.0]}


STALE_DEFAULT = "op OpgenLlScale: attr 'factor' default: module 2.0, library 3.0; rebuild the library or the wrappers"
STALE_ATTR = "op OpgenLlScale: attr 'offset' (float, no default): in the library, not the module"
STALE_INPUT = "op OpgenLlScale: inputs: module (x: float), library (values: float)"
COMPATIBLE_ATTR = "op OpgenLlScale: attr 'offset' (float = 0.0): in the library, not the module"


def test_stale_libraries_are_errors_and_compatible_ones_warnings(libraries, tmp_path):
    """Each stale build of scale_ops.cc in its own process (run side by side): the error
    warned on import (TF first) or at `import tensorflow` and raised by the stale op's calls,
    and raised by `load_op_libraries()`; the module's other op, unchanged, runs (trial32 #9:
    one stale op failed every op of its module); a compatible change warns and works."""
    runs = {}
    for variant, script in {
        "STALE_CHANGED_DEFAULT": "import tensorflow\nimport pkg.ops\nprint('imported', file=sys.stderr)\n"
                                 "pkg.ops.opgen_ll_shift([1.0])\n"
                                 "print(pkg.ops.opgen_ll_negate([1.0]).numpy().tolist(), file=sys.stderr)\n"
                                 "pkg.ops.opgen_ll_scale([1.0])\n",
        "STALE_LACKS_NEGATE": "import pkg.ops\nimport tensorflow as tf\nfrom opgen_runtime import OpLibraryError\n"
                              "from opgen_runtime import load_op_libraries\nprint('imported', file=sys.stderr)\n"
                              "out['scale'] = tf.function(pkg.ops.opgen_ll_scale)([1.0]).numpy().tolist()\n"
                              "for call in (pkg.ops.opgen_ll_negate, tf.function(pkg.ops.opgen_ll_negate)):\n"
                              "    try:\n        call([1.0])\n"
                              "    except OpLibraryError as e:\n        out.setdefault('negate', []).append(str(e))\n"
                              "try:\n    load_op_libraries()\nexcept OpLibraryError as e:\n    out['load'] = str(e)\n",
        "STALE_ADDED_ATTR": "import pkg.ops\nimport tensorflow\nprint('imported', file=sys.stderr)\n"
                            "pkg.ops.opgen_ll_scale([1.0])\n",
        "STALE_RENAMED_INPUT": "import pkg.ops\nfrom opgen_runtime import load_op_libraries\nload_op_libraries()\n",
        # (a wrapper generated before the library gained an attr with a default does not pass it:
        # eager and graph mode both take the library's default)
        "COMPATIBLE_ADDED_ATTR": "import tensorflow as tf\nimport pkg.ops\nprint('imported', file=sys.stderr)\n"
                                 "out['call'] = pkg.ops.opgen_ll_scale([1.0]).numpy().tolist()\n"
                                 "f = tf.function(lambda: pkg.ops.opgen_ll_scale([1.0]))\n"
                                 "out['function'] = f().numpy().tolist()\n"
                                 "with tf.Graph().as_default():\n"
                                 "    op = pkg.ops.opgen_ll_scale([1.0]).op\n"
                                 "    out['graph_offset'] = op.get_attr('offset')\n",
    }.items():
        runs[variant] = _start(_package(tmp_path / variant, libraries, scale=variant), script)
    # (the scripts that catch the errors they expect end normally)
    results = {variant: _finish(process, ok=variant in ("COMPATIBLE_ADDED_ATTR", "STALE_LACKS_NEGATE"))
               for variant, process in runs.items()}

    error = "opgen_runtime.tf.op_libraries.OpLibraryError: op library "
    _, stderr = results["STALE_CHANGED_DEFAULT"]
    warned, raised = stderr.split("imported\n")
    assert "OpLibraryWarning: " in warned and STALE_DEFAULT in warned  # the import warns
    assert raised.splitlines()[-1].startswith(error) and raised.splitlines()[-1].endswith(STALE_DEFAULT)
    assert "_scale_ops.so of module 'pkg.ops.gen_scale_ops' does not match the module: " in raised
    assert "opgen_ll_scale" in raised  # raised by the scale op's call, after the shift op ran
    assert raised.startswith("[-1.0]\n")  # and the negate op, of the same library, unchanged
    assert (f"{STALE_DEFAULT} (op OpgenLlScale raises it when it runs on TensorFlow; the module's other ops, and "
            "those of other libraries, are not affected)\n") in warned

    _, stderr = results["STALE_ADDED_ATTR"]
    warned, raised = stderr.split("imported\n")
    assert "OpLibraryWarning: " in warned and STALE_ATTR in warned
    assert raised.splitlines()[-1].startswith(error) and STALE_ATTR in raised.splitlines()[-1]
    assert "opgen_ll_scale" in raised  # raised by the first call

    _, stderr = results["STALE_RENAMED_INPUT"]
    assert stderr.splitlines()[-1].startswith(error) and STALE_INPUT in stderr.splitlines()[-1]
    assert f"{STALE_INPUT}; also, compatibly: {COMPATIBLE_ATTR}; rebuild" in stderr.splitlines()[-1]
    assert "load_op_libraries()" in stderr

    out, stderr = results["STALE_LACKS_NEGATE"]
    library = tmp_path / "STALE_LACKS_NEGATE" / "pkg" / "ops" / "_scale_ops.so"
    lacks = (f"op library {library} of module 'pkg.ops.gen_scale_ops' registers no op OpgenLlNegate; rebuild the "
             "library or the wrappers, or, if another library registers them, fix `library` (or the module's entry of "
             "[tool.opgen.libraries]) in [tool.opgen], or `opgen build --library`, and regenerate")
    assert out["scale"] == [2.0]
    assert len(out["negate"]) == 2 and out["negate"][0] == lacks and lacks in out["negate"][1]  # (tf.function adds)
    assert out["load"] == lacks
    assert f"OpLibraryWarning: {lacks} (op OpgenLlNegate raises it when it runs" in stderr.split("imported\n")[0]

    out, stderr = results["COMPATIBLE_ADDED_ATTR"]
    assert out == {"call": [2.0], "function": [2.0], "graph_offset": 0.0}
    warned = stderr.split("imported\n")[0]
    assert (
        "OpLibraryWarning: op library " in warned and "differs compatibly from the module: " + COMPATIBLE_ATTR in warned
    )
    assert "Error" not in stderr


BROKEN_SCALE = """
import os, shutil
from opgen_runtime import OpLibraryError, OpLibraryWarning, load_op_libraries
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    {imports}
    def shift(x):
        return pkg.ops.opgen_ll_shift(x)
    def scale(x):
        return pkg.ops.opgen_ll_scale(x)
    out["shift"] = [shift([1.0]).numpy().tolist(), tf.function(shift)(tf.constant([2.0])).numpy().tolist()]
    out["scale"] = []
    for call in (scale, scale, tf.function(scale)):
        try:
            out["scale"].append(call(tf.constant([1.0])).numpy().tolist())
        except OpLibraryError as e:
            out["scale"].append(str(e))
    load_op_libraries(pkg.ops.gen_shift_ops)  # registered: nothing to do
    try:
        load_op_libraries()
    except OpLibraryError as e:
        out["load"] = str(e)
    shutil.copy({fixed!r}, "pkg/ops/_scale_ops.so")
    load_op_libraries()  # tried again: now it loads
    out["fixed"] = [scale([1.0]).numpy().tolist(), tf.function(scale)(tf.constant([2.0])).numpy().tolist()]
out["warned"] = [f"{{w.category.__name__}} at {{os.path.basename(w.filename)}}:{{w.lineno}}: {{w.message}}"
                 for w in caught]
"""
TF_FIRST = "import tensorflow as tf; import pkg.ops"
TF_AFTER = "import pkg.ops; import tensorflow as tf"


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_a_broken_library_fails_only_its_own_ops(libraries, tmp_path, damage):
    """`_scale_ops.so` deleted or not a library: `gen_shift_ops` (the other library of the
    package) imports and runs eagerly and in tf.function, TF imported first (registered at
    the module's import) or after (at `import tensorflow`). Each call of the scale op raises
    the error, warned once when registering; `load_op_libraries()` tries it again."""
    runs = {}
    for order in (TF_FIRST, TF_AFTER):
        root = _package(tmp_path / f"tf_{'first' if order == TF_FIRST else 'after'}", libraries)
        scale_library = root / "pkg" / "ops" / "_scale_ops.so"
        scale_library.unlink()
        if damage == "corrupt":
            scale_library.write_bytes(b"not a shared object")
        runs[order] = (root, _start(root, BROKEN_SCALE.format(imports=order, fixed=str(libraries["scale"]))))
    for order, (root, process) in runs.items():
        out, _ = _finish(process)
        path = root / "pkg" / "ops" / "_scale_ops.so"
        error = (f"op library {path} of module 'pkg.ops.gen_scale_ops' does not exist, so its ops (OpgenLlNegate, "
                 "OpgenLlScale) cannot run on TensorFlow; if this package was installed, its installation lacks the "
                 "library: reinstall it (or tell its authors the package ships no _scale_ops.so); if you build it, "
                 "build the library, or fix `library` (or the module's entry of [tool.opgen.libraries]) in "
                 "[tool.opgen], or `opgen build --library`, and regenerate"
                 if damage == "missing" else
                 f"TensorFlow cannot load op library {path} of module 'pkg.ops.gen_scale_ops' (ops OpgenLlNegate, "
                 "OpgenLlScale): ")
        assert out["shift"] == [[2.0], [3.0]], order
        # the same error for each call (in tf.function after AutoGraph's "in user code: ..." lines)
        assert len(out["scale"]) == 3 and all(error in e for e in out["scale"]), (order, out["scale"])
        assert out["scale"][0] == out["scale"][1] and out["scale"][0].startswith(error)
        assert out["load"].startswith(error)
        assert out["fixed"] == [[2.0], [4.0]]
        # At the import of the module (pkg/ops/__init__.py), or at `import tensorflow` (the
        # script's line 8: `_start` adds two lines, BROKEN_SCALE starts with an empty one).
        where = "__init__.py:1" if order == TF_FIRST else f"{Path(process.args[1]).name}:8"
        [warned] = out["warned"]
        assert warned.startswith(f"OpLibraryWarning at {where}: {error}"), (order, warned)
        assert warned.endswith(
            " (its ops raise this error when they run on TensorFlow; the ops of other libraries are not affected)")


def test_a_package_whose_copy_of_a_library_is_missing_runs_with_another_packages_copy(libraries, tmp_path):
    """`pkg` lacks `_scale_ops.so`, `pkg2` has its copy: once pkg2 registered it, TF has the
    op, and pkg's wrapper runs it too (the failure is per op name, not per wrapper)."""
    root = _package(tmp_path, libraries)
    (root / "pkg" / "ops" / "_scale_ops.so").unlink()
    script = """
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import pkg.ops, pkg2.ops
    import tensorflow as tf
out["warned"] = [str(w.message) for w in caught]
out["calls"] = [pkg.ops.opgen_ll_scale([1.0]).numpy().tolist(), pkg2.ops.opgen_ll_scale([1.0]).numpy().tolist()]
"""
    out = _run(root, script)
    assert out["calls"] == [[2.0], [2.0]]
    [warned] = out["warned"]
    assert warned.startswith(f"op library {root / 'pkg' / 'ops' / '_scale_ops.so'} of module 'pkg.ops.gen_scale_ops' "
                             f"does not exist")


def test_an_op_tensorflow_lacks_tells_how_to_load_its_library_eagerly_too(tf, tmp_path):
    """trial24 #9: a module built without `[tool.opgen] library`, called before anything loaded
    its library: eagerly TF's "neither a type of a primitive operation" became the RuntimeError
    graph mode gives, which says how to load the library."""
    (tmp_path / "ops.cc").write_text('REGISTER_OP("OpgenNeverLoaded").Input("x: float").Output("y: float");\n')
    build = subprocess.run([sys.executable, "-m", "opgen", "build", "ops.cc", "--out", "gen"], cwd=tmp_path,
                           capture_output=True, text=True, env=_env(tmp_path), check=False)
    assert build.returncode == 0, build.stderr
    out = _run(tmp_path, """
import tensorflow as tf
from gen import gen_ops

for mode, call in (("eager", gen_ops.opgen_never_loaded), ("graph", tf.function(gen_ops.opgen_never_loaded))):
    try:
        call(tf.constant([1.0]))
    except Exception as e:
        out[mode] = [type(e).__name__, str(e)]
""")
    message = ("Op OpgenNeverLoaded is not registered in TensorFlow. Load the op library that defines it first "
               "(tf.load_op_library('/path/to/lib.so')), or generate its module with `[tool.opgen] library = "
               '"..."` so that it loads the library itself')
    assert out == {"eager": ["RuntimeError", message], "graph": ["RuntimeError", message]}
