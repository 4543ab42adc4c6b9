#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Scale")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("factor: float = 1.0")
    .Attr("bias: float = 0.0");

}  // namespace tensorflow
