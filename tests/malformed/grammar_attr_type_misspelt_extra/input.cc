#include "tensorflow/core/framework/op.h"
using namespace tensorflow;
REGISTER_OP("M4")
    .Input("x: float")
    .Output("y: float")
    .Attr("n: integer");
