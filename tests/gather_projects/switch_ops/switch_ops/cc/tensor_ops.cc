#include "tensorflow/core/framework/op.h"
#include "switch_ops/cc/config.h"

namespace tensorflow {

REGISTER_OP("SwitchPlain").Input("x: float").Output("y: float");

// The build (CMake: -DSWITCH_OPS_WITH_TF=1) turns the TensorFlow ops on.
#if SWITCH_OPS_WITH_TF
REGISTER_OP("SwitchScale").Input("x: float").Output("y: float").Attr("scale: float = 1.0");
SWITCH_REGISTER_OP("SwitchShift").Input("x: float").Output("y: float");
#ifdef SWITCH_OPS_EXPERIMENTAL
REGISTER_OP("SwitchExperimental").Output("y: int32");
#endif
#endif

}  // namespace tensorflow
