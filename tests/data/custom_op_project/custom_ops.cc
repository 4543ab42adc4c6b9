// A small custom-op library with real CPU kernels: what a user compiles into a .so and
// wraps with `opgen build` (`[tool.opgen] library` makes the wrappers load it).
#include <atomic>

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;  // NOLINT

REGISTER_OP("OpgenScaledSquare")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Attr("scale: float = 1.0")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Computes `scale * x * x` element by element.

x: The values to square.
y: `scale * x * x`, same shape and type as `x`.
scale: Factor applied to every square.
)doc");

REGISTER_OP("OpgenCallCounter")
    .Output("count: int64")
    .SetIsStateful()
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc(R"doc(
Counts its own executions: 1 on the first run of a kernel, then 2, 3, ...

count: How many times this kernel has run, this run included.
)doc");

template <typename T>
class ScaledSquareOp : public OpKernel {
 public:
  explicit ScaledSquareOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("scale", &scale_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    auto in = x.flat<T>();
    auto out = y->flat<T>();
    for (int64_t i = 0; i < in.size(); ++i) out(i) = static_cast<T>(scale_) * in(i) * in(i);
  }

 private:
  float scale_;
};

class CallCounterOp : public OpKernel {
 public:
  explicit CallCounterOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    Tensor* count = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({}), &count));
    count->scalar<int64_t>()() = ++runs_;
  }

 private:
  std::atomic<int64_t> runs_{0};
};

REGISTER_KERNEL_BUILDER(Name("OpgenScaledSquare").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        ScaledSquareOp<float>);
REGISTER_KERNEL_BUILDER(Name("OpgenScaledSquare").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        ScaledSquareOp<double>);
REGISTER_KERNEL_BUILDER(Name("OpgenCallCounter").Device(DEVICE_CPU), CallCounterOp);
