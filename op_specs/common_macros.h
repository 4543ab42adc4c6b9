// Shared pieces of the example op library: macros used inside REGISTER_OP chains.
//
// Real TensorFlow op files factor repeated signatures the same way (UNARY(), BINARY_MORE(),
// REDUCTION_ATTRS...). opgen's front end must expand these exactly like the C++
// preprocessor does.

#ifndef OPGEN_OP_SPECS_COMMON_MACROS_H_
#define OPGEN_OP_SPECS_COMMON_MACROS_H_

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

// Type lists, spelled as string-literal fragments that get glued into Attr specs by
// adjacent-literal concatenation.
#define SIGNED_REAL_TYPES "bfloat16, half, float, double, int8, int16, int32, int64"
#define COMPLEX_TYPES "complex64, complex128"
#define INDEX_TYPE_ATTR(name) name ": {int32, int64} = DT_INT32"

// x: T -> y: T with the given allowed types.
#define UNARY_OP_WITH_TYPES(types)  \
  Input("x: T")                     \
      .Output("y: T")               \
      .Attr("T: {" types "}")       \
      .SetShapeFn(shape_inference::UnchangedShape)

// Element-wise binary op with broadcasting.
#define BINARY_OP_WITH_TYPES(types) \
  Input("x: T")                     \
      .Input("y: T")                \
      .Output("z: T")               \
      .Attr("T: {" types "}")       \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)

// The type set shared by Sub, Mul and RealDiv.
#define BINARY_MORE_TYPES                                                     \
  "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, " \
  "uint64, int64, complex64, complex128"

// Reductions over the axes given in `reduction_indices`.
#define REDUCTION_OP(t_spec)                         \
  Input("input: T")                                  \
      .Input("reduction_indices: Tidx")              \
      .Output("output: T")                           \
      .Attr("keep_dims: bool = false")               \
      .Attr(t_spec)                                  \
      .Attr(INDEX_TYPE_ATTR("Tidx"))                 \
      .SetShapeFn(shape_inference::ReductionShape)

// Object-like macro expanding to a whole chain tail.
#define UNKNOWN_SHAPE_FN SetShapeFn(shape_inference::UnknownShape)

// Ops whose TensorFlow shape function is a per-op lambda. The example library does not
// repeat TF's logic in C++ (its lambda leaves shapes unknown); like TF, it names no common
// function, so opgen's runtime applies its port of TF's function for the op's name.
#define PER_OP_SHAPE_FN                                                  \
  SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) { \
    return ::tensorflow::shape_inference::UnknownShape(c);             \
  })

#endif  // OPGEN_OP_SPECS_COMMON_MACROS_H_
