#include "tensorflow/core/framework/op.h"

REGISTER_OP("Foo").Input("x: float");

int Helper(int x) { return (x + 1)); }
