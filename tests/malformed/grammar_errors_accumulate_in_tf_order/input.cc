#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Input("A: float")
    .Doc("Sum.\n\nzz: nothing")
    .Attr("x: {Float}")
    .Output("y: 3")
    .Attr("z: int32");

}  // namespace tensorflow
