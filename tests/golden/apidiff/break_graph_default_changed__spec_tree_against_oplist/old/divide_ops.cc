#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Divide")
    .Input("x: float")
    .Input("y: float")
    .Output("quotient: float")
    .Output("remainder: float")
    .Attr("rounding: {'floor', 'trunc'} = 'floor'");

}  // namespace tensorflow
