"""A custom-op package end to end, as its author ships it and its users install it, by the
commands of docs/custom-ops.md's "Packaging and shipping", run as written.

`opgen init my_ops` (what tests/data/op_package holds for example_ops: test_scaffold.py), then
steps 2 and 3 in the author's environment (this one: opgen on PYTHONPATH, TensorFlow, g++):
`opgen build`, the package's wheel (`pip wheel --no-build-isolation`: setup.py compiles the op
library with g++ and TensorFlow's flags, `opgen.setup_helpers`) and the opgen-runtime wheel from
the clone's runtime/ (the page's `~/opgen`: this repository). Step 4 in a fresh venv that sees
TensorFlow as a layer (a venv holding `tensorflow-cpu` and nothing else, cached:
`fresh_venv.tensorflow_layer`), from a copy of the shipped dist/ with pip's index switched off
(PIP_NO_INDEX: opgen-runtime is on no index, and TensorFlow and protobuf come from the layer).
There each scenario runs in a fresh process: eager calls, gradients, `tf.function`, Keras
`fit`, SavedModel export, `tf.saved_model.load` in another fresh process, and the package
imported before TensorFlow (which it does not import; its gradient is registered when TF is).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support import fresh_venv
from support.call_wrappers import record_build_dir
from support.paths import REPO

pytestmark = pytest.mark.oracle

DOC = REPO / "docs" / "custom-ops.md"
RUNTIME_CLONE = "~/opgen/runtime"  # how the page names the opgen clone's runtime/

TRAIN_AND_EXPORT = """
import json, sys
import tensorflow as tf
import my_ops
import keras

out = {}
x = tf.constant([1.0, -2.0, 3.0])
out["eager"] = my_ops.my_ops_scale(x).numpy().tolist()
out["eager_float64"] = my_ops.my_ops_scale(tf.constant([1.5], tf.float64), factor=4.0).numpy().tolist()
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(my_ops.my_ops_scale(x, factor=3.0))
out["gradient"] = tape.gradient(y, x).numpy().tolist()


@tf.function
def squared(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(my_ops.my_ops_scale(x, factor=0.5) ** 2)
    return y, tape.gradient(y, x)


value, gradient = squared(tf.constant([2.0, 4.0]))
out["function"] = [float(value), gradient.numpy().tolist()]
graph = squared.get_concrete_function(tf.TensorSpec([2], tf.float32)).graph
out["function_ops"] = sorted({op.type for op in graph.get_operations()} & {"MyOpsScale"})


class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

    def call(self, x):
        return my_ops.my_ops_scale(x * self.w, factor=2.0)


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
import my_ops

loaded = tf.saved_model.load(sys.argv[1])  # kept: its functions use its variables
served = loaded.serve(tf.constant([[1.0, 1.0]]))
print(json.dumps({"served": served.numpy().tolist()}))
"""

IMPORTED_FIRST = """
import json, sys
import my_ops

out = {"tensorflow_imported_by_package": "tensorflow" in sys.modules}
import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(my_ops.my_ops_scale(x, factor=5.0))
out["gradient"] = tape.gradient(y, x).numpy().tolist()
print(json.dumps(out))
"""

NOT_INSTALLED = """
import importlib.util, json
print(json.dumps([n for n in ("opgen", "jinja2", "click", "black") if importlib.util.find_spec(n)]))
"""


def _packaging_steps() -> list[str]:
    """The page's `opgen init` (step 1, in prose) and its three shell blocks (steps 2-4)."""
    section = DOC.read_text(encoding="utf-8").split("\n## Packaging and shipping", 1)[1].split("\n## ", 1)[0]
    assert "**1. Scaffold.** `opgen init my_ops` writes" in section
    blocks = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 3 and RUNTIME_CLONE in blocks[1], blocks
    return ["opgen init my_ops", *blocks]


def _shell(script: str, cwd: Path, python: Path | str, env: dict[str, str]) -> None:
    """`script` in bash, with `opgen` and `pip` those of `python` (as its venv would provide)."""
    bin_dir = cwd / ".bin"
    bin_dir.mkdir(exist_ok=True)
    for tool, run in (("opgen", "-m opgen"), ("pip", "-m pip")):
        (bin_dir / tool).write_text(f'#!/bin/sh\nexec "{python}" {run} "$@"\n', encoding="utf-8")
        (bin_dir / tool).chmod(0o755)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, capture_output=True, text=True,
                          check=False, env={**env, "PATH": f"{bin_dir}:{env['PATH']}"})
    assert done.returncode == 0, f"{script}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def user_venv(tf, tmp_path_factory) -> Path:
    """A fresh venv after the page's install command, TensorFlow as a layer; its python."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not available: the package's setup.py compiles its op library with it")
    root = tmp_path_factory.mktemp("op-package")
    init, generate, build, install = _packaging_steps()
    author = fresh_venv.clean_env(PYTHONPATH=str(REPO))  # opgen (from the clone) and TensorFlow
    _shell(f"{init}\n{generate}", root, sys.executable, author)
    project = root / "my_ops"
    record_build_dir(project / "my_ops")
    # a copy of the clone's runtime/: pip builds in the source tree (build/, *.egg-info)
    runtime = root / "opgen-clone" / "runtime"
    shutil.copytree(REPO / "runtime", runtime, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    _shell(build.replace(RUNTIME_CLONE, str(runtime)), project, sys.executable, author)
    wheels = sorted(p.name for p in (project / "dist").iterdir())
    assert [re.sub(r"-cp\d+-cp\d+-linux_\w+\.whl$", "-PLATFORM.whl", w) for w in wheels] == [
        "my_ops-0.1.0-PLATFORM.whl", "opgen_runtime-0.1.0-py3-none-any.whl"]
    names = set(zipfile.ZipFile(project / "dist" / wheels[0]).namelist())
    assert {"my_ops/__init__.py", "my_ops/gen_my_ops.py", "my_ops/_my_ops.so", "my_ops/py.typed"} <= names

    user = root / "user"  # another machine: only the shipped dist/
    shutil.copytree(project / "dist", user / "dist")
    python = fresh_venv.create(root / "venv", layer=fresh_venv.tensorflow_layer())
    before = fresh_venv.distributions(python)
    _shell(install, user, python, fresh_venv.clean_env(PIP_NO_INDEX="1"))
    assert fresh_venv.distributions(python) - before == {"my-ops", "opgen-runtime"}
    assert _run(python, NOT_INSTALLED) == []
    return python


def _run(python: Path, script: str, *args: str | Path):
    """The JSON the script prints last, run by `python` in a fresh process."""
    # cwd: an empty folder, so nothing but the venv provides `my_ops`
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
    assert out["function_ops"] == ["MyOpsScale"]
    first, last = out["loss"]
    assert first > 1 and last < 1e-6 * first
    assert [round(w, 4) for w in out["weights"]] == [3.0, 0.5]
    assert saved.is_dir()

    # A fresh process: `import tensorflow` then the package, then load the SavedModel, whose
    # graph uses the package's op: TensorFlow must know it before any wrapper is called.
    served = _run(user_venv, LOAD, saved)["served"]
    assert [v for row in served for v in row] == pytest.approx([v for row in out["predict"] for v in row])


def test_package_imported_before_tensorflow_leaves_it_unimported_and_gets_its_gradient(user_venv):
    out = _run(user_venv, IMPORTED_FIRST)
    assert out == {"tensorflow_imported_by_package": False, "gradient": [5.0, 5.0]}
