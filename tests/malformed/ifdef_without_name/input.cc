#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#ifdef
#endif

}  // namespace tensorflow
