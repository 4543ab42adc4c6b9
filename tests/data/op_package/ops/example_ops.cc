// The ops of example_ops: each REGISTER_OP declares an op (`opgen build` writes its Python
// wrapper into example_ops/gen_example_ops.py), each REGISTER_KERNEL_BUILDER a kernel
// (setup.py compiles this file into example_ops/_example_ops.so). Add ops here, then rerun
// `opgen build`.
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"

using namespace tensorflow;  // NOLINT

REGISTER_OP("ExampleOpsScale")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Attr("factor: float = 2.0")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Multiplies `x` by `factor`, element by element.

x: The values to scale.
y: `factor * x`, same shape and type as `x`.
factor: The factor.
)doc");

template <typename T>
class ExampleOpsScaleOp : public OpKernel {
 public:
  explicit ExampleOpsScaleOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("factor", &factor_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    auto in = x.flat<T>();
    auto out = y->flat<T>();
    for (int64_t i = 0; i < in.size(); ++i) out(i) = static_cast<T>(factor_) * in(i);
  }

 private:
  float factor_;
};

REGISTER_KERNEL_BUILDER(Name("ExampleOpsScale").Device(DEVICE_CPU).TypeConstraint<float>("T"), ExampleOpsScaleOp<float>);
REGISTER_KERNEL_BUILDER(Name("ExampleOpsScale").Device(DEVICE_CPU).TypeConstraint<double>("T"), ExampleOpsScaleOp<double>);
