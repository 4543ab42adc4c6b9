#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define IN(x) Input(#y)
REGISTER_OP("Foo").IN(a);

}  // namespace tensorflow
