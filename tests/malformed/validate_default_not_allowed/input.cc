#include "tensorflow/core/framework/op.h"
using namespace tensorflow;
REGISTER_OP("BadDefault3")
    .Input("x: float")
    .Output("y: float")
    .Attr("mode: {'a', 'b'} = 'c'");
