#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("T: {float8_e4m3fn}");

}  // namespace tensorflow
