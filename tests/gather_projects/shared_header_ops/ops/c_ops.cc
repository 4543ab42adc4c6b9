#include "tensorflow/core/framework/op.h"
#include "deps/c_dep.h"
#include "shared.h"

REGISTER_OP("SharedC").Input("x: float").Output("y: float").Doc(SHARED_DOC);
