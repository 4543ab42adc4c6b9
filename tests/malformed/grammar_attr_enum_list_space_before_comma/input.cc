#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("l: list(type) = [DT_INT32 , DT_HALF]");

}  // namespace tensorflow
