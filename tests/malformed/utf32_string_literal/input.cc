#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").Doc(U"Summary.");

}  // namespace tensorflow
