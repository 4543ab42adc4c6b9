#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Negate")
    .Input("x: float")
    .Output("y: float");

}  // namespace tensorflow
