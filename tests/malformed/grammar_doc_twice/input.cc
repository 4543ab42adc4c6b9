#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Doc("One.")
    .Doc("Two.");

}  // namespace tensorflow
