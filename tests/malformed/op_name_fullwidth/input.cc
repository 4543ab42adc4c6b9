#include "tensorflow/core/framework/op.h"

REGISTER_OP("Ｆoo").Output("y: float");
