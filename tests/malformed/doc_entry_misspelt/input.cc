#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Scale")
    .Input("x: float")
    .Attr("factor: float")
    .Output("y: float")
    .Doc(R"doc(
Scales x.

x: the input.
  factr: a continuation line, indented: description text.
facter: the scale.
y: the output.
)doc");

}  // namespace tensorflow
