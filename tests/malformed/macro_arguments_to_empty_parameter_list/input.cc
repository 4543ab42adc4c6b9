#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define UNARY() Input("x: T").Output("y: T")
REGISTER_OP("Foo").UNARY(x).Attr("T: type");

}  // namespace tensorflow
