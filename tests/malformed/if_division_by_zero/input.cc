#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define N 0
#if 4 / N
#endif

}  // namespace tensorflow
