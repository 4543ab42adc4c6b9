#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Blend")
    .Input("x: float")
    .Input("y: float")
    .Input("z: float")
    .Output("out: float");

}  // namespace tensorflow
