#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define defined 1

}  // namespace tensorflow
