#include "tensorflow/core/framework/op.h"

std::string kSpec = "x: float";  // not const: its value at registration time is unknown
REGISTER_OP("Foo").Input(kSpec);
