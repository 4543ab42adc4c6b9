#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").Deprecated(7, Explanation());

}  // namespace tensorflow
