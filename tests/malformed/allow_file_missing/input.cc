#include "tensorflow/core/framework/op.h"

namespace tensorflow {


}  // namespace tensorflow
