#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define 1UNARY Input("x: float")

}  // namespace tensorflow
