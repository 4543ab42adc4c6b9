#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("N: int")
    .Input("x: N");

}  // namespace tensorflow
