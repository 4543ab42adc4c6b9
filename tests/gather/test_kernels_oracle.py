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
from support.paths import TESTS

from opgen.proto import kernel_def_pb2
from opgen.spec.gather import GatherErrors, gather
from opgen.spec.kernels import kernel_list
from opgen_runtime.proto import types_pb2

pytestmark = pytest.mark.oracle

SOURCE = TESTS / "data" / "kernel_library" / "kernels.cc"
OPS = ["OpgenKlReduce", "OpgenKlCast", "OpgenKlShape", "OpgenKlLabelled", "OpgenKlSystem", "OpgenKlAttrs"]

DUMP = """
import json, sys
import tensorflow as tf
from tensorflow.python.framework import kernels
tf.load_op_library(sys.argv[1])
print(json.dumps({op: kernels.get_registered_kernels_for_op(op).SerializeToString().hex() for op in sys.argv[2:]}))
"""


def _tf_kernels(defines: tuple[str, ...], source: Path = SOURCE, ops: list[str] = OPS,
                so_name: str = "_opgen_kernel_library.so") -> dict[str, list[bytes]]:
    library = compile_op_library(source, so_name, defines)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", DUMP, str(library), *ops], capture_output=True, text=True, env=env,
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
    assert reduce_types == {
        types_pb2.DT_HALF: 2,
        types_pb2.DT_BFLOAT16: 2,
        types_pb2.DT_FLOAT: 2,
        types_pb2.DT_DOUBLE: 2,
    }
    cast = kernel_def_pb2.KernelDef(op="OpgenKlCast", device_type="GPU", priority=2)
    cast.constraint.add(name="SrcT").allowed_values.list.type.extend([types_pb2.DT_FLOAT])
    cast.constraint.add(name="DstT").allowed_values.list.type.extend([types_pb2.DT_FLOAT, types_pb2.DT_INT32])
    shape = kernel_def_pb2.KernelDef(op="OpgenKlShape", device_type="GPU", host_memory_arg=["x", "shape"])
    shape.constraint.add(name="out_type").allowed_values.list.type.extend([types_pb2.DT_INT64])
    assert [k for k in gpu if k.op != "OpgenKlReduce"] == [cast, shape]
    assert not [k for k in gather([str(SOURCE)]).kernels if k.kernel_def.device_type == "GPU"]


_WRAPPER_HEADER = ('#define REGISTER_FOO_CPU(T) REGISTER_KERNEL_BUILDER('
                   'Name("OpgenMkFoo").Device(DEVICE_CPU).TypeConstraint<T>("T"), FooOp<T>);\n')
_WRAPPED_KERNELS = """#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "my_kernel_macros.h"
namespace tensorflow {
REGISTER_OP("OpgenMkFoo").Input("x: T").Output("y: T").Attr("T: {float, double}");
template <typename T>
class FooOp : public OpKernel {
 public:
  explicit FooOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override { c->set_output(0, c->input(0)); }
};
TF_CALL_float(REGISTER_FOO_CPU);
TF_CALL_double(REGISTER_FOO_CPU)
REGISTER_KERNEL_BUILDER(Name("OpgenMkFoo").Device(DEVICE_GPU).TypeConstraint<float>("T"), FooOp<float>);
}  // namespace tensorflow
"""


def test_kernel_macro_of_a_missing_header_is_warned(tmp_path, capsys):
    """A REGISTER_KERNEL_BUILDER wrapper defined only in a header that cannot be found
    registers nothing: a located warning naming the include (an error in `opgen kernels`).
    With the header found, the kernels equal TF's for the library compiled with it."""
    src = tmp_path / "ops" / "wrapped_kernels.cc"
    src.parent.mkdir()
    src.write_text(_WRAPPED_KERNELS)
    (tmp_path / "deps").mkdir()
    (tmp_path / "deps" / "my_kernel_macros.h").write_text(_WRAPPER_HEADER)

    gathered = gather([str(src)])
    assert [k.kernel_def.device_type for k in gathered.kernels] == ["GPU"]
    assert gathered.warnings[-1].splitlines() == [
        (f"{src}:13:15: warning: 'REGISTER_FOO_CPU(...)' looks like a kernel registration through the macro "
         "'REGISTER_FOO_CPU', which is not defined: it registers nothing"),
        (f'  hint: likely cause: "my_kernel_macros.h" ({src}:4:10) was not found and may define \'REGISTER_FOO_CPU\'; '
         "add its directory with -I DIR or [tool.opgen] include_dirs"),
        "  (kernel registration skipped)",
    ]
    with pytest.raises(GatherErrors) as e:
        gather([str(src)], strict_kernels=True)
    assert [(err.location.line, err.location.col) for err in e.value.errors] == [(13, 15)]

    found = gather([str(src)], include_dirs=[str(tmp_path / "deps")], strict_kernels=True)
    assert found.warnings == []
    inlined = tmp_path / "inlined.cc"  # what the compiler sees with the header found
    inlined.write_text(_WRAPPED_KERNELS.replace('#include "my_kernel_macros.h"\n', _WRAPPER_HEADER))
    theirs = _tf_kernels((), inlined, ["OpgenMkFoo"], "_opgen_wrapped_kernels.so")
    ours = sorted(k.SerializeToString(deterministic=True) for k in kernel_list(found.kernels).kernel)
    assert ours == theirs["OpgenMkFoo"] and len(ours) == 3


OVERLAPPING = TESTS / "data" / "kernel_library" / "overlapping_kernels.cc"
RUN_EACH_TYPE = """
import json, sys
import tensorflow as tf
library = tf.load_op_library(sys.argv[1])
out = {}
for dtype in (tf.float16, tf.float32, tf.float64, tf.int32):
    try:
        library.opgen_kl_twice(tf.constant([1], dtype))
        out[dtype.name] = "ok"
    except tf.errors.InvalidArgumentError as e:
        out[dtype.name] = e.message.split(" '")[0]
print(json.dumps(out))
"""


def test_the_cross_check_reports_the_kernels_tf_finds_twice():
    """The cross-check's overlap finding against TF running the op: the type TF refuses
    ("Multiple OpKernel registrations") is the one reported, and only it."""
    from opgen.spec.kernel_summary import cross_check

    library = compile_op_library(OVERLAPPING, "_opgen_overlapping_kernels.so")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", RUN_EACH_TYPE, str(library)], capture_output=True, text=True,
                          env=env, check=True)
    ran = json.loads(proc.stdout.splitlines()[-1])
    assert ran == {"float16": "Multiple OpKernel registrations match NodeDef at the same priority",
                   "float32": "ok", "float64": "ok", "int32": "ok"}
    result = gather([str(OVERLAPPING)], strict_kernels=True)
    findings = [f.message for f in cross_check(result.kernels, result.op_list)]
    assert len(findings) == 1 and "matches the same nodes as the one at" in findings[0] \
        and "(T: float16)" in findings[0], findings
