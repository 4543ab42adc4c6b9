// Kernel registrations name their op as tensorflow-text's do: through the kernel class.
#include <cstdint>

#include "tensorflow/core/framework/op_kernel.h"
#include "shim_text/core/kernels/byte_splitter_kernel.h"
#include "shim_text/core/kernels/trimmer_kernel.h"

namespace shim_text {

REGISTER_KERNEL_BUILDER(
    Name(ByteSplitWithOffsetsOpKernel::OpName()).Device(::tensorflow::DEVICE_CPU),
    ByteSplitWithOffsetsOpKernel);

using RoundRobinTrimKernelInt32 = RoundRobinTrimOpKernel<int32_t, int32_t>;
REGISTER_KERNEL_BUILDER(Name(RoundRobinTrimKernelInt32::OpName())
                            .Device(::tensorflow::DEVICE_CPU)
                            .TypeConstraint<int32_t>("T")
                            .TypeConstraint<int32_t>("Tsplits"),
                        RoundRobinTrimKernelInt32);

}  // namespace shim_text
