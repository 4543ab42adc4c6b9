#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Barrier")
    .Input("x: float")
    .SetIsStateful();

}  // namespace tensorflow
