#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define NAME(x) ## x

}  // namespace tensorflow
