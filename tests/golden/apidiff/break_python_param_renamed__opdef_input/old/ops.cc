#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Scale")
    .Input("x: float")
    .Input("y: float")
    .Output("z: float");

}  // namespace tensorflow
