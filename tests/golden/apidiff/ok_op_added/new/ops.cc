#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Scale")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("factor: float = 1.0")
    .Attr("mode: {'fast', 'exact'} = 'fast'")
    .Doc(R"doc(
Scales `x` by `factor`.

x: The values to scale.
y: The scaled values.
factor: The multiplier.
)doc");

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
