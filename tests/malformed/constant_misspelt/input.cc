#include "tensorflow/core/framework/op.h"

constexpr char kScaleName[] = "Scale";
REGISTER_OP(kScaleNam).Output("y: float");
