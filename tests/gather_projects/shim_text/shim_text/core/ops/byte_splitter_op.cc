#include "tensorflow/lite/kernels/shim/tf_op_shim.h"
#include "shim_text/core/kernels/byte_splitter_kernel.h"

namespace shim_text {

REGISTER_TF_OP_SHIM(ByteSplitWithOffsetsOpKernel);

// A plain REGISTER_OP next to the shim ops.
REGISTER_OP("ShimTextCaseFold")
    .Input("input: string")
    .Output("output: string")
    .Doc("Folds case.");

}  // namespace shim_text
