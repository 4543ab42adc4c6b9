#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Input("x: variant")
    .SetTypeConstructor(full_type::UnaryGeneric(TFT_DATASET));

}  // namespace tensorflow
