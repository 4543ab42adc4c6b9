// Math ops written the way real op libraries are: macros, helpers, conditionals.
#include "my_op_macros.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/util/padding.h"
#include "tensorflow/core/util/tensor_format.h"

namespace tensorflow {

using shape_inference::InferenceContext;

MY_REGISTER_UNARY(Neg, "Numerical negative value, elementwise.");
MY_REGISTER_UNARY(Square, R"doc(
Squares x elementwise.

# Not a directive: a markdown heading inside a raw doc string.
#if 0 also stays in the doc.

x: The input.
y: The squares.
)doc");

REGISTER_OP("MyAdd")
    .MY_BINARY(x, y)
    .Attr("T: {half, float, double, int32, int64, complex64, string}")
    .SetIsCommutative()
    .SetShapeFn([](InferenceContext* c) {
      // Broadcasting: a ) and a } in a comment must not end the lambda.
      return shape_inference::BroadcastBinaryOpShapeFn(c);
    })
    .Doc("Returns x + y elementwise.\n"
         "\n"
         "Supports \"broadcasting\" \x28numpy style\x29.");

REGISTER_OP("MyAddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: numbertype")
    .SetIsCommutative()
    .SetIsAggregate()
    .Doc(R"doc(Adds all input tensors element-wise.

inputs: Tensors to add, all of the same shape and type.
)doc");

REGISTER_OP("MyConv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr(GetPaddingAttrStringWithExplicit())
    .Attr(GetExplicitPaddingsAttrString())
    .Attr(GetConvnetDataFormatAttrString())
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(shape_inference::Conv2DShapeWithExplicitPadding);

#if MY_OPS_VERSION >= 2 && defined(MY_WITH_EXPERIMENTAL)
REGISTER_OP("MyExperimental")
    .Input("x: float")
    .Output("y: float")
    .Attr("mode: {'fast', 'exact'} = 'exact'")
    .SetIsStateful()
    .Deprecated(MY_OPS_VERSION, "Experimental; use MyNeg.");
#else
REGISTER_OP("MyNotExperimental").Output("y: float");
#endif

REGISTER_OP("MyIdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type)")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      std::vector<shape_inference::ShapeHandle> input;
      TF_RETURN_IF_ERROR(c->input("input", &input));
      TF_RETURN_IF_ERROR(c->set_output("output", input));
      return absl::OkStatus();
    });

}  // namespace tensorflow
