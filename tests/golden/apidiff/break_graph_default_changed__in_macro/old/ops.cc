#include "tensorflow/core/framework/op.h"
namespace tensorflow {
#define SEGMENT_OP(Name)                                 \
  REGISTER_OP(Name)                                      \
      .Input("data: T")                                  \
      .Input("segment_ids: Tindices")                    \
      .Output("output: T")                               \
      .Attr("T: {float, double}")                        \
      .Attr("Tindices: {int32, int64} = DT_INT32")

SEGMENT_OP("SegSum");
SEGMENT_OP("SegMax");
}  // namespace tensorflow
