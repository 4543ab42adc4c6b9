// The shim op as tensorflow-text wrote it before C++17: static members defined out of the class.
#ifndef SHIM_TEXT_CORE_KERNELS_BYTE_SPLITTER_KERNEL_TEMPLATE_H_
#define SHIM_TEXT_CORE_KERNELS_BYTE_SPLITTER_KERNEL_TEMPLATE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tensorflow/lite/kernels/shim/op_kernel.h"
#include "tensorflow/lite/kernels/shim/shape.h"

namespace shim_text {

template <tflite::shim::Runtime Rt>
class ByteSplitWithOffsetsOp
    : public tflite::shim::OpKernelShim<ByteSplitWithOffsetsOp, Rt> {
 private:
  enum Inputs { kInputValues = 0 };
  using typename tflite::shim::OpKernelShim<ByteSplitWithOffsetsOp, Rt>::InitContext;
  using typename tflite::shim::OpKernelShim<ByteSplitWithOffsetsOp, Rt>::InvokeContext;
  using typename tflite::shim::OpKernelShim<ByteSplitWithOffsetsOp,
                                            Rt>::ShapeInferenceContext;

 public:
  ByteSplitWithOffsetsOp() = default;
  static const char kOpName[];
  static const char kDoc[];

  static const char* OpName() { return kOpName; }

  // Attributes declaration (syntax: https://www.tensorflow.org/guide/create_op)
  static std::vector<std::string> Attrs() { return {}; }
  static std::vector<std::string> Inputs();
  static std::vector<std::string> Outputs();

  absl::Status Init(InitContext* context) { return absl::OkStatus(); }
  absl::Status Invoke(InvokeContext* context) { return absl::OkStatus(); }
  static absl::Status ShapeInference(ShapeInferenceContext* c) {
    return absl::OkStatus();
  }
};

template <tflite::shim::Runtime Rt>
std::vector<std::string> ByteSplitWithOffsetsOp<Rt>::Inputs() {
  return {"input_values: string"};
}

template <tflite::shim::Runtime Rt>
std::vector<std::string> ByteSplitWithOffsetsOp<Rt>::Outputs() {
  return {"output_bytes: uint8", "output_row_splits: int64",
          "output_start_offsets: int32", "output_end_offsets: int32"};
}

// Static member definitions.
template <tflite::shim::Runtime Rt>
const char ByteSplitWithOffsetsOp<Rt>::kOpName[] =
    "ShimText>ByteSplitWithOffsets";

template <tflite::shim::Runtime Rt>
const char ByteSplitWithOffsetsOp<Rt>::kDoc[] = R"doc(
  Splits a string into bytes.

  input_values: the strings to split.
  output_bytes: every byte of every string.
  )doc";

}  // namespace shim_text

#endif  // SHIM_TEXT_CORE_KERNELS_BYTE_SPLITTER_KERNEL_TEMPLATE_H_
