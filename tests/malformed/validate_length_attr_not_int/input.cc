#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("N: list(int)")
    .Input("x: N * float");

}  // namespace tensorflow
