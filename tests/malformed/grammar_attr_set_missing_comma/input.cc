#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("x: {int32 float}");

}  // namespace tensorflow
