#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define UNARY(t) Input("x: " #t)
REGISTER_OP("Foo").UNARY(float;
