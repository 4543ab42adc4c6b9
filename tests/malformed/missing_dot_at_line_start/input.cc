#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Input("x: float")
    Output("y: float");

}  // namespace tensorflow
