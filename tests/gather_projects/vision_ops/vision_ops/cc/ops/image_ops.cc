#include <string>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "Eigen/Core"
#include "re2/re2.h"
#include "grpcpp/grpcpp.h"
#include "common_lib/status_macros.h"
#include "vision_ops/cc/proto/config.pb.h"
#include "vision_ops/cc/ops/op_macros.h"

namespace vision_ops {

// A raw-string doc in a multi-line macro: C++ keeps the line splices inside it, so TF
// reads one line per argument (each ending in a backslash).
#define FIND_BOXES_DOC R"doc(Finds boxes in images. \
\
images: the images, NHWC. \
boxes: one row per box. \
max_boxes: at most this many boxes.)doc"

REGISTER_OP(VISION_OP_NAME(FindBoxes))
    .Input("images: T")
    .Output("boxes: float")
    .Attr(VISION_TYPES(float))
    .Attr(VISION_ATTR("max_boxes: int >= 1", 16))
    .SetShapeFn(::tensorflow::shape_inference::UnknownShape)
    .Doc(FIND_BOXES_DOC);

REGISTER_OP(("VisionResize"))
    .Input("images: T")
    .Input("size: int32")
    .Output("resized: T")
    .Attr(VISION_TYPES(float, double, uint8))
    .Attr(VISION_ATTR("align_corners: bool"))
    .Doc(R"doc(
Resizes images.

images: 4-D, NHWC.
size: new height and width.
)doc");

int CheckedBoxes(const Config& config) {
  COMMON_RETURN_IF_NEGATIVE(config.max_boxes());
  VISION_LOG("checked\n");
  VISION_LOG("%d boxes\n", const_cast<const Config&>(config).max_boxes());
  return re2::FullMatch("a", "a") ? config.max_boxes() : 0;
}

}  // namespace vision_ops
