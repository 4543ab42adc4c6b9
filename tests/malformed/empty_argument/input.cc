#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").Deprecated(4, );

}  // namespace tensorflow
