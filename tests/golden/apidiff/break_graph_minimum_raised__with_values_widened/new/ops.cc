#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Join")
    .Input("values: N * T")
    .Input("axis: int32")
    .Output("output: T")
    .Attr("T: {float, int32, int64}")
    .Attr("N: int >= 2");

}  // namespace tensorflow
