#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if OPS_VERSION < 2
#error OPS_VERSION must be at least 2
#endif

}  // namespace tensorflow
