// Shim ops as tensorflow-text writes them today: constexpr members in the class, templated on
// the element types, the spec lists defined out of the class.
#ifndef SHIM_TEXT_CORE_KERNELS_TRIMMER_KERNEL_TEMPLATE_H_
#define SHIM_TEXT_CORE_KERNELS_TRIMMER_KERNEL_TEMPLATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/lite/kernels/shim/op_kernel.h"

namespace shim_text {

template <tflite::shim::Runtime Rt, typename T, typename Tsplits>
class RoundRobinTrimOp
    : public tflite::shim::OpKernelShim<RoundRobinTrimOp, Rt, T, Tsplits> {
 private:
  using typename tflite::shim::OpKernelShim<RoundRobinTrimOp, Rt, T,
                                            Tsplits>::InitContext;
  using typename tflite::shim::OpKernelShim<RoundRobinTrimOp, Rt, T,
                                            Tsplits>::InvokeContext;
  using typename tflite::shim::OpKernelShim<RoundRobinTrimOp, Rt, T,
                                            Tsplits>::ShapeInferenceContext;

 public:
  RoundRobinTrimOp() = default;
  static constexpr char kOpName[] = "ShimText>RoundRobinTrim";
  static constexpr char kDoc[] = R"doc(
      Trims a tensor.
      )doc";

  static const char* OpName() { return kOpName; }
  static const char* Doc() { return kDoc; }

  static std::vector<std::string> Attrs();
  static std::vector<std::string> Inputs();
  static std::vector<std::string> Outputs();

  absl::Status Init(InitContext* context) { return absl::OkStatus(); }
  absl::Status Invoke(InvokeContext* context) { return absl::OkStatus(); }
  static absl::Status ShapeInference(ShapeInferenceContext* c) {
    return absl::OkStatus();
  }
};

template <tflite::shim::Runtime Rt, typename T, typename Tsplits>
std::vector<std::string> RoundRobinTrimOp<Rt, T, Tsplits>::Attrs() {
  return {"N: int >= 1", "T: type", "Tsplits: {int32, int64} = DT_INT64"};
}

template <tflite::shim::Runtime Rt, typename T, typename Tsplits>
std::vector<std::string> RoundRobinTrimOp<Rt, T, Tsplits>::Inputs() {
  return {"max_sequence_length: int32", "input_values: N * T",
          "input_row_splits: N * Tsplits"};
}

template <tflite::shim::Runtime Rt, typename T, typename Tsplits>
std::vector<std::string> RoundRobinTrimOp<Rt, T, Tsplits>::Outputs() {
  return {"values: N * T", "row_splits: N * Tsplits"};
}

// Attr names held in constants and joined with absl::StrCat, as TF's own shim test op does.
template <tflite::shim::Runtime Rt>
class NgramsStringJoinOp : public tflite::shim::OpKernelShim<NgramsStringJoinOp, Rt> {
 protected:
  static const char kWidthAttr[];
  static constexpr char kSeparatorAttr[] = "string_separator";
  using typename tflite::shim::OpKernelShim<NgramsStringJoinOp, Rt>::InitContext;
  using typename tflite::shim::OpKernelShim<NgramsStringJoinOp, Rt>::InvokeContext;
  using typename tflite::shim::OpKernelShim<NgramsStringJoinOp,
                                            Rt>::ShapeInferenceContext;

 public:
  static constexpr char kOpName[] = "ShimTextNgrams";
  static constexpr char kDoc[] = "Joins ngrams"
                                 " of strings.";

  static const char* OpName() { return kOpName; }

  static std::vector<std::string> Attrs() {
    return {absl::StrCat(kWidthAttr, ": int = 2"),
            absl::StrCat(kSeparatorAttr, ": string = ' '"),
            "axis: int", "reduction_type: {'STRING_JOIN'} = 'STRING_JOIN'",
            "Tsplits: {int32, int64} = DT_INT64", "RAGGED_RANK: int >= 0"};
  }
  static std::vector<std::string> Inputs() {
    return {"values: string", "values_splits: RAGGED_RANK * Tsplits"};
  }
  static std::vector<std::string> Outputs() {
    return {"output_values: string", "output_splits: RAGGED_RANK * Tsplits"};
  }

  absl::Status Init(InitContext* context) { return absl::OkStatus(); }
  absl::Status Invoke(InvokeContext* context) { return absl::OkStatus(); }
  static absl::Status ShapeInference(ShapeInferenceContext* c) {
    return absl::OkStatus();
  }
};

template <tflite::shim::Runtime Rt>
const char NgramsStringJoinOp<Rt>::kWidthAttr[] = "width";

}  // namespace shim_text

#endif  // SHIM_TEXT_CORE_KERNELS_TRIMMER_KERNEL_TEMPLATE_H_
