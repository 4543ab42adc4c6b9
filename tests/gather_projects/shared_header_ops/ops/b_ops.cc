#include "tensorflow/core/framework/op.h"
#include "deps/b_dep.h"
#include "shared.h"

REGISTER_OP("SharedB").Input("x: float").Output("y: float").Doc(SHARED_DOC);
