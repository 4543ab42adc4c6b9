#include "tensorflow/core/framework/op.h"
#include "mylib/op_names.h"

// A registration through a macro that nothing defines would register nothing silently.
MYLIB_REGISTER_OP("Scan")
    .Input("x: float")
    .Output("y: float");
