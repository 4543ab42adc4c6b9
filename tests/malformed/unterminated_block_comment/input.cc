#include "tensorflow/core/framework/op.h"

namespace tensorflow {

/* The Foo op.
REGISTER_OP("Foo").Input("x: float");

}  // namespace tensorflow
