// Example op library, state module: reference variables (Ref inputs/outputs) and
// resource variables (resource handles, which make an op stateful by themselves).

#include "common_macros.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Container/shared_name attrs of variable-creating ops.
#define SHARING_ATTRS \
  Attr("container: string = ''").Attr("shared_name: string = ''")

REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .SHARING_ATTRS
    .SetIsStateful()
    .SetShapeFn(shape_inference::ExplicitShape)
    .Doc(R"doc(
A mutable tensor that lives across steps.

ref: Reference to the variable's buffer.
shape: The variable's shape.
container: Groups variables for resetting; empty means the default container.
shared_name: Name under which sessions share the variable; empty means the op name.
)doc");

REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .Attr("use_locking: bool = true")
    .SetAllowsUninitializedInput()
    .SetShapeFn([](InferenceContext* c) {
      bool validate_shape;
      TF_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate_shape));
      if (validate_shape) {
        return shape_inference::MergeBothInputsShapeFn(c);
      }
      c->set_output(0, c->input(1));
      return absl::OkStatus();
    })
    .Doc(R"doc(
Stores `value` into the variable `ref`.

Works on variables that are not initialized yet.

validate_shape: Require `value` to match the variable's shape.
use_locking: Hold a lock during the write.
output_ref: `ref` after the write, for chaining.
)doc");

REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
Adds `value` to the variable `ref` in place.
)doc");

REGISTER_OP("VarHandleOp")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("debug_name: string = ''")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .Attr("allowed_devices: list(string) = []")
    .Output("resource: resource")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Scalar());
      return absl::OkStatus();
    })
    .Doc(R"doc(
Creates (or finds) a resource variable and returns its handle.

debug_name: Name shown in error messages.
dtype: Element type of the variable.
shape: Shape of the variable.
allowed_devices: Devices that may look the variable up; empty means only the
  device of this op.
)doc");

REGISTER_OP("ReadVariableOp")
    .Input("resource: resource")
    .Output("value: dtype")
    .Attr("dtype: type")
    .UNKNOWN_SHAPE_FN
    .Doc(R"doc(
The current value of a resource variable.

resource: Handle returned by VarHandleOp.
)doc");

REGISTER_OP("AssignVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .Attr("validate_shape: bool = false")
    .SetShapeFn(shape_inference::NoOutputs)
    .Doc(R"doc(
Replaces the value of a resource variable.
)doc");

}  // namespace tensorflow
