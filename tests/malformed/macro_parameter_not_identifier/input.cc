#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define BINARY(a, 2) Input(#a)

}  // namespace tensorflow
