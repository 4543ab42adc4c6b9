#include "tensorflow/core/framework/op.h"
#include "mylib/op_names.h"
#include "mylib/attrs.pb.h"

namespace mylib {

// Both names come from a header opgen cannot find: each chain error blames it.
REGISTER_OP(MYLIB_OP_NAME(Find)).Output("y: float");

REGISTER_OP("MylibAttrs").Attr(kMylibAttrs);

REGISTER_OP("MylibInput").Input(MYLIB_INPUT("x", float));

REGISTER_OP("MylibFine").Output("y: float");

}  // namespace mylib
