#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Zeros")
    .Output("z: T")
    .Attr("T: {float, half} = DT_FLOAT");

}  // namespace tensorflow
