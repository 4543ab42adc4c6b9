#include "my_op_macros.h"

namespace tensorflow {

#define MY_RESOURCE_OP(name) \
  REGISTER_OP(#name).Input("resource: resource").Attr("dtype: type")

MY_RESOURCE_OP(MyReadVariable).Output("value: dtype").Doc("Reads a variable.");
MY_RESOURCE_OP(MyAssignVariable)
    .Input("value: dtype")
    .Attr("validate_shape: bool = false");

REGISTER_OP("MyAssign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("use_locking: bool = true")
    .SetAllowsUninitializedInput();

REGISTER_OP("_MyInternal").Input("x: int32").Output("y: int32");

REGISTER_OP("MyShapeAttrs")
    .Output("out: float")
    .Attr("shape: shape = { dim { size: 2 } dim { size: -1 } }")
    .Attr("value: tensor = { dtype: DT_FLOAT tensor_shape {} float_val: 1.5 }")
    .Attr("f: func")
    .Attr("floats: list(float) = [0.5, 1e-3]")
    .Attr("s: string = 'a\\tb'");

}  // namespace tensorflow
