#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define CAT(a, b) a ## b
int x = CAT(+, /);

}  // namespace tensorflow
