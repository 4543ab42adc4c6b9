"""The example library's own custom ops (op_specs/custom_ops.cc) end to end: compiled with
g++ against the TF wheel and loaded into TensorFlow in a fresh interpreter; TF's registered
kernels equal what opgen gathers (and what generated/API.md and the docstrings say), and the
committed generated wrappers (generated/gen_custom_ops.py) compute with those kernels,
eagerly and in a tf.function, and raise TF's errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from oracle.cxx_build import compile_op_library
from support.paths import REPO

from opgen.proto import kernel_def_pb2
from opgen.spec.gather import gather
from opgen.spec.kernels import kernel_list

pytestmark = pytest.mark.oracle

SOURCE = REPO / "op_specs" / "custom_ops.cc"
OPS = ["OpgenExampleClamp", "OpgenExampleRunningSum"]

SCRIPT = """
import json, sys
sys.path.insert(0, "generated")
import gen_custom_ops as ops
import tensorflow as tf
from tensorflow.python.framework import kernels
tf.load_op_library(sys.argv[1])
out = {"kernels": {op: kernels.get_registered_kernels_for_op(op).SerializeToString().hex() for op in sys.argv[2:]}}
out["clamp"] = ops.opgen_example_clamp([[-2.0, 0.5], [3.0, 1.0]], 0.0, 1.0).numpy().tolist()
out["clamp_int64"] = ops.opgen_example_clamp(tf.constant([-5, 5, 50], tf.int64), 0, 10).numpy().tolist()
out["sum"] = ops.opgen_example_running_sum([1, 2, 3, 4]).numpy().tolist()
out["sum_reverse"] = ops.opgen_example_running_sum([1.0, 2.0, 3.0], reverse=True).numpy().tolist()

@tf.function
def f(x):
    return ops.opgen_example_running_sum(ops.opgen_example_clamp(x, 0.0, 2.0))

out["function"] = f(tf.constant([3.0, -1.0, 1.5], tf.float64)).numpy().tolist()
try:
    ops.opgen_example_clamp([1.0], 2.0, 1.0)
except tf.errors.InvalidArgumentError as e:
    out["error"] = e.message
try:
    ops.opgen_example_running_sum(tf.constant([1], tf.int64))
except tf.errors.InvalidArgumentError as e:
    out["type_error"] = e.message
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def run() -> dict:
    library = compile_op_library(SOURCE, "_opgen_example_custom_ops.so")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(library), *OPS], cwd=REPO, capture_output=True,
                          text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_registered_kernels_equal_gathered(run):
    gathered = kernel_list(gather([str(REPO / "op_specs")]).kernels).kernel
    for op in OPS:
        theirs = kernel_def_pb2.KernelList.FromString(bytes.fromhex(run["kernels"][op])).kernel
        ours = [k for k in gathered if k.op == op]
        assert sorted(k.SerializeToString(deterministic=True) for k in ours) == sorted(
            k.SerializeToString(deterministic=True) for k in theirs), op
        assert len(ours) == {"OpgenExampleClamp": 4, "OpgenExampleRunningSum": 3}[op]


def test_generated_wrappers_compute_with_the_kernels(run):
    assert run["clamp"] == [[0.0, 0.5], [1.0, 1.0]]
    assert run["clamp_int64"] == [0, 5, 10]
    assert run["sum"] == [1, 3, 6, 10]
    assert run["sum_reverse"] == [6.0, 5.0, 3.0]
    assert run["function"] == [2.0, 2.0, 3.5]
    assert "}} hi must be at least lo [Op:OpgenExampleClamp]" in run["error"]  # the kernel's own check
    assert run["type_error"].startswith("Value for attr 'T' of int64 is not in the list of allowed values")


def test_committed_docs_show_the_kernels():
    api = (REPO / "generated" / "API.md").read_text()
    assert "- kernels: CPU (float32, float64, int32, int64)\n" in api
    assert "- kernels: CPU (float32, float64, int32)\n" in api
    module = (REPO / "generated" / "gen_custom_ops.py").read_text()
    assert "Runs on: CPU (float32, float64, int32, int64)." in module
