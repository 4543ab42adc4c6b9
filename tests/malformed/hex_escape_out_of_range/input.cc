#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").Doc("Summary \x100.");

}  // namespace tensorflow
