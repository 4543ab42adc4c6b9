#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("f: float = 1f");

}  // namespace tensorflow
