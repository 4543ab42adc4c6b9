// Ops whose wrappers need no attr conversion, one per generated module (pyproject.toml):
// tests/render/test_first_call_library.py builds them, compiles this file against the TF wheel and
// calls every wrapper on the embedded runtime, in a tf.Graph and eagerly on TF.
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

// No attrs at all (TF's ZeroOut tutorial op).
REGISTER_OP("FcZeroOut")
    .Input("to_zero: int32")
    .Output("zeroed: int32")
    .SetShapeFn(shape_inference::UnchangedShape);

// Only an inferred type attr.
REGISTER_OP("FcIdentity")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .SetShapeFn(shape_inference::UnchangedShape);

// Only an inferred number attr: a list input.
REGISTER_OP("FcAddN")
    .Input("inputs: N * float")
    .Output("sum: float")
    .Attr("N: int >= 1")
    .SetShapeFn(shape_inference::UnchangedShape);

// Only an inferred type-list attr, and a list output.
REGISTER_OP("FcPassThrough")
    .Input("values: T")
    .Output("outputs: T")
    .Attr("T: list(type) >= 1")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      for (int i = 0; i < c->num_inputs(); ++i) c->set_output(i, c->input(i));
      return OkStatus();
    });

// No inputs.
REGISTER_OP("FcSeven")
    .Output("seven: int32")
    .SetShapeFn(shape_inference::ScalarShape);

// No outputs.
REGISTER_OP("FcSink")
    .Input("x: float")
    .SetIsStateful()
    .SetShapeFn(shape_inference::NoOutputs);

// Several outputs, one a list sized by the inferred number attr of the input list.
REGISTER_OP("FcSplitFirst")
    .Input("values: N * float")
    .Output("first: float")
    .Output("rest: N * float")
    .Attr("N: int >= 1")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(0));
      return OkStatus();
    });

// Hidden by the override (`hide: true`): only `_fc_hidden_double` exists, with no dispatch.
REGISTER_OP("FcHiddenDouble")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);

namespace {

// Copies input i to output i (or to `first` and every `rest` for FcSplitFirst).
class CopyKernel : public OpKernel {
 public:
  explicit CopyKernel(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(i < c->num_inputs() ? i : 0));
  }
};

class ZeroOutKernel : public OpKernel {
 public:
  explicit ZeroOutKernel(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(c, c->allocate_output(0, c->input(0).shape(), &out));
    auto flat = out->flat<int32>();
    for (int64_t i = 0; i < flat.size(); ++i) flat(i) = 0;
  }
};

class AddNKernel : public OpKernel {
 public:
  explicit AddNKernel(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(c, c->allocate_output(0, c->input(0).shape(), &out));
    auto sum = out->flat<float>();
    sum.setZero();
    for (int i = 0; i < c->num_inputs(); ++i) {
      OP_REQUIRES(c, c->input(i).shape() == c->input(0).shape(), errors::InvalidArgument("shapes differ"));
      sum += c->input(i).flat<float>();
    }
  }
};

class SevenKernel : public OpKernel {
 public:
  explicit SevenKernel(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(c, c->allocate_output(0, TensorShape({}), &out));
    out->scalar<int32>()() = 7;
  }
};

class SinkKernel : public OpKernel {
 public:
  explicit SinkKernel(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {}
};

class DoubleKernel : public OpKernel {
 public:
  explicit DoubleKernel(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(c, c->allocate_output(0, c->input(0).shape(), &out));
    out->flat<float>() = c->input(0).flat<float>() * 2.0f;
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("FcZeroOut").Device(DEVICE_CPU), ZeroOutKernel);
REGISTER_KERNEL_BUILDER(Name("FcIdentity").Device(DEVICE_CPU), CopyKernel);
REGISTER_KERNEL_BUILDER(Name("FcAddN").Device(DEVICE_CPU), AddNKernel);
REGISTER_KERNEL_BUILDER(Name("FcPassThrough").Device(DEVICE_CPU), CopyKernel);
REGISTER_KERNEL_BUILDER(Name("FcSeven").Device(DEVICE_CPU), SevenKernel);
REGISTER_KERNEL_BUILDER(Name("FcSink").Device(DEVICE_CPU), SinkKernel);
REGISTER_KERNEL_BUILDER(Name("FcSplitFirst").Device(DEVICE_CPU), CopyKernel);
REGISTER_KERNEL_BUILDER(Name("FcHiddenDouble").Device(DEVICE_CPU), DoubleKernel);
