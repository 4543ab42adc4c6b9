#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Conv")
    .Input("input: float")
    .Input("filter: float")
    .Output("y: float");

}  // namespace tensorflow
