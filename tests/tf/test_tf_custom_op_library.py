"""The custom-op example end to end: C++ ops and kernels -> g++ -> `opgen build` with
`[tool.opgen] library` -> `import my_ops.gen_custom_ops` used like a hand-written TF ops
module: eager (kernel state kept across calls), `tf.function`, `tf.Graph`, an embedded
graph imported into TF, gradients through a `@tf.RegisterGradient`, and a training loop.

Each scenario runs in a fresh interpreter, so that the library is loaded by the generated
module itself (`tf.load_op_library`, at import or when TF is imported), as in a user's program.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO

pytestmark = pytest.mark.oracle

PROJECT = REPO / "tests" / "data" / "custom_op_project"

PRELUDE = """
import json, sys
import my_ops.gen_custom_ops as ops
assert "tensorflow" not in sys.modules, "importing the generated module imported TensorFlow"
import tensorflow as tf

@tf.RegisterGradient("OpgenScaledSquare")
def _scaled_square_grad(op, grad):
    return [2.0 * op.get_attr("scale") * op.inputs[0] * grad]

out = {}
"""

EAGER = """
x = tf.constant([1.0, -2.0, 3.0])
out["square"] = ops.opgen_scaled_square(x, scale=0.5).numpy().tolist()
out["counter"] = [int(ops.opgen_call_counter()) for _ in range(3)]
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(ops.opgen_scaled_square(x, scale=3.0))
out["grad"] = tape.gradient(y, x).numpy().tolist()
"""

FUNCTION = """
@tf.function
def step(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(ops.opgen_scaled_square(x))
    return y, tape.gradient(y, x), ops.opgen_call_counter()

results = [step(tf.constant([1.0, 2.0])) for _ in range(3)]
out["value"] = float(results[0][0])
out["grad"] = results[0][1].numpy().tolist()
out["counter"] = [int(r[2]) for r in results]
"""

GRAPH = """
with tf.Graph().as_default() as g:
    x = tf.compat.v1.placeholder(tf.float64, [2])
    y = ops.opgen_scaled_square(x, scale=2.0)
    (dy,) = tf.gradients(tf.reduce_sum(y), [x])
    count = ops.opgen_call_counter()
    with tf.compat.v1.Session(graph=g) as session:
        values = [session.run([y, dy, count], {x: [1.0, 3.0]}) for _ in range(2)]
out["y"] = values[0][0].tolist()
out["dy"] = values[0][1].tolist()
out["counter"] = [int(v[2]) for v in values]
"""

EMBEDDED = """
from opgen_runtime import Graph
from opgen_runtime.proto import graph_pb2

g = Graph()
with g.as_default():
    x = ops.opgen_scaled_square(2.0, scale=1.5, name="square")
out["embedded"] = type(x).__module__.startswith("opgen_runtime.")
ops.opgen_scaled_square(tf.constant(1.0))  # the TF backend loads the library
with tf.Graph().as_default() as tf_graph:
    graph_def = tf.compat.v1.GraphDef.FromString(g.as_graph_def().SerializeToString())
    tf.graph_util.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=tf_graph) as session:
        out["value"] = float(session.run("square:0"))
"""

TRAINING = """
w = tf.Variable([3.0, -0.5])
target = tf.constant([4.0, 1.0])
optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)

@tf.function
def train_step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(ops.opgen_scaled_square(w) - target))
    optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    return loss

