"""Differential test of kernel gathering against TensorFlow: tests/data/kernel_library/
kernels.cc (templated kernels stamped by TF_CALL_* macros, GPU kernels behind
`#if GOOGLE_CUDA`, type lists, AttrConstraint, HostMemory, Label, Priority, system kernels) compiled with
g++ against the TF wheel, with and without -DGOOGLE_CUDA=1, loaded in a fresh interpreter;
TF's `kernels.get_registered_kernels_for_op` for each op equals opgen's KernelList for the
same source and defines. (The CPU-only wheel registers GPU KernelDefs too: registration
needs no GPU, and these kernels need no CUDA compiler.)"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from oracle.cxx_build import compile_op_library

from opgen.proto import kernel_def_pb2, types_pb2
from opgen.spec.gather import gather
from opgen.spec.kernels import kernel_list

pytestmark = pytest.mark.oracle

SOURCE = Path(__file__).resolve().parent / "data" / "kernel_library" / "kernels.cc"
OPS = ["OpgenKlReduce", "OpgenKlCast", "OpgenKlShape", "OpgenKlLabelled", "OpgenKlSystem", "OpgenKlAttrs"]

DUMP = """
import json, sys
import tensorflow as tf
from tensorflow.python.framework import kernels
tf.load_op_library(sys.argv[1])
print(json.dumps({op: kernels.get_registered_kernels_for_op(op).SerializeToString().hex() for op in sys.argv[2:]}))
"""


def _tf_kernels(defines: tuple[str, ...]) -> dict[str, list[bytes]]:
    library = compile_op_library(SOURCE, "_opgen_kernel_library.so", defines)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", DUMP, str(library), *OPS], capture_output=True, text=True, env=env,
                          check=True)
    out = {}
    for op, data in json.loads(proc.stdout.splitlines()[-1]).items():
        kernels = kernel_def_pb2.KernelList.FromString(bytes.fromhex(data)).kernel
        out[op] = sorted(k.SerializeToString(deterministic=True) for k in kernels)
    return out


def _opgen_kernels(defines: tuple[str, ...]) -> dict[str, list[bytes]]:
    result = gather([str(SOURCE)], defines=defines, strict_kernels=True)
    assert [op.name for op in result.op_list.op] == sorted(OPS)
    out = collections.defaultdict(list)
    for k in kernel_list(result.kernels).kernel:
        out[k.op].append(k.SerializeToString(deterministic=True))
    return {op: sorted(out[op]) for op in OPS}


@pytest.mark.parametrize("defines", [(), ("GOOGLE_CUDA=1",)], ids=["cpu", "google_cuda"])
def test_kernel_list_equals_tensorflows_registry(defines):
    theirs = _tf_kernels(defines)
    ours = _opgen_kernels(defines)
    assert {op: len(k) for op, k in ours.items()} == {op: len(k) for op, k in theirs.items()}
    assert ours == theirs
    total = sum(len(k) for k in theirs.values())
    assert total == (59 if not defines else 69)


def test_gpu_kernels_as_written():
    """The GOOGLE_CUDA kernels, written out by hand from the source."""
    kernels = kernel_list(gather([str(SOURCE)], defines=["GOOGLE_CUDA=1"], strict_kernels=True).kernels).kernel
    gpu = [k for k in kernels if k.device_type == "GPU"]
    reduce_types = collections.Counter(c.allowed_values.list.type[0] for k in gpu if k.op == "OpgenKlReduce"
                                       for c in k.constraint if c.name == "T")
    assert reduce_types == {types_pb2.DT_HALF: 2, types_pb2.DT_BFLOAT16: 2, types_pb2.DT_FLOAT: 2, types_pb2.DT_DOUBLE: 2}
    cast = kernel_def_pb2.KernelDef(op="OpgenKlCast", device_type="GPU", priority=2)
    cast.constraint.add(name="SrcT").allowed_values.list.type.extend([types_pb2.DT_FLOAT])
    cast.constraint.add(name="DstT").allowed_values.list.type.extend([types_pb2.DT_FLOAT, types_pb2.DT_INT32])
    shape = kernel_def_pb2.KernelDef(op="OpgenKlShape", device_type="GPU", host_memory_arg=["x", "shape"])
    shape.constraint.add(name="out_type").allowed_values.list.type.extend([types_pb2.DT_INT64])
    assert [k for k in gpu if k.op != "OpgenKlReduce"] == [cast, shape]
    assert not [k for k in gather([str(SOURCE)]).kernels if k.kernel_def.device_type == "GPU"]
