// Example op library, custom module: two ops TensorFlow does not have, with CPU kernels
// that compute, registered per type through TF_CALL_* as TF's own kernels are. This is
// what a custom-op project looks like: `opgen kernels op_specs --format md` shows where
// each op runs, generated/API.md lists the kernels, and tests/gather/test_example_kernels.py
// compiles this file, loads it into TensorFlow and runs the generated wrappers on it.

#include <algorithm>

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {

REGISTER_OP("OpgenExampleClamp")
    .Input("x: T")
    .Input("lo: T")
    .Input("hi: T")
    .Output("y: T")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Limits every element of `x` to the range `[lo, hi]`.

x: The values to clamp.
lo: Scalar lower bound.
hi: Scalar upper bound, at least `lo`.
y: `min(max(x, lo), hi)`, same shape and type as `x`.
)doc");

REGISTER_OP("OpgenExampleRunningSum")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double, int32}")
    .Attr("reverse: bool = false")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Running sum of the elements of `x` in row-major order.

x: The values to add up.
y: Element `i` is the sum of elements `0..i` of `x` (of `i..n-1` with `reverse`).
reverse: Sum from the last element backwards.
)doc");

template <typename T>
class OpgenExampleClampOp : public OpKernel {
 public:
  explicit OpgenExampleClampOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    const Tensor& lo = context->input(1);
    const Tensor& hi = context->input(2);
    OP_REQUIRES(context, TensorShapeUtils::IsScalar(lo.shape()) && TensorShapeUtils::IsScalar(hi.shape()),
                errors::InvalidArgument("lo and hi must be scalars"));
    const T low = lo.scalar<T>()(), high = hi.scalar<T>()();
    OP_REQUIRES(context, !(high < low), errors::InvalidArgument("hi must be at least lo"));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    auto in = x.flat<T>();
    auto out = y->flat<T>();
    for (int64_t i = 0; i < in.size(); ++i) out(i) = std::min(std::max(in(i), low), high);
  }
};

template <typename T>
class OpgenExampleRunningSumOp : public OpKernel {
 public:
  explicit OpgenExampleRunningSumOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    auto in = x.flat<T>();
    auto out = y->flat<T>();
    const int64_t n = in.size();
    T total = T(0);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = reverse_ ? n - 1 - k : k;
      total += in(i);
      out(i) = total;
    }
  }

 private:
  bool reverse_ = false;
};

#define REGISTER_CLAMP(type) \
  REGISTER_KERNEL_BUILDER(   \
      Name("OpgenExampleClamp").Device(DEVICE_CPU).TypeConstraint<type>("T"), OpgenExampleClampOp<type>);
TF_CALL_float(REGISTER_CLAMP);
TF_CALL_double(REGISTER_CLAMP);
TF_CALL_int32(REGISTER_CLAMP);
TF_CALL_int64(REGISTER_CLAMP);
#undef REGISTER_CLAMP

#define REGISTER_RUNNING_SUM(type)                                                        \
  REGISTER_KERNEL_BUILDER(                                                                \
      Name("OpgenExampleRunningSum").Device(DEVICE_CPU).TypeConstraint<type>("T"), \
      OpgenExampleRunningSumOp<type>);
TF_CALL_GPU_NUMBER_TYPES_NO_HALF(REGISTER_RUNNING_SUM);  // float, double
TF_CALL_int32(REGISTER_RUNNING_SUM);
#undef REGISTER_RUNNING_SUM

}  // namespace tensorflow
