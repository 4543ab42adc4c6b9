// Object- and function-like macros, # and ##, variadic, nested, whole registrations.
#include "tensorflow/core/framework/op.h"

#define UNARY() Input("x: T").Output("y: T").Attr("T: {float, double}")
#define BINARY(a, b) Input(#a ": T").Input(#b ": T")
#define TYPES "{int32, int64}"
#define ATTR_T Attr("T: " TYPES)
#define CAT(a, b) a##b
#define NAME(x) CAT(x, Op)
#define STR(x) #x
#define XSTR(x) STR(x)
#define REGISTER_UNARY(name) \
  REGISTER_OP(#name).UNARY()
#define DOC(...) Doc(#__VA_ARGS__)
#define FIRST(a, ...) a
#define EMPTY
#define VERSION 12
#define DEPRECATE(v) Deprecated(v, "since " STR(v))

namespace tensorflow {

REGISTER_OP("Neg").UNARY();
REGISTER_OP("Add").BINARY(x, y).ATTR_T.Output("z: T");
REGISTER_OP(XSTR(NAME(Paste))).Output("out: float") EMPTY;
REGISTER_UNARY(Sqrt);
REGISTER_UNARY(Rsqrt).DOC(Computes 1 / sqrt(x), elementwise.);
REGISTER_OP("Calls").FIRST(Input("a: float"), ignored, Input("b: float")).DEPRECATE(VERSION);

#undef UNARY
#define UNARY() Input("x: float").Output("y: float")
REGISTER_OP("Redefined").UNARY();

}  // namespace tensorflow
