// Kernels a node can match twice: TF_CALL_REAL_NUMBER_TYPES already holds half, registered
// again by TF_CALL_half (TF fails such calls: "Multiple OpKernel registrations match NodeDef
// at the same priority"); the float kernel with a label and the int32 one with a priority
// never collide with them. Compiled by tests/gather/test_kernels_oracle.py.
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"

using namespace tensorflow;  // NOLINT

REGISTER_OP("OpgenKlTwice").Input("x: T").Output("y: T").Attr("T: {half, float, double, int32}");

template <typename T>
class TwiceOp : public OpKernel {
 public:
  explicit TwiceOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override { context->set_output(0, context->input(0)); }
};

#define REGISTER(T) \
  REGISTER_KERNEL_BUILDER(Name("OpgenKlTwice").Device(DEVICE_CPU).TypeConstraint<T>("T"), TwiceOp<T>);
TF_CALL_float(REGISTER);
TF_CALL_double(REGISTER);
TF_CALL_half(REGISTER);
TF_CALL_half(REGISTER);
REGISTER_KERNEL_BUILDER(Name("OpgenKlTwice").Device(DEVICE_CPU).TypeConstraint<float>("T").Label("other"),
                        TwiceOp<float>);
REGISTER_KERNEL_BUILDER(Name("OpgenKlTwice").Device(DEVICE_CPU).TypeConstraint<int32>("T"), TwiceOp<int32>);
REGISTER_KERNEL_BUILDER(Name("OpgenKlTwice").Device(DEVICE_CPU).TypeConstraint<int32>("T").Priority(1),
                        TwiceOp<int32>);
