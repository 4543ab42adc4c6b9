// Example op library, functional module: control flow and function calls with `func`
// attrs and type-list inputs/outputs.

#include "common_macros.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// Output i takes `output_shapes[i]` when given, else stays unknown.
absl::Status ShapesFromAttr(InferenceContext* c) {
  std::vector<PartialTensorShape> shapes;
  TF_RETURN_IF_ERROR(c->GetAttr("output_shapes", &shapes));
  if (shapes.empty()) return shape_inference::UnknownShape(c);
  for (int i = 0; i < c->num_outputs() && i < static_cast<int>(shapes.size()); ++i) {
    ShapeHandle s;
    TF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shapes[i], &s));
    c->set_output(i, s);
  }
  return absl::OkStatus();
}

}  // namespace

REGISTER_OP("If")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(ShapesFromAttr)
    .Doc(R"doc(
Calls one of two functions depending on a condition.

A non-boolean `cond` counts as true when it is a non-zero scalar or a non-empty
tensor.

cond: The condition.
input: Arguments passed to the chosen function.
then_branch: Called when `cond` is true.
else_branch: Called otherwise.
output_shapes: Optional shapes of the outputs.
)doc");

REGISTER_OP("While")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      std::vector<PartialTensorShape> shapes;
      TF_RETURN_IF_ERROR(c->GetAttr("output_shapes", &shapes));
      if (!shapes.empty()) return ShapesFromAttr(c);
      for (int i = 0; i < c->num_outputs(); ++i) {
        c->set_output(i, c->input(i));
      }
      return absl::OkStatus();
    })
    .Doc(R"doc(
Repeats `body` while `cond` holds.

input: The initial loop variables.
output: The loop variables after the last iteration.
cond: Maps the loop variables to a boolean scalar.
body: Maps the loop variables to their next values.
parallel_iterations: How many iterations may run at once.
)doc");

// Both call ops share their signature; the stateful one may also communicate across
// devices.
#define PARTITIONED_CALL_SIGNATURE()        \
  Input("args: Tin")                        \
      .Output("output: Tout")               \
      .Attr("Tin: list(type) >= 0")         \
      .Attr("Tout: list(type) >= 0")        \
      .Attr("f: func")                      \
      .Attr("config: string = ''")          \
      .Attr("config_proto: string = ''")    \
      .Attr("executor_type: string = ''")   \
      .UNKNOWN_SHAPE_FN

REGISTER_OP("PartitionedCall").PARTITIONED_CALL_SIGNATURE().Doc(R"doc(
Calls a function, placing its pieces on several devices.

args: The function's arguments.
f: The function to call.
config_proto: A serialized ConfigProto for the call.
executor_type: Executor to run the function with; empty means the default.
)doc");

REGISTER_OP("StatefulPartitionedCall")
    .PARTITIONED_CALL_SIGNATURE()
    .SetIsStateful()
    .SetIsDistributedCommunication()
    .Doc("Like PartitionedCall, for functions with side effects.");

}  // namespace tensorflow
