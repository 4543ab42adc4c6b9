"""Compiled op libraries: `opgen oplist --from-library` reads their OpList through TF, and the
TF backend runs their ops once `tf.load_op_library` has loaded them (clear error before).

The library is compiled once with g++ and TF's flags, cached by content hash under
${XDG_CACHE_HOME:-~/.cache}/opgen/op-libraries/.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO

pytestmark = pytest.mark.oracle


SOURCE = r"""
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("OpgenTimesTwo")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("offset: int = 0")
    .SetShapeFn(shape_inference::UnchangedShape);

template <typename T>
class TimesTwoOp : public OpKernel {
 public:
  explicit TimesTwoOp(OpKernelConstruction* c) : OpKernel(c) { OP_REQUIRES_OK(c, c->GetAttr("offset", &offset_)); }
  void Compute(OpKernelContext* c) override {
    const Tensor& x = c->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(c, c->allocate_output(0, x.shape(), &y));
    auto in = x.flat<T>();
    auto out = y->flat<T>();
    for (int64_t i = 0; i < in.size(); ++i) out(i) = in(i) * T(2) + T(offset_);
  }
 private:
  int offset_;
};

REGISTER_KERNEL_BUILDER(Name("OpgenTimesTwo").Device(DEVICE_CPU).TypeConstraint<float>("T"), TimesTwoOp<float>);
REGISTER_KERNEL_BUILDER(Name("OpgenTimesTwo").Device(DEVICE_CPU).TypeConstraint<int32>("T"), TimesTwoOp<int32>);
"""


@pytest.fixture(scope="module")
def library(tf):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    flags = tf.sysconfig.get_compile_flags() + tf.sysconfig.get_link_flags()
    key = hashlib.sha256(
        (SOURCE + " ".join(flags) + tf.__version__).encode()
    ).hexdigest()[:20]
    out = (
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        / "opgen"
        / "op-libraries"
        / key
    )
    so = out / "opgen_times_two.so"
    if not so.exists():
        out.mkdir(parents=True, exist_ok=True)
        (out / "times_two.cc").write_text(SOURCE)
        tmp = out / "opgen_times_two.so.tmp"
        subprocess.run(
            [
                "g++",
                "-std=c++17",
                "-shared",
                "-fPIC",
                "-O1",
                str(out / "times_two.cc"),
                "-o",
                str(tmp),
                *flags,
            ],
            check=True,
            capture_output=True,
        )
        tmp.replace(so)
    return so


def test_oplist_from_library_cli(library, tmp_path):
    from google.protobuf import text_format

    from opgen_runtime.proto import op_def_pb2

    target = tmp_path / "ops.pbtxt"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "opgen",
            "oplist",
            "--from-library",
            str(library),
            "-o",
            str(target),
        ],
        check=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    op_list = text_format.Parse(target.read_text(), op_def_pb2.OpList())
    assert [op.name for op in op_list.op] == ["OpgenTimesTwo"]
    assert [a.name for a in op_list.op[0].attr] == ["T", "offset"]


def test_oplist_from_missing_library_is_a_clear_error(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "opgen",
            "oplist",
            "--from-library",
            str(tmp_path / "nope.so"),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert run.returncode == 2
    assert "error: op library" in run.stderr and "does not exist" in run.stderr


def test_custom_op_embedded_and_tensorflow_backend(library, tf):
    from opgen.spec.op_library import op_list_from_library
    from opgen_runtime import Graph, set_backend
    from opgen_runtime.ops import op_def_library as lib
    from opgen_runtime.ops import registry

    registry.register_op_list(
        "tests.custom_ops",
        op_list_from_library(str(library)).SerializeToString(),
        {"OpgenTimesTwo": "UnchangedShape"},
    )
    g = Graph()
    with g.as_default():
        (y,) = lib._apply_op_helper("OpgenTimesTwo", x=[1.0, 2.0, 3.0], offset=1)[3]
    assert y.shape.as_list() == [3]  # the declared UnchangedShape ran

    tf.load_op_library(str(library))
    graph_def = tf.compat.v1.GraphDef.FromString(g.as_graph_def().SerializeToString())
    with tf.Graph().as_default() as tg:
        tf.graph_util.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=tg) as sess:
            assert sess.run(y.name).tolist() == [3.0, 5.0, 7.0]

    set_backend("tensorflow")
    try:
        with tf.Graph().as_default():  # graph mode through TF's own _apply_op_helper
            (in_graph,) = lib._apply_op_helper("OpgenTimesTwo", x=[1.0], offset=3)[3]
            assert in_graph.op.get_attr("offset") == 3
        (eager,) = lib._apply_op_helper("OpgenTimesTwo", x=[1, 2], offset=None)[3]
        assert eager.numpy().tolist() == [2, 4]
    finally:
        set_backend(None)
