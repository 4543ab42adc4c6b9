#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Scale")
    .Input("input: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("factor: float = 1.0")
    .Attr("mode: {'fast', 'exact'} = 'fast'")
    .Doc(R"doc(
Scales `input` by `factor`.

input: The values to scale.
y: The scaled values.
factor: The multiplier.
)doc");

}  // namespace tensorflow
