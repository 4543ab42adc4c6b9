#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#undef

}  // namespace tensorflow
