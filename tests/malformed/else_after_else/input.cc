#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#ifdef FOO
#else
#else
#endif

}  // namespace tensorflow
