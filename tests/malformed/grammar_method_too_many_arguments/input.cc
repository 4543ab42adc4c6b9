#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("a: int", "b: int");

}  // namespace tensorflow
