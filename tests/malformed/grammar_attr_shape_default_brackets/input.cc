#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("s: shape = [2,3]");

}  // namespace tensorflow
