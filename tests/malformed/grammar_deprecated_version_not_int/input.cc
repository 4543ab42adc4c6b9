#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Deprecated("3", "Use Bar");

}  // namespace tensorflow
