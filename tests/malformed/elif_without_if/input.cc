#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#elif 1

}  // namespace tensorflow
