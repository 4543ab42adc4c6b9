#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Output("y: variant")
    .SetTypeConstructor(full_type::Unary(TFT_NOPE, "T"));

}  // namespace tensorflow
