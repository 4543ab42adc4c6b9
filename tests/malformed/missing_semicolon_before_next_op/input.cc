#include "tensorflow/core/framework/op.h"
using namespace tensorflow;
REGISTER_OP("First")
    .Input("x: float")
    .Output("y: float")

REGISTER_OP("Second")
    .Input("x: float")
    .Output("y: float");
