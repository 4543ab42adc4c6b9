#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Join")
    .Input("values: N * T")
    .Input("axis: int32")
    .Output("output: T")
    .Attr("T: {float, int32}")
    .Attr("N: int >= 1");

}  // namespace tensorflow
