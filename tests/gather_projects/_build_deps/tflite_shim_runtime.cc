// The one definition of TF Lite's shim that registering a shim op needs: the TF wheel ships
// tensorflow/lite/kernels/shim/tf_op_shim.h but not tf_op_shim.cc, and the OpDef's shape
// function (TfOpKernel::ShapeInference) constructs a TfShapeInferenceContext.
#include "tensorflow/lite/kernels/shim/tf_op_shim.h"

namespace tflite {
namespace shim {

TfShapeInferenceContext::TfShapeInferenceContext(
    ::tensorflow::shape_inference::InferenceContext* context)
    : context_(context) {}

}  // namespace shim
}  // namespace tflite
