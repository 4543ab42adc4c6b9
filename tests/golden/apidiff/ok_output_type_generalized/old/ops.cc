#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Zeros")
    .Output("z: float");

}  // namespace tensorflow
