#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Fill")
    .Output("output: float")
    .Attr("value: float = 0");

}  // namespace tensorflow
