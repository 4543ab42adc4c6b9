#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if 0
#else
#elif 1
#endif

}  // namespace tensorflow
