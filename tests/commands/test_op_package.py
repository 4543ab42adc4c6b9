"""A custom-op package end to end, as its author ships it and its users install it.

tests/data/op_package is what `opgen init` writes (tests/commands/test_scaffold.py keeps them equal): an
op with its CPU kernel, `[tool.opgen]`, a package `__init__` registering the gradient, and a
setup.py compiling the op library with g++ and TensorFlow's flags (`opgen.setup_helpers`). Here:
`opgen build`, then `pip wheel --no-build-isolation` (in this environment, which has opgen on
PYTHONPATH and TensorFlow), then a fresh venv gets `pip install` of that wheel and the
opgen-runtime wheel only, and sees TensorFlow as a layer (a venv that holds `tensorflow-cpu`
and nothing else, cached: `fresh_venv.tensorflow_layer`). In it, each scenario runs in a fresh
process that imports TensorFlow, then the package: eager calls, gradients, `tf.function`,
Keras `fit`, SavedModel export, and `tf.saved_model.load` in another fresh process.
"""

from __future__ import annotations

import json
import shutil
import sys
import zipfile
from pathlib import Path

import pytest
from support import fresh_venv
from support.call_wrappers import record_build_dir
from support.paths import REPO

pytestmark = pytest.mark.oracle

PROJECT = REPO / "tests" / "data" / "op_package"

TRAIN_AND_EXPORT = """
import json, sys
import tensorflow as tf
import example_ops
import keras

out = {}
x = tf.constant([1.0, -2.0, 3.0])
out["eager"] = example_ops.example_ops_scale(x).numpy().tolist()
out["eager_float64"] = example_ops.example_ops_scale(tf.constant([1.5], tf.float64), factor=4.0).numpy().tolist()
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(example_ops.example_ops_scale(x, factor=3.0))
out["gradient"] = tape.gradient(y, x).numpy().tolist()


@tf.function
def squared(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(example_ops.example_ops_scale(x, factor=0.5) ** 2)
    return y, tape.gradient(y, x)


value, gradient = squared(tf.constant([2.0, 4.0]))
out["function"] = [float(value), gradient.numpy().tolist()]
graph = squared.get_concrete_function(tf.TensorSpec([2], tf.float32)).graph
out["function_ops"] = sorted({op.type for op in graph.get_operations()} & {"ExampleOpsScale"})


class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

    def call(self, x):
        return example_ops.example_ops_scale(x * self.w, factor=2.0)


model = keras.Sequential([keras.Input((2,)), Scale()])
model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
xs = tf.constant([[1.0, 2.0], [2.0, 1.0], [0.5, -1.0], [-1.0, 0.5]])
history = model.fit(xs, xs * [6.0, 1.0], epochs=150, batch_size=4, verbose=0)
out["loss"] = [history.history["loss"][0], history.history["loss"][-1]]
out["weights"] = model.layers[0].w.numpy().tolist()
out["predict"] = model.predict(tf.constant([[1.0, 1.0]]), verbose=0).tolist()
model.export(sys.argv[1], verbose=False)
print(json.dumps(out))
"""

LOAD = """
import json, sys
import tensorflow as tf
import example_ops

loaded = tf.saved_model.load(sys.argv[1])  # kept: its functions use its variables
served = loaded.serve(tf.constant([[1.0, 1.0]]))
print(json.dumps({"served": served.numpy().tolist()}))
"""

NOT_INSTALLED = """
import importlib.util, json
print(json.dumps([n for n in ("opgen", "jinja2", "click", "black") if importlib.util.find_spec(n)]))
"""


@pytest.fixture(scope="module")
def user_venv(tf, tmp_path_factory) -> Path:
    """A fresh venv with the package's wheel and the opgen-runtime wheel installed, TensorFlow as
    a layer; its python."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not available: the package's setup.py compiles its op library with it")
    root = tmp_path_factory.mktemp("op-package")
    project = root / "op_package"
    shutil.copytree(PROJECT, project)
    fresh_venv.run(sys.executable, "-m", "opgen", "build", "--quiet", cwd=project,
                   env=fresh_venv.clean_env(PYTHONPATH=str(REPO)))
    record_build_dir(project / "example_ops")
    wheels = root / "wheels"
    wheels.mkdir()
    # The author's environment: opgen (from the clone) and TensorFlow; no isolation, as documented.
    package = fresh_venv.build_wheel(project, wheels, "--no-build-isolation",
                                     env=fresh_venv.clean_env(PYTHONPATH=str(REPO)))
    names = set(zipfile.ZipFile(package).namelist())
    assert {"example_ops/__init__.py", "example_ops/gen_example_ops.py", "example_ops/_example_ops.so",
            "example_ops/py.typed"} <= names
    fresh_venv.build_wheel(REPO / "runtime", wheels)
    python = fresh_venv.create(root / "venv", layer=fresh_venv.tensorflow_layer())
    before = fresh_venv.distributions(python)
    # --no-index: everything else (protobuf, TensorFlow) must come from the TensorFlow layer.
    fresh_venv.run(python, "-m", "pip", "install", "-q", "--no-index", "--find-links", wheels, "example-ops")
    assert fresh_venv.distributions(python) - before == {"example-ops", "opgen-runtime"}
    assert _run(python, NOT_INSTALLED) == []
    return python


def _run(python: Path, script: str, *args: str | Path):
    """The JSON the script prints last, run by `python` in a fresh process."""
    # cwd: an empty folder, so nothing but the venv provides `example_ops`
    cwd = Path(str(python)).parent.parent / "cwd"
    cwd.mkdir(exist_ok=True)
    stdout = fresh_venv.run(python, "-c", script, *args, cwd=cwd)
    return json.loads(stdout.strip().splitlines()[-1])


def test_installed_package_eager_gradients_function_keras_and_saved_model(user_venv, tmp_path):
    saved = tmp_path / "saved_model"
    out = _run(user_venv, TRAIN_AND_EXPORT, saved)
    assert out["eager"] == [2.0, -4.0, 6.0]  # the op's default factor, 2.0
    assert out["eager_float64"] == [6.0]
    assert out["gradient"] == [3.0, 3.0, 3.0]  # the gradient the package registers
    assert out["function"] == [5.0, [1.0, 2.0]]
    assert out["function_ops"] == ["ExampleOpsScale"]
    first, last = out["loss"]
    assert first > 1 and last < 1e-6 * first
    assert [round(w, 4) for w in out["weights"]] == [3.0, 0.5]
    assert saved.is_dir()

    # A fresh process: `import tensorflow` then the package, then load the SavedModel, whose
    # graph uses the package's op: TensorFlow must know it before any wrapper is called.
    served = _run(user_venv, LOAD, saved)["served"]
    assert [v for row in served for v in row] == pytest.approx([v for row in out["predict"] for v in row])
