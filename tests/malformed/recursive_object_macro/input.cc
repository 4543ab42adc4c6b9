#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define INPUTS INPUTS
REGISTER_OP("Foo").INPUTS;

}  // namespace tensorflow
