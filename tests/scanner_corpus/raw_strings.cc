#include "tensorflow/core/framework/op.h"

REGISTER_OP("RawDocs")
    .Doc(R"doc(
Summary.

# A markdown heading, not a directive
#define NOT_A_MACRO 1
#if 0
Still documentation: )" and )do" do not end the string.
#endif
x: A "quoted" \n backslash-n stays two characters.
)doc")
    .Attr(R"(T: type)")
    .Attr(u8R"x(U: type = DT_FLOAT)x")
    .Doc(R"abcdefghijklmnop(sixteen-character delimiter)abcdefghijklmnop");
#define NOT_A_MACRO 2
