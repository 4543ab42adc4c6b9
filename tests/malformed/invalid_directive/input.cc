#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#defne UNARY() Input("x: float")

}  // namespace tensorflow
