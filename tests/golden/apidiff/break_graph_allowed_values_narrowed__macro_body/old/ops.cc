#include "tensorflow/core/framework/op.h"
namespace tensorflow {
#define BINARY_OP(Name, Types)                           \
  REGISTER_OP(Name)                                      \
      .Input("x: T")                                     \
      .Input("y: T")                                     \
      .Output("z: T")                                    \
      .Attr("T: {" Types ", int32}")

BINARY_OP("MyCoHypot", "float, double");
BINARY_OP("MyCoLerp", "float, double, half");
}  // namespace tensorflow
