#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if defined(FOO
#endif

}  // namespace tensorflow
