#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if (1 + 2
#endif

}  // namespace tensorflow
