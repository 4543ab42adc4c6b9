#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if 1
REGISTER_OP("Foo").Input("x: float");

}  // namespace tensorflow
