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

}  // namespace tensorflow
