#ifndef SHIM_TEXT_CORE_KERNELS_TRIMMER_KERNEL_H_
#define SHIM_TEXT_CORE_KERNELS_TRIMMER_KERNEL_H_

#include "tensorflow/lite/kernels/shim/tf_op_shim.h"
#include "shim_text/core/kernels/trimmer_kernel_template.h"

namespace shim_text {

template <typename T, typename Tsplits>
class RoundRobinTrimOpKernel
    : public tflite::shim::TfOpKernel<RoundRobinTrimOp, T, Tsplits> {
 public:
  using tflite::shim::TfOpKernel<RoundRobinTrimOp, T, Tsplits>::TfOpKernel;
};

}  // namespace shim_text

#endif  // SHIM_TEXT_CORE_KERNELS_TRIMMER_KERNEL_H_
