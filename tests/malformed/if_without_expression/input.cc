#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if
#endif

}  // namespace tensorflow
