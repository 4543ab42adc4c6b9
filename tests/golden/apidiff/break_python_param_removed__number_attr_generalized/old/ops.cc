#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Pair")
    .Input("a: float")
    .Input("b: float")
    .Output("sum: float");

}  // namespace tensorflow
