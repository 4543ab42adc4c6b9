#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Scale")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("scale: int = 1")
    .Attr("mode: {'fast', 'exact'} = 'fast'")
    .Doc(R"doc(
Scales `x` by `scale`.

x: The values to scale.
y: The scaled values.
scale: The multiplier.
)doc");

}  // namespace tensorflow
