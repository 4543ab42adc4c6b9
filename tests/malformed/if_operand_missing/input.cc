#include "tensorflow/core/framework/op.h"

// The error stands at the operator whose operand is missing.
#if (1 +
#endif
REGISTER_OP("Foo").Output("y: float");
