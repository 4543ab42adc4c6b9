#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Pair")
    .Input("values: N * float")
    .Output("sum: float")
    .Attr("N: int = 2");

}  // namespace tensorflow
