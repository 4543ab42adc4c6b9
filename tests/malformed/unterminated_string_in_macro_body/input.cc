#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define SPEC "x: float
REGISTER_OP("Foo").Input(SPEC);

}  // namespace tensorflow
