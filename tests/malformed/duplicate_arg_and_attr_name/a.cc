#include "tensorflow/core/framework/op.h"
REGISTER_OP("MyClash").Input("x: float").Output("y: float").Attr("x: int = 1");
