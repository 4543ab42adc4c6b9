#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"

REGISTER_OP("Reshape2")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .Doc("Reshapes a tensor.");

REGISTER_KERNEL_BUILDER(Name("Reshape2").Device(DEVICE_CPU).HostMemory("shape"), ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("Reshape2").Device(DEVICE_GPU).TypeConstraint<int32>("Tshape"), ReshapeOp);
