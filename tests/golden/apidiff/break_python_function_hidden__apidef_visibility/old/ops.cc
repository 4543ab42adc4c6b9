#include "tensorflow/core/framework/op.h"

REGISTER_OP("SegmentCount")
    .Input("segment_ids: int32")
    .Output("counts: int32");
