#include "tensorflow/core/framework/op.h"

namespace tensorflow {

const char* names[] = {"Foo"};
REGISTER_OP(names[0]).Input("x: float");

}  // namespace tensorflow
