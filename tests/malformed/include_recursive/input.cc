#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#include "loop.h"

}  // namespace tensorflow
