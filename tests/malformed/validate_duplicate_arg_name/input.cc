#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Input("a: float")
    .Output("a: float");

}  // namespace tensorflow
