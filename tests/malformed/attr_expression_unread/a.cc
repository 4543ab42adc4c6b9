#include "tensorflow/core/framework/op.h"

namespace tensorflow {
constexpr bool kUseV2 = true;

// A conditional attr string: opgen cannot evaluate it without compiling, and the input
// that refers to the attr it declares reports the follow-on error.
REGISTER_OP("MyConditionalAttr")
    .Input("x: T")
    .Output("y: float")
    .Attr(kUseV2 ? "T: {float}" : "T: {double}");
}  // namespace tensorflow
