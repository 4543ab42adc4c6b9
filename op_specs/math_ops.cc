// Example op library, math module: element-wise arithmetic, reductions, casts.
//
// These declarations mirror TensorFlow 2.21's registry entries for the same ops (their
// OpDefs are compared in tests/gather/test_op_specs.py); the documentation is our own.

#include "common_macros.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/full_type_inference_util.h"
#include "tensorflow/core/framework/full_type_util.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Mobile builds register fewer types for Add; the example library mirrors desktop TF.
#if defined(IS_MOBILE_PLATFORM) && !defined(SUPPORT_SELECTIVE_REGISTRATION)
#define ADD_TYPES "half, float, int32, int64"
#else
#define ADD_TYPES                                                      \
  "bfloat16, half, float, double, uint8, int8, int16, int32, int64, " \
  COMPLEX_TYPES ", string"
#endif

REGISTER_OP("Add")
    .BINARY_OP_WITH_TYPES(ADD_TYPES)
    .Doc(R"doc(
Element-wise sum of two tensors, with broadcasting.

Strings are concatenated rather than summed. Prefer AddV2 for numbers.

x: First summand.
y: Second summand, broadcast against `x`.
z: The sum.
)doc");

REGISTER_OP("AddV2")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, "
        "int16, int32, int64, complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)
    .SetIsAggregate()
    .SetIsCommutative()
    .Doc(R"doc(
Adds `x` and `y` element by element (numbers only).

x: Left operand.
y: Right operand.
)doc");

REGISTER_OP("Sub").BINARY_OP_WITH_TYPES(
    "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, "
    "complex64, complex128, uint32, uint64")
    .Doc("Subtracts `y` from `x` element by element.\n\nBroadcasting applies.");

REGISTER_OP("Mul")
    .BINARY_OP_WITH_TYPES(BINARY_MORE_TYPES)
    .SetIsCommutative()
    .Doc(R"doc(Multiplies two tensors element by element.)doc");

REGISTER_OP("RealDiv").BINARY_OP_WITH_TYPES(BINARY_MORE_TYPES).Doc(R"doc(
Divides `x` by `y` for real-valued element types.

z: The quotient, same type as the operands.
)doc");

REGISTER_OP("Maximum")
    .BINARY_OP_WITH_TYPES(
        "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, "
        "int64, uint64");

/* A commented-out registration is not an op:
REGISTER_OP("Minimum").BINARY_OP_WITH_TYPES("float");
*/

REGISTER_OP("Equal")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .SetIsCommutative()
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x = c->input(0);
      ShapeHandle y = c->input(1);
      bool strict = true;
      TF_RETURN_IF_ERROR(c->GetAttr("incompatible_shape_error", &strict));
      if (!strict && (!c->RankKnown(x) || !c->RankKnown(y))) {
        c->set_output(0, c->UnknownShape());
        return absl::OkStatus();
      }
      return shape_inference::BroadcastBinaryOpOutputShapeFn(c, 0);
    })
    .Doc(R"doc(
Tests two tensors for element-wise equality.

incompatible_shape_error: When false, shapes that cannot be broadcast give a
  scalar `false` instead of an error.
z: True where `x == y`.
)doc");

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, "
        "uint64, complex64, complex128}")
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(shape_inference::MatMulShape)
    .Doc(R"doc(
Matrix product of two rank-2 tensors.

The inner dimensions must agree after the optional transpositions.

a: Left matrix.
b: Right matrix.
transpose_a: Use the transpose of `a`.
transpose_b: Use the transpose of `b`.
grad_a: Set by gradient code; does not change the result.
grad_b: Set by gradient code; does not change the result.
)doc");

REGISTER_OP("Abs").UNARY_OP_WITH_TYPES(SIGNED_REAL_TYPES).Doc(R"doc(
Absolute value of each element.

# Integer overflow: the most negative integer maps to itself.
)doc");

REGISTER_OP("Neg").UNARY_OP_WITH_TYPES(SIGNED_REAL_TYPES ", " COMPLEX_TYPES).Doc(R"doc(
Flips the sign of each element.

y:= Same shape and type as `x`.
)doc");

REGISTER_OP("Sqrt").UNARY_OP_WITH_TYPES("bfloat16, half, float, double, " COMPLEX_TYPES);

REGISTER_OP("Square").UNARY_OP_WITH_TYPES(
    SIGNED_REAL_TYPES ", uint8, uint16, uint32, uint64, " COMPLEX_TYPES)
    .Doc("Multiplies each element by itself.");

REGISTER_OP("Sum").REDUCTION_OP("T: numbertype").Doc(R"doc(
Adds up the elements along the given axes.

input: Tensor to reduce.
reduction_indices: Axes to reduce over; negative values count from the end.
keep_dims: Keep reduced axes with length 1.
output: The reduced tensor.
)doc");

REGISTER_OP("Mean").REDUCTION_OP("T: numbertype").Doc("Averages along the given axes.");

REGISTER_OP("Max")
    .REDUCTION_OP("T: {realnumbertype, quantizedtype}")
    .Doc(R"doc(
Largest element along the given axes.

T: Element type; complex numbers have no order.
)doc");

REGISTER_OP("ArgMax")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: {realnumbertype, quantizedtype, bool}")
    .Attr("Tidx: {int16, int32, int64} = DT_INT32")
    .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle input = c->input(0);
      const Tensor* dimension_t = c->input_tensor(1);
      if (dimension_t == nullptr || !c->RankKnown(input)) {
        // The axis or the rank is not known yet: no output shape can be derived.
        c->set_output(0, c->UnknownShape());
        return absl::OkStatus();
      }
      c->set_output(0, c->UnknownShapeOfRank(c->Rank(input) - 1));
      return absl::OkStatus();
    })
    .Doc(R"doc(
Position of the largest value along one axis.

Ties resolve to the smallest index.

dimension: The axis to search, a scalar.
output_type: Integer type of the returned positions.
)doc");

REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")
    .SetTypeConstructor(full_type::NoOp())
    .SetForwardTypeFn(full_type::KeepExisting())
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Converts every element of `x` to `DstT`.

Truncate: Drop excess precision instead of rounding (floating targets only).
)doc");

REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {numbertype, variant}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle cur = c->input(c->num_inputs() - 1);
      for (int i = c->num_inputs() - 2; i >= 0; --i) {
        if (c->RankKnown(cur)) {
          TF_RETURN_IF_ERROR(c->Merge(c->input(i), cur, &cur));
        } else {
          cur = c->input(i);
        }
      }
      c->set_output(0, cur);
      return absl::OkStatus();
    })
    .Doc(R"doc(
Sums a list of same-shaped tensors.

inputs: The N tensors to add; all must have one shape and type.
sum: Their total.
)doc");

REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr(
        "Tidx: "
        "{bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32, "
        "uint64} = DT_INT32")
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
Evenly spaced numbers from `start` up to, but not including, `limit`.

start: First value.
limit: Exclusive bound.
delta: Step; may be negative.
)doc");

REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
Picks elements from `t` where `condition` holds and from `e` elsewhere.

condition: Same shape as `t`, or a vector matching its first dimension.
)doc");

}  // namespace tensorflow
