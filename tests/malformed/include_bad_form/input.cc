#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#include op_macros.h

}  // namespace tensorflow
