#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#ifndef OPS_VERSION
#error OPS_VERSION is not defined
#endif

}  // namespace tensorflow
