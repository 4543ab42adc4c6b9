#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define IN() OUT().Input("x: float")
#define OUT() IN().Output("y: float")
REGISTER_OP("Foo").IN();

}  // namespace tensorflow
