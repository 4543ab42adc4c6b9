#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#include "my_ops/op_macros.h"

}  // namespace tensorflow
