#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("l: list(int) >= -1");

}  // namespace tensorflow
