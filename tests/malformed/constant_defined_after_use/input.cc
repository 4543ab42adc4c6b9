#include "tensorflow/core/framework/op.h"

REGISTER_OP("Foo").Input(kSpec);
constexpr char kSpec[] = "x: float";
