#include "types.h"
#include "tensorflow/core/framework/op.h"

namespace myco {
REGISTER_OP("MyCoScale")
    .Input("x: T")
    .Attr(kElementTypes)
    .Output("y: T");
}  // namespace myco
