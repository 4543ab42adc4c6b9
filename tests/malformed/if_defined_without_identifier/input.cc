#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if defined(1)
#endif

}  // namespace tensorflow
