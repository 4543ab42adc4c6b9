#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#ifdef FOO
#if 1
#endif
REGISTER_OP("Foo").Input("x: float");

}  // namespace tensorflow
