#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Input(3);

}  // namespace tensorflow
