#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("A").Input("x: float";

}  // namespace tensorflow
