#ifndef SHIM_TEXT_CORE_KERNELS_BYTE_SPLITTER_KERNEL_H_
#define SHIM_TEXT_CORE_KERNELS_BYTE_SPLITTER_KERNEL_H_

#include "tensorflow/lite/kernels/shim/tf_op_shim.h"
#include "shim_text/core/kernels/byte_splitter_kernel_template.h"

namespace shim_text {

class ByteSplitWithOffsetsOpKernel
    : public tflite::shim::TfOpKernel<ByteSplitWithOffsetsOp> {
 public:
  using TfOpKernel::TfOpKernel;
};

}  // namespace shim_text

#endif  // SHIM_TEXT_CORE_KERNELS_BYTE_SPLITTER_KERNEL_H_
