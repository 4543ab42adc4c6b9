#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").Output(OutputSpec());

}  // namespace tensorflow
