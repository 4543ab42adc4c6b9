#include "tensorflow/core/framework/op.h"
REGISTER_OP("FwChunk")
    .Input("x: T")
    .Output("chunks: n * T")
    .Attr("n: int >= 1")
    .Attr("T: {float, int32}");
