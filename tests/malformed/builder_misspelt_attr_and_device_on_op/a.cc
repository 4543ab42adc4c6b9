#include "tensorflow/core/framework/op.h"

namespace tensorflow {

// `.Atr(` reads as an unknown method: the input and output naming the attr it meant to
// declare report the follow-on error, and say which call to fix first. `.Device(` belongs
// to the kernel's registration.
REGISTER_OP("MyMisspeltAttr")
    .Input("x: T")
    .Output("y: T")
    .Atr("T: {float, int32}")
    .Device("CPU");
}  // namespace tensorflow
