#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .SetShapeFn(shape_inference::UnknownShape)
    .SetShapeFn(shape_inference::ScalarShape);

}  // namespace tensorflow
