#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Output("y: variant")
    .SetTypeConstructor(MyTypeCtor());

}  // namespace tensorflow
