#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Input("x: float");

REGISTER_OP("Foo")
    .Input("y: int32");

}  // namespace tensorflow
