#include "tensorflow/core/framework/op.h"
#include "switch_ops/cc/config.h"

namespace tensorflow {

#if defined(SWITCH_OPS_WITH_TF) && SWITCH_OPS_VERSION >= 2 && !defined(SWITCH_OPS_LITE)
REGISTER_OP("SwitchConcat").Input("values: N * T").Output("y: T").Attr("N: int >= 1").Attr("T: type");
#endif

}  // namespace tensorflow
