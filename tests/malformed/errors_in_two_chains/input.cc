#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("A").Attr(UnknownA());
REGISTER_OP("B").Input("x: float");
REGISTER_OP("C").Attr(UnknownC());

}  // namespace tensorflow
