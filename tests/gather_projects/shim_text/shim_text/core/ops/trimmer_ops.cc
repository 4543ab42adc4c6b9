#include <cstdint>

#include "tensorflow/lite/kernels/shim/tf_op_shim.h"
#include "shim_text/core/kernels/trimmer_kernel.h"

namespace shim_text {

using RoundRobinTrimInstance = RoundRobinTrimOpKernel<int32_t, int32_t>;
REGISTER_TF_OP_SHIM(RoundRobinTrimInstance);

// The kernel class named directly, and through a typedef.
typedef tflite::shim::TfOpKernel<NgramsStringJoinOp> NgramsStringJoinKernel;
REGISTER_TF_OP_SHIM(NgramsStringJoinKernel);

}  // namespace shim_text
