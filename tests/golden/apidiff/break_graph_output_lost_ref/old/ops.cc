#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Store")
    .Input("ref: Ref(float)")
    .Input("value: float")
    .Output("output_ref: Ref(float)")
    .SetAllowsUninitializedInput();

}  // namespace tensorflow
