#include "tensorflow/core/framework/op.h"
using namespace tensorflow;
REGISTER_OP("Gain")
    .Input("x: float")
    .Output("y: float")
    .Doc(R"doc(
Applies a gain.

x: input.
y: output.
gain: removed attr still documented.
)doc");
