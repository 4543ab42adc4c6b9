// Example op library, array module: shape manipulation, splitting and joining,
// constants and placeholders.

#include <vector>

#include "common_macros.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/full_type_util.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/util/mirror_pad_mode.h"

namespace tensorflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// Every output of a split has the input's rank; the split axis is unknown.
absl::Status SplitShapeFn(InferenceContext* c, int value_input) {
  ShapeHandle value = c->input(value_input);
  ShapeHandle out = c->RankKnown(value) ? c->UnknownShapeOfRank(c->Rank(value))
                                        : c->UnknownShape();
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

}  // namespace

// Ops whose output simply mirrors input 0: "input: T" -> "output: T".
#define PASS_THROUGH_OP() \
  Input("input: T").Output("output: T").Attr("T: type").SetShapeFn(shape_inference::UnchangedShape)

REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) { return SplitShapeFn(c, 1); })
    .Doc(R"doc(
Cuts a tensor into `num_split` equal pieces along one axis.

split_dim: The axis to cut, a scalar in `[-rank(value), rank(value))`.
value: The tensor to cut.
output: The pieces, in order.
num_split: How many pieces; must divide the axis length.
)doc");

REGISTER_OP("SplitV")
    .Input("value: T")
    .Input("size_splits: Tlen")
    .Input("split_dim: int32")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Attr("Tlen: {int8, int32, int64} = DT_INT64")
    .SetShapeFn([](InferenceContext* c) { return SplitShapeFn(c, 0); })
    .Doc(R"doc(
Cuts a tensor into pieces of the given sizes along one axis.

size_splits: Length of each piece; one entry may be -1 to take the rest.
)doc");

REGISTER_OP("Unique")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
      c->set_output(1, c->input(0));
      // Both outputs are vectors; `x` must be one too.
      ShapeHandle unused;
      return c->WithRank(c->input(0), 1, &unused);
    })
    .Doc(R"doc(
Distinct values of a vector, in order of first appearance.

x: A 1-D tensor.
y: The distinct values.
idx: For each element of `x`, its position in `y`.
)doc");

REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr(INDEX_TYPE_ATTR("Tidx"))
    .SetShapeFn(shape_inference::ConcatV2Shape)
    .Doc(R"doc(
Joins tensors end to end along one axis.

values: At least two tensors with equal rank.
axis: The axis to join along.
)doc");

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
Gives a tensor a new shape with the same number of elements.

shape: Target dimensions; at most one may be -1 and is then inferred.
)doc");

REGISTER_OP("Identity").PASS_THROUGH_OP().Doc("Returns its input unchanged.");

// REGISTER_OP("IdentityV9") in this comment must not be picked up.
REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type)")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<ShapeHandle> input;
      TF_RETURN_IF_ERROR(c->input("input", &input));
      TF_RETURN_IF_ERROR(c->set_output("output", input));
      return absl::OkStatus();
    })
    .Doc(R"doc(
Returns a list of tensors unchanged.

Useful to group several values under one op, e.g. for gradient overrides.

T: The element types, one per tensor.
)doc");

REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
Stacks N tensors of one shape into a tensor of rank one higher.

axis: Where the new dimension goes; negative values wrap around.
)doc");

#ifndef OPGEN_EXAMPLE_SKIP_FILL
REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = DT_INT32")
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
A tensor of the given shape where every element is `value`.

dims: The output shape, a vector.
value: A scalar.
)doc");
#endif  // OPGEN_EXAMPLE_SKIP_FILL

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn([](InferenceContext* c) {
      const TensorProto* proto = nullptr;
      TF_RETURN_IF_ERROR(c->GetAttr("value", &proto));
      ShapeHandle out;
      TF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(proto->tensor_shape(), &out));
      c->set_output(0, out);
      return absl::OkStatus();
    })
    .Doc(R"doc(
A constant tensor.

value: The tensor to produce, stored in the graph.
)doc");

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      // The output has exactly the declared (possibly partial) shape.
      PartialTensorShape declared;
      TF_RETURN_IF_ERROR(c->GetAttr("shape", &declared));
      shape_inference::ShapeHandle out;
      TF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(declared, &out));
      c->set_output(0, out);
      return absl::OkStatus();
    })
    .Doc(R"doc(
Stands for a value that is fed when the graph runs.

Running it without a feed is an error.

dtype: Element type of the fed value.
shape: Constraint on the fed value's shape; unknown rank by default.
)doc");

REGISTER_OP("PlaceholderV2")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(shape_inference::ExplicitShape)
    .Deprecated(23, "Placeholder now behaves the same as PlaceholderV2.")
    .Doc("Older spelling of Placeholder with a required shape.");

REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr(INDEX_TYPE_ATTR("Tperm"))
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
Reorders the dimensions of `x`.

perm: Output dimension i is input dimension `perm[i]`.
)doc");

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr(INDEX_TYPE_ATTR("Tdim"))
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
Inserts a dimension of length 1.

dim: Position of the new axis.
)doc");

REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []")
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
Drops dimensions of length 1.

squeeze_dims: Only drop these axes; all length-1 axes when empty.
)doc");

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetTypeConstructor(full_type::Unary(TFT_SHAPE_TENSOR, "out_type"))
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Vector(c->Rank(c->input(0))));
      return absl::OkStatus();
    })
    .Doc(R"doc(
The dimensions of a tensor, as a vector.

out_type: Integer type of the result.
)doc");

REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = DT_INT32")
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
Repeats a tensor along each axis.

multiples: Repetition count per axis.
)doc");

REGISTER_OP("MirrorPad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr(GetMirrorPadModeAttrString())
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
Pads a tensor with mirrored copies of its border.

paddings: An `[n, 2]` matrix of amounts before and after each axis.
mode: Whether the border element itself is repeated (SYMMETRIC) or not (REFLECT).
)doc");

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("Zeros with the shape and type of `x`.");

REGISTER_OP("NoOp").SetShapeFn(shape_inference::NoOutputs).Doc("Does nothing.");

}  // namespace tensorflow
