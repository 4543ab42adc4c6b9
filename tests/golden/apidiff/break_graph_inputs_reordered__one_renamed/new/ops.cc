#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Blend")
    .Input("y: float")
    .Input("x: float")
    .Input("w: float")
    .Output("out: float");

}  // namespace tensorflow
