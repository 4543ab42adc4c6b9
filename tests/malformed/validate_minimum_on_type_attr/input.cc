#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("T: type")
    .Input("a: T * float");

}  // namespace tensorflow
