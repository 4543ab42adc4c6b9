// A local header of macros, included through -I or relative to the includer.
#ifndef OP_MACROS_H_
#define OP_MACROS_H_

#include <string>
#include "tensorflow/core/framework/op.h"
#include "nested.h"

#define FLOAT_UNARY() Input("x: float").Output("y: float")

#endif  // OP_MACROS_H_
