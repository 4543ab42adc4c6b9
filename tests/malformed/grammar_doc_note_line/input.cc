#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Doc(R"doc(
Sums things.

Note: this line is read as an arg entry.
)doc");

}  // namespace tensorflow
