#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define BINARY(a, b) Input(#a ": T").Input(#b ": T")
REGISTER_OP("Foo").BINARY(x).Attr("T: type");

}  // namespace tensorflow
