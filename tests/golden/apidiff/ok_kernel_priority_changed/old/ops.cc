#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"

REGISTER_OP("Blend")
    .Input("a: float")
    .Input("b: float")
    .Output("c: float")
    .Doc("Blends a and b.");

REGISTER_KERNEL_BUILDER(Name("Blend").Device(DEVICE_CPU), BlendOp);
REGISTER_KERNEL_BUILDER(Name("Blend").Device(DEVICE_GPU).Priority(1), BlendOp);
