#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("b: bool = t");

}  // namespace tensorflow
