#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Scale")
    .Input("x: float")
    .Input("factor: float")
    .Output("z: float");

}  // namespace tensorflow
