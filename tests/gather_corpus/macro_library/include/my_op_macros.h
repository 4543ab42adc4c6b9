// Shared macros of the example op library (found through -I include).
#ifndef MY_OP_MACROS_H_
#define MY_OP_MACROS_H_

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"

#define MY_REAL_TYPES "{bfloat16, half, float, double}"
#define MY_UNARY(T_SET)           \
  Input("x: T")                   \
      .Output("y: T")             \
      .Attr("T: " T_SET)          \
      .SetShapeFn(::tensorflow::shape_inference::UnchangedShape)
#define MY_BINARY(a, b) Input(#a ": T").Input(#b ": T").Output("z: T")
#define MY_STR(x) #x
#define MY_XSTR(x) MY_STR(x)
#define MY_NAME(base) MY_XSTR(My##base)
#define MY_REGISTER_UNARY(name, doc) \
  REGISTER_OP(MY_NAME(name)).MY_UNARY(MY_REAL_TYPES).Doc(doc)

#endif  // MY_OP_MACROS_H_
