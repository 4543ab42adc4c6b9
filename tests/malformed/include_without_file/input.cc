#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#include

}  // namespace tensorflow
