#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#include "macros.h"
REGISTER_OP("Foo").UNARY();

}  // namespace tensorflow
