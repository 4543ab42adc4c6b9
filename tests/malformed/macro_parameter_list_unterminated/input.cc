#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define BINARY(a, b Input(#a)

}  // namespace tensorflow
