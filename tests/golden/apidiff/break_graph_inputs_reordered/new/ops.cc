#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Conv")
    .Input("filter: float")
    .Input("input: float")
    .Output("y: float");

}  // namespace tensorflow
