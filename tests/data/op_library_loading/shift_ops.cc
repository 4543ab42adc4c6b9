// The second op library of the package (see scale_ops.cc), compiled as pkg/ops/_shift_ops.so.
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"

using namespace tensorflow;  // NOLINT

REGISTER_OP("OpgenLlShift")
    .Input("x: float")
    .Output("y: float")
    .Attr("amount: int = 1")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Adds `amount` to every element of `x`.
)doc");

class ShiftOp : public OpKernel {
 public:
  explicit ShiftOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("amount", &amount_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    auto in = x.flat<float>();
    auto out = y->flat<float>();
    for (int64_t i = 0; i < in.size(); ++i) out(i) = in(i) + static_cast<float>(amount_);
  }

 private:
  int64_t amount_;
};

REGISTER_KERNEL_BUILDER(Name("OpgenLlShift").Device(DEVICE_CPU), ShiftOp);

// Names that are Python keywords (an input, an attr, outputs): opgen's wrappers rename them
// (`in_`, `lambda_`, fields `is_`, `from_`); TF's own generator writes Python that does not
// compile for them, so the library must be registered without it (trial14 #1, #2).
REGISTER_OP("OpgenLlKeywords")
    .Input("in: float")
    .Output("is: float")
    .Output("from: float")
    .Attr("lambda: float = 1.0")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      c->set_output(1, c->input(0));
      return OkStatus();
    });

class KeywordsOp : public OpKernel {
 public:
  explicit KeywordsOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("lambda", &lambda_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* scaled = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &scaled));
    context->set_output(1, x);
    auto in = x.flat<float>();
    auto out = scaled->flat<float>();
    for (int64_t i = 0; i < in.size(); ++i) out(i) = in(i) * lambda_;
  }

 private:
  float lambda_;
};

REGISTER_KERNEL_BUILDER(Name("OpgenLlKeywords").Device(DEVICE_CPU), KeywordsOp);
