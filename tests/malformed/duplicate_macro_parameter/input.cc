#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define BINARY(a, a) Input(#a)

}  // namespace tensorflow