losses = [float(train_step()) for _ in range(300)]
out["first_loss"], out["last_loss"] = losses[0], losses[-1]
out["w"] = w.numpy().tolist()
"""


@pytest.fixture(scope="module")
def project(tf, tmp_path_factory):
    from oracle.cxx_build import compile_op_library

    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    root = tmp_path_factory.mktemp("custom_op_project")
    shutil.copytree(PROJECT, root, dirs_exist_ok=True)
    package = root / "my_ops"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(compile_op_library(PROJECT / "custom_ops.cc", "_custom_ops.so"), package / "_custom_ops.so")
    build = subprocess.run(
        [sys.executable, "-m", "opgen", "build"], cwd=root, capture_output=True, text=True, env=_env(root), check=False
    )
    assert build.returncode == 0, build.stderr
    module = (package / "gen_custom_ops.py").read_text()
    assert "Runs on: CPU (float32, float64)." in module and module.count("Runs on: CPU") == 2
    return root


def test_every_wrapper_runs_on_both_backends(project):
    """Every wrapper, called once on the embedded runtime, in a tf.Graph and eagerly on TF
    (the module loads its library), with inputs synthesized from its OpDefs."""
    from support.call_wrappers import assert_all_called, check_in_subprocess

    reports = check_in_subprocess([project / "my_ops" / "gen_custom_ops.py"], _env(project), tf=True, tf_eager=True)
    assert_all_called(reports, strict=True)
    assert not reports[0].tf_skipped and reports[0].calls == 3 * 2


def _env(root: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=f"{root}{os.pathsep}{REPO}", TF_CPP_MIN_LOG_LEVEL="3")


def _run(root: Path, body: str) -> dict:
    script = PRELUDE + body + "\nprint(json.dumps(out))\n"
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, env=_env(root), check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_generated_module_names_its_library(project):
    text = (project / "my_ops" / "gen_custom_ops.py").read_text()
    assert 'library="_custom_ops.so"' in text
    assert "def opgen_scaled_square(" in text and "def opgen_call_counter(" in text


def test_eager_calls_keep_kernel_state_and_record_gradients(project):
    out = _run(project, EAGER)
    assert out["square"] == [0.5, 2.0, 4.5]
    assert out["counter"] == [1, 2, 3]
    assert out["grad"] == [6.0, -12.0, 18.0]


def test_tf_function(project):
    out = _run(project, FUNCTION)
    assert out == {"value": 5.0, "grad": [2.0, 4.0], "counter": [1, 2, 3]}


def test_tf_graph_and_session(project):
    out = _run(project, GRAPH)
    assert out == {"y": [2.0, 18.0], "dy": [4.0, 12.0], "counter": [1, 2]}


def test_embedded_graph_imported_into_tensorflow(project):
    out = _run(project, EMBEDDED)
    assert out == {"embedded": True, "value": 6.0}


def test_training_loop_converges(project):
    out = _run(project, TRAINING)
    assert out["first_loss"] > 10 and out["last_loss"] < 1e-4
    assert [round(abs(v), 3) for v in out["w"]] == [2.0, 1.0]


def test_missing_library_is_a_clear_error(project, tmp_path):
    shutil.copytree(project / "my_ops", tmp_path / "my_ops")
    (tmp_path / "my_ops" / "_custom_ops.so").unlink()
    script = "import tensorflow as tf, my_ops.gen_custom_ops as ops\nops.opgen_call_counter()\n"
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=_env(tmp_path), check=False
    )
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("opgen_runtime.tf.op_libraries.OpLibraryError: op library ")
    assert str(tmp_path / "my_ops" / "_custom_ops.so") in last and "(OpgenCallCounter, OpgenScaledSquare)" in last


def _doc_python_blocks(heading: str) -> list[str]:
    """The ```python blocks of docs/custom-ops.md's section `## heading`."""
    text = (REPO / "docs" / "custom-ops.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


@pytest.mark.parametrize("first", ["tensorflow", "my_ops"])
def test_gradients_section_example_runs_as_written(project, tmp_path, first):
    """docs/custom-ops.md's "Gradients": its `my_ops/__init__.py` registers the gradient through
    `call_when_imported` whichever of TensorFlow and the package is imported first, and
    importing the package alone does not import TensorFlow."""
    init, use = _doc_python_blocks("Gradients")
    assert init.startswith("# my_ops/__init__.py\n") and use.startswith("import tensorflow as tf\nimport my_ops\n")
    shutil.copytree(project, tmp_path, dirs_exist_ok=True)
    (tmp_path / "my_ops" / "__init__.py").write_text(init, encoding="utf-8")
    if first == "my_ops":
        package_first = "import my_ops\nimport sys\nassert 'tensorflow' not in sys.modules\nimport tensorflow as tf\n"
        use = use.replace("import tensorflow as tf\nimport my_ops\n", package_first, 1)
    run = subprocess.run([sys.executable, "-c", use], cwd=tmp_path, capture_output=True, text=True,
                         env=_env(tmp_path), check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip().splitlines()[-1] == "[ 6. 12. 18.]"


SAVE = """
import sys
import tensorflow as tf
import my_ops

class Square(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(self, x):
        return my_ops.opgen_scaled_square(x, scale=3.0)

tf.saved_model.save(Square(), sys.argv[1])
"""

LOAD_AND_DIFFERENTIATE = """
import json, os, sys
import tensorflow as tf
if sys.argv[2] == "package":
    import my_ops
else:  # the library alone: its ops and kernels, no gradient
    tf.load_library(os.path.abspath("my_ops/_custom_ops.so"))
loaded = tf.saved_model.load(sys.argv[1])
x = tf.constant([1.0, 2.0, 3.0])
try:
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loaded.f(x)
    print(json.dumps(tape.gradient(y, x).numpy().tolist()))
except LookupError as e:
    print(json.dumps(str(e).split(". ")[0]))
"""


def test_a_saved_model_needs_the_gradient_registered_where_it_is_loaded(project, tmp_path):
    """docs/custom-ops.md's "Gradients": a SavedModel does not hold the gradient; a fresh process
    that imports the package before loading differentiates through the op, one that only loads
    the library gets TF's LookupError."""
    shutil.copytree(project, tmp_path / "project")
    root = tmp_path / "project"
    (root / "my_ops" / "__init__.py").write_text(_doc_python_blocks("Gradients")[0], encoding="utf-8")

    def run(script: str, *args: str) -> str:
        done = subprocess.run([sys.executable, "-c", script, *args], cwd=root, capture_output=True, text=True,
                              env=_env(root), check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""

    model = str(tmp_path / "model")
    run(SAVE, model)
    assert json.loads(run(LOAD_AND_DIFFERENTIATE, model, "package")) == [6.0, 12.0, 18.0]
    assert json.loads(run(LOAD_AND_DIFFERENTIATE, model, "library")) == (
        "No gradient defined for operation'OpgenScaledSquare' (op type: OpgenScaledSquare)")


LOAD_OP_LIBRARY_AGAIN = """
import json, os, sys
import tensorflow as tf

def functions(module):
    return sorted(n for n in dir(module) if n.startswith("opgen_") and not n.endswith("_eager_fallback"))

out = {}
if sys.argv[1] == "plain":  # TensorFlow alone: an absolute path, then a relative one
    out["absolute"] = functions(tf.load_op_library(os.path.abspath("my_ops/_custom_ops.so")))
    out["relative"] = functions(tf.load_op_library("./my_ops/_custom_ops.so"))
else:  # the generated module registered the library first
    from my_ops import gen_custom_ops
    from opgen_runtime import load_op_libraries

    load_op_libraries()
    out["relative"] = functions(tf.load_op_library("./my_ops/_custom_ops.so"))
    out["runs"] = gen_custom_ops.opgen_scaled_square([1.0, 2.0], scale=3.0).numpy().tolist()
    same = tf.load_op_library(os.path.join(os.path.dirname(gen_custom_ops.__file__), "_custom_ops.so"))
    out["same_path"] = functions(same)
    out["same_path_runs"] = same.opgen_scaled_square([1.0, 2.0], scale=3.0).numpy().tolist()
print(json.dumps(out))
"""


def test_load_op_library_by_another_path_after_the_module_returns_no_functions(project):
    """docs/custom-ops.md's "Never loaded twice": TF caches a library per path string, so
    `tf.load_op_library` by a relative path after the absolute one (opgen's, or plain TF's)
    returns a module without op functions; the ops still run, and the same path gives them."""

    def run(mode: str) -> dict:
        done = subprocess.run([sys.executable, "-c", LOAD_OP_LIBRARY_AGAIN, mode], cwd=project, capture_output=True,
                              text=True, env=_env(project), check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    both = ["opgen_call_counter", "opgen_scaled_square"]
    assert run("plain") == {"absolute": both, "relative": []}
    assert run("opgen") == {"relative": [], "runs": [3.0, 12.0], "same_path": both, "same_path_runs": [3.0, 12.0]}
