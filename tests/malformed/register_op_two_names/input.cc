#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo", "Bar").Input("x: float");

}  // namespace tensorflow
