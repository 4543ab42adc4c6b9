#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define

}  // namespace tensorflow
