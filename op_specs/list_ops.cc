// Example op library, list module: tensor lists, whose variant handles carry a full type
// built by a type constructor.

#include "common_macros.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/full_type.pb.h"
#include "tensorflow/core/framework/full_type_util.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {

REGISTER_OP("EmptyTensorList")
    .Input("element_shape: shape_type")
    .Input("max_num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetTypeConstructor(full_type::UnaryTensorContainer(TFT_ARRAY, "element_dtype"))
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc(R"doc(
A new, empty tensor list.

element_shape: Shape every element must be compatible with.
max_num_elements: Capacity limit; -1 for none.
)doc");

REGISTER_OP("TensorListReserve")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetTypeConstructor(full_type::UnaryTensorContainer(TFT_ARRAY, "element_dtype"))
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc(R"doc(
A tensor list with `num_elements` empty slots.
)doc");

}  // namespace tensorflow
