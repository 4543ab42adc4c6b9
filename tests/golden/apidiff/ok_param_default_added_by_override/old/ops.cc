#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Divide")
    .Input("x: float")
    .Output("quotient: float")
    .Output("remainder: float")
    .Attr("rounding: string")
    .Attr("precision: int")
    .Doc(R"doc(
Divides `x` into a quotient and a remainder.
)doc");

}  // namespace tensorflow
