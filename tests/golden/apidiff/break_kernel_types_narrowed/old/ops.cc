#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"

REGISTER_OP("Scale")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double, int32, int64}")
    .Doc("Scales x.");

#define REGISTER_CPU(type) \
  REGISTER_KERNEL_BUILDER(Name("Scale").Device(DEVICE_CPU).TypeConstraint<type>("T"), ScaleOp<type>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU) TF_CALL_int32(REGISTER_CPU)
