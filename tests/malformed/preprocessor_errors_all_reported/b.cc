#include "tensorflow/core/framework/op.h"
#include "shared.h"

REGISTER_OP("AlsoFine");
