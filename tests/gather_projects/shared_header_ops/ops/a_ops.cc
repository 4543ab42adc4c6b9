#include "tensorflow/core/framework/op.h"
#include "deps/a_dep.h"
#include "shared.h"

REGISTER_OP("SharedA").Input("x: float").Output("y: float").Doc(SHARED_DOC);
