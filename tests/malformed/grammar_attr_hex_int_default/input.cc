#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("i: int = 0x10");

}  // namespace tensorflow
