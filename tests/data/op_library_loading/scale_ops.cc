// Two op libraries built into one package (tests/tf/test_op_library_loading.py): this one,
// compiled as pkg/ops/_scale_ops.so, and shift_ops.cc. The STALE_* macros compile the
// library as it would be after an edit that was not followed by `opgen build` (the renamed
// input with a compatible change beside it: the error names both); OpgenLlNegate, unchanged
// by them, keeps running. STALE_LACKS_NEGATE builds the library without OpgenLlNegate (an op
// added to the source without rebuilding the .so).
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"

using namespace tensorflow;  // NOLINT

REGISTER_OP("OpgenLlScale")
#ifdef STALE_RENAMED_INPUT
    .Input("values: float")
#else
    .Input("x: float")
#endif
    .Output("y: float")
#ifdef STALE_CHANGED_DEFAULT
    .Attr("factor: float = 3.0")
#else
    .Attr("factor: float = 2.0")
#endif
#ifdef STALE_ADDED_ATTR
    .Attr("offset: float")
#endif
#if defined(COMPATIBLE_ADDED_ATTR) || defined(STALE_RENAMED_INPUT)
    .Attr("offset: float = 0.0")
#endif
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Multiplies every element of `x` by `factor`.
)doc");

class ScaleOp : public OpKernel {
 public:
  explicit ScaleOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("factor", &factor_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    auto in = x.flat<float>();
    auto out = y->flat<float>();
    for (int64_t i = 0; i < in.size(); ++i) out(i) = factor_ * in(i);
  }

 private:
  float factor_;
};

REGISTER_KERNEL_BUILDER(Name("OpgenLlScale").Device(DEVICE_CPU), ScaleOp);

#ifndef STALE_LACKS_NEGATE
REGISTER_OP("OpgenLlNegate")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Negates every element of `x`.
)doc");

class NegateOp : public OpKernel {
 public:
  explicit NegateOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    auto in = x.flat<float>();
    auto out = y->flat<float>();
    for (int64_t i = 0; i < in.size(); ++i) out(i) = -in(i);
  }
};

REGISTER_KERNEL_BUILDER(Name("OpgenLlNegate").Device(DEVICE_CPU), NegateOp);
#endif
