#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define PAD() Attr(MyPadding())
REGISTER_OP("Foo").PAD();

}  // namespace tensorflow
