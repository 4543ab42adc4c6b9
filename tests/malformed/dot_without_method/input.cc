#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").("x: float");

}  // namespace tensorflow
