#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("my_op")
    .Input("x: float");

}  // namespace tensorflow
