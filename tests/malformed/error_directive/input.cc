#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#error this op library must be built with -D OPS_VERSION=2

}  // namespace tensorflow
