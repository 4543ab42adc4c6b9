#include "attrs.h"
#include "tensorflow/core/framework/op.h"

namespace myco {
REGISTER_OP("MyCoScale")
    .Input("x: T")
    .Attr(kFloatTypes)
    .Output("y: T");
}  // namespace myco
