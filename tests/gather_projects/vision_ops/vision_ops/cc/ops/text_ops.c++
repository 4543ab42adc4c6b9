#include "tensorflow/core/framework/op.h"
#include "re2/re2.h"
#include "grpcpp/grpcpp.h"
#include "op_macros.h"

namespace vision_ops {

REGISTER_OP(VISION_OP_NAME(OcrText))
    .Input("images: T")
    .Output("text: string")
    .Attr(VISION_TYPES(uint8, float))
    .Attr(VISION_ATTR("language: string", "en"))
    .Doc("Reads the text in images.");

}  // namespace vision_ops
