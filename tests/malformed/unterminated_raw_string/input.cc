#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Foo")
    .Doc(R"doc(
Summary.
)doc);

}  // namespace tensorflow
