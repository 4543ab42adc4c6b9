#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .ControlOutput("1st");

}  // namespace tensorflow
