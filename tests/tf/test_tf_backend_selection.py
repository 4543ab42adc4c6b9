"""Which backend a call runs on (opgen_runtime.tf.backend's rule), and TF objects as arguments.

Each scenario runs in a fresh interpreter with the example library's generated modules
(generated/) on the path, so whether TensorFlow is imported is under the test's control.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.paths import REPO

pytestmark = pytest.mark.oracle



def _run(body: str, **env: str) -> dict:
    script = (
        "import json, sys\n"
        "import gen_array_ops as array, gen_math_ops as math\n"
        "import opgen_runtime as runtime\n"
        "out = {}\n" + body + "\nprint(json.dumps(out))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        env=dict(
            os.environ,
            PYTHONPATH=f"{REPO / 'generated'}{os.pathsep}{REPO}",
            TF_CPP_MIN_LOG_LEVEL="3",
            **env,
        ),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def _kind(name: str) -> str:
    return (
        f"type({name}).__module__.split('.')[0] + ':' + type({name}).__name__ "
        f"if {name} is not None else 'None'"
    )


def test_without_tensorflow_calls_build_embedded_graphs():
    out = _run(
        f"x = math.add(1.0, 2.0)\nout['add'] = {_kind('x')}\n"
        "out['tf_imported'] = 'tensorflow' in sys.modules"
    )
    assert out == {"add": "opgen_runtime:Tensor", "tf_imported": False}


def test_tensorflow_eager_gets_eager_tensors_for_python_only_calls():
    """No call produces an embedded tensor in the middle of TF eager code."""
    out = _run(
        "import tensorflow as tf\n"
        "for key, value in {\n"
        "    'add': math.add(1.0, 2.0),\n"
        "    'fill': array.fill([2], 1.0),\n"
        "    'range': math.range(0, 3, 1),\n"
        "    'no_op': array.no_op(),\n"
        "}.items():\n"
        f"    out[key] = {_kind('value')}\n"
        "out['value'] = float(math.add(1.0, 2.0))"
    )
    assert out == {
        "add": "tensorflow:EagerTensor",
        "fill": "tensorflow:EagerTensor",
        "range": "tensorflow:EagerTensor",
        "no_op": "None",
        "value": 3.0,
    }


def test_opgen_graph_as_default_wins_over_imported_tensorflow():
    out = _run(
        "import tensorflow as tf\n"
        "g = runtime.Graph()\n"
        "with g.as_default():\n"
        "    x = math.add(1.0, 2.0)\n"
        "    op = array.no_op()\n"
        "y = math.add(1.0, 2.0)\n"
        f"out['inside'] = {_kind('x')}\nout['op'] = {_kind('op')}\nout['after'] = {_kind('y')}\n"
        "out['nodes'] = [n.name for n in g.as_graph_def().node]"
    )
    assert out == {
        "inside": "opgen_runtime:Tensor",
        "op": "opgen_runtime:Operation",
        "after": "tensorflow:EagerTensor",
        "nodes": ["Add/x", "Add/y", "Add", "NoOp"],
    }


def test_opgen_graph_is_default_per_thread():
    out = _run(
        "import threading, tensorflow as tf\n"
        "g = runtime.Graph()\n"
        "seen = {}\n"
        "def other():\n"
        "    seen['other'] = type(math.add(1.0, 2.0)).__name__\n"
        "with g.as_default():\n"
        "    t = threading.Thread(target=other); t.start(); t.join()\n"
        "    seen['this'] = type(math.add(1.0, 2.0)).__name__\n"
        "out.update(seen)"
    )
    assert out == {"other": "EagerTensor", "this": "Tensor"}


def test_tf_graph_and_tf_function_get_graph_tensors():
    out = _run(
        "import tensorflow as tf\n"
        "with tf.Graph().as_default():\n"
        "    x = math.add(1.0, 2.0)\n"
        f"    out['graph'] = {_kind('x')}\n"
        "@tf.function\n"
        "def f():\n"
        "    y = math.add(1.0, 2.0)\n"
        f"    out['function'] = {_kind('y')}\n"
        "    return y\n"
        "out['value'] = float(f())"
    )
    assert out == {
        "graph": "tensorflow:SymbolicTensor",
        "function": "tensorflow:SymbolicTensor",
        "value": 3.0,
    }


@pytest.mark.parametrize(
    ("how", "env"),
    [
        ("runtime.set_backend('embedded')\n", {}),
        ("", {"OPGEN_BACKEND": "embedded"}),
    ],
)
def test_set_backend_and_environment_override_the_rule(how, env):
    out = _run(
        how + "import tensorflow as tf\n"
        f"x = math.add(1.0, 2.0)\nout['add'] = {_kind('x')}\n"
        "out['backend'] = runtime.get_backend()",
        **env,
    )
    assert out == {"add": "opgen_runtime:Tensor", "backend": "embedded"}


def test_set_backend_tensorflow_imports_tensorflow():
    out = _run(
        "runtime.set_backend('tensorflow')\n"
        f"x = math.add(1.0, 2.0)\nout['add'] = {_kind('x')}\n"
        "out['backend'] = runtime.get_backend()"
    )
    assert out == {"add": "tensorflow:EagerTensor", "backend": "tensorflow"}


TF_OBJECTS = """
import numpy as np
import tensorflow as tf
results = {}
x = array.placeholder(tf.float32, tf.TensorShape([2, None]))
results["placeholder"] = [x.dtype.name, x.shape.as_list() if x.shape.rank is not None else None]
u = array.placeholder(tf.float32, tf.TensorShape(None))
results["unknown_rank"] = u.shape.rank
d = array.placeholder(np.int64, [tf.compat.v1.Dimension(3)])
results["numpy_dtype_and_dimension"] = [d.dtype.name, d.shape.as_list()]
results["cast"] = math.cast(x, tf.int32).dtype.name
c = array.const(value=tf.make_tensor_proto(np.array([1, 2], np.int32)), dtype=tf.int32)
results["const"] = [c.dtype.name, c.shape.as_list()]
results["shape_proto"] = array.placeholder(tf.int8, tf.TensorShape([4]).as_proto()).shape.as_list()
"""


@pytest.mark.parametrize("backend", ["embedded", "tensorflow"])
def test_tf_objects_are_accepted_by_both_backends(backend):
    graph = "runtime.Graph().as_default()" if backend == "embedded" else "tf.Graph().as_default()"
    body = "import tensorflow as tf\nwith " + graph + ":\n" + "\n".join(
        "    " + line for line in TF_OBJECTS.strip().splitlines()
    )
    out = _run(body + "\nout.update(results)")
    assert out == {
        "placeholder": ["float32", [2, None]],
        "unknown_rank": None,
        "numpy_dtype_and_dimension": ["int64", [3]],
        "cast": "int32",
        "const": ["int32", [2]],
        "shape_proto": [4],
    }


def test_an_empty_list_shorter_than_its_minimum_is_the_same_value_error_everywhere():
    """AddN's `inputs: N * T` with `N: int >= 1`: eagerly the bridge checks the length before
    inferring T from the (empty) list, as TF's graph branch does (TF's eager wrapper raises an
    IndexError from that inference)."""
    out = _run(
        "import tensorflow as tf\n"
        "def add_none():\n"
        "    return math.add_n([])\n"
        "calls = {'eager': add_none, 'tf.function': tf.function(add_none)}\n"
        "def in_graph():\n"
        "    with tf.Graph().as_default():\n"
        "        add_none()\n"
        "def embedded():\n"
        "    with runtime.Graph().as_default():\n"
        "        add_none()\n"
        "calls.update({'tf.Graph': in_graph, 'embedded': embedded})\n"
        "for key, call in calls.items():\n"
        "    try:\n"
        "        call()\n"
        "    except Exception as e:\n"
        "        out[key] = f'{type(e).__name__}: {e}'\n"
        "out['two'] = float(math.add_n([1.0, tf.constant(2.0)]))"
    )
    error = "ValueError: List argument 'inputs' to 'AddN' Op with length 0 shorter than minimum length 1."
    assert out.pop("two") == 3.0
    assert {key: error in message for key, message in out.items()} == dict.fromkeys(
        ("eager", "tf.function", "tf.Graph", "embedded"), True), out
    assert out["eager"] == error


def test_a_short_list_that_is_not_empty_raises_tfs_error_eagerly():
    """ConcatV2's `values: N * T` with `N: int >= 2`, one Python value: TF's fast path declines
    it, and the eager fallback reaches TF's attr check, as TF's own wrapper does (trial14 #4)."""
    out = _run(
        "import tensorflow as tf\n"
        "for key, call in {'opgen': lambda: array.concat_v2([[1.0]], 0),\n"
        "                  'tf': lambda: tf.raw_ops.ConcatV2(values=[[1.0]], axis=0)}.items():\n"
        "    try:\n"
        "        call()\n"
        "    except Exception as e:\n"
        "        out[key] = f'{type(e).__name__}: {e}'\n"
    )
    assert out["opgen"] == out["tf"] and out["tf"].startswith("InvalidArgumentError: ") \
        and "must be at least minimum 2" in out["tf"], out
