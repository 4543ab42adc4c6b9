#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Negate")
    .Input("x: T")
    .Output("y: float")
    .Attr("T: {float, double} = DT_FLOAT");

}  // namespace tensorflow
