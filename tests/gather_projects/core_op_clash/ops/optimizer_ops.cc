#include "tensorflow/core/framework/op.h"

namespace tensorflow {

// The library's own Adam step, under the name of TensorFlow's ApplyAdam.
REGISTER_OP("ApplyAdam").Input("var: float").Input("grad: float").Output("out: float");

REGISTER_OP("ClashMomentum").Input("var: float").Input("grad: float").Output("out: float");

}  // namespace tensorflow
