#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo").Doc(R"abcdefghijklmnopq(Summary.)abcdefghijklmnopq");

}  // namespace tensorflow
