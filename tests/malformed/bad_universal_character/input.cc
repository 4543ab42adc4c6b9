#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").Doc("Summary \uD800.");

}  // namespace tensorflow
