#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP().Input("x: float");

}  // namespace tensorflow
