#include "tensorflow/core/framework/op.h"

namespace tensorflow {

// The errors stand at each use of the macro (where the op is); a note says where in the
// #define each offending token is written.
#define MYCO_UNARY_OP(n)                  \
  REGISTER_OP("MyCo" #n)                  \
      .Input("x: T")                      \
      .Output("y: T")                     \
      .Attr("T: {flot, double}")

MYCO_UNARY_OP(Sin);

}  // namespace tensorflow
