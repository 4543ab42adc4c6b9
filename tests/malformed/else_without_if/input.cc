#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#else
REGISTER_OP("Foo").Input("x: float");

}  // namespace tensorflow
