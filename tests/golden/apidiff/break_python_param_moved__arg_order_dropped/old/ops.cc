#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Join")
    .Input("values: N * T")
    .Input("axis: int32")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Doc(R"doc(
Joins `values` along `axis`.
)doc");

}  // namespace tensorflow
