#include "tensorflow/core/framework/op.h"

namespace tensorflow {

constexpr char kName[] = "Foo";
REGISTER_OP(kName).Input("x: float");

}  // namespace tensorflow
