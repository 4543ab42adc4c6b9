// Plain chains: every builder method, flags, docs, shape functions.
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {

using shape_inference::InferenceContext;

REGISTER_OP("AddThings")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {half, float, double, int32, int64}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)
    .Doc(R"doc(
Adds x and y.

x: The first operand.
y: The second operand.
)doc");

REGISTER_OP("Stateful").SetIsStateful().SetDoNotOptimize().SetAllowsUninitializedInput()
    .SetIsDistributedCommunication().Output("handle: resource").ControlOutput("done")
    .Deprecated(27, "Use Stateless instead.");

REGISTER_OP("WithLambda")
    .Input("input: float")
    .Output("output: float")
    .SetShapeFn([](InferenceContext* c) {
      // A comment with a ) and a } in it.
      shape_inference::ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &s));
      if (c->Rank(s) != 2) {
        return errors::InvalidArgument("bad \"rank\") {");
      }
      /* block ( comment */
      c->set_output(0, s);
      return absl::OkStatus();
    });

REGISTER_SYSTEM_OP("_SystemThing").Output("out: int32").SetTypeConstructor(full_type::Unary(TFT_TENSOR, "T"))
    .SetForwardTypeFn(full_type::ReplicateInput());

REGISTER_OP("Negative").Deprecated(-1, "negative version").Attr("n: int = -3");

}  // namespace tensorflow
