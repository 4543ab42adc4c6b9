#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if 1.5
#endif

}  // namespace tensorflow
