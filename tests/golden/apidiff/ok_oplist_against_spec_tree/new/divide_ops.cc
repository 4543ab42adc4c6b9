#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Divide")
    .Input("x: float")
    .Input("y: float")
    .Output("quotient: float")
    .Output("remainder: float")
    .Attr("rounding: {'floor', 'trunc'} = 'floor'");

REGISTER_OP("Modulo")
    .Input("x: float")
    .Input("y: float")
    .Output("z: float");

}  // namespace tensorflow
