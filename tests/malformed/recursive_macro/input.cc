#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define UNARY() UNARY().Output("y: float")
REGISTER_OP("Foo").UNARY();

}  // namespace tensorflow
