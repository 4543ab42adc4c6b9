#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").Doc(R"a b(Summary.)a b");

}  // namespace tensorflow
