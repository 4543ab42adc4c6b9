#include "tensorflow/core/framework/op.h"

static int kSizes[] = {1, 2);
REGISTER_OP("Foo").Input("x: float");
