#include "tensorflow/core/framework/op.h"
REGISTER_OP("FwChunk")
    .Input("x: T")
    .Output("chunks: num_chunks * T")
    .Attr("num_chunks: int >= 1")
    .Attr("T: {float, int32}");
