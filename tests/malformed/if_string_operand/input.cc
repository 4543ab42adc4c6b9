#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if "gpu"
#endif

}  // namespace tensorflow
