#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Barrier")
    .Input("x: float")
    .ControlOutput("done")
    .SetIsStateful();

}  // namespace tensorflow
