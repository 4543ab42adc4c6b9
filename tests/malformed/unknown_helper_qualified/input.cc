#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").Attr(my_ops::PaddingSpec());

}  // namespace tensorflow
