#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_SYSTEM_OP(42);

}  // namespace tensorflow
