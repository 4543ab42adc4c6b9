#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Attr("T: realnumberictype");

}  // namespace tensorflow
