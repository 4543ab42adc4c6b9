#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#include "ops.h"

}  // namespace tensorflow
