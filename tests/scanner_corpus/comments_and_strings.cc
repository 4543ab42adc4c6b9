// REGISTER_OP("InLineComment").Input("x: float");
/* REGISTER_OP("InBlockComment")
   .Input("x: float"); */
#include "tensorflow/core/framework/op.h"

namespace tensorflow {

static const char* kNotARegistration = "REGISTER_OP(\"InString\");";
static const char* kRaw = R"(REGISTER_OP("InRawString");)";
static const char kChar = '"';

#if 0
REGISTER_OP("InIfZero").Input("x: float");
don't care about 'unbalanced quotes in dead code
#endif

REGISTER_OP(/* name: */ "Commented")  // trailing comment
    // a whole-line comment between calls
    .Input(/* before */ "x: float" /* after */)
    /* block comment between calls */ .Output("y: "
                                             "float")  // concatenated
    .Attr("s: string = "
          "'a\tb'")
    .Doc("Summary line.\n"
         "\n"
         // a comment inside the concatenation
         "Escapes: \x41\101\u00e9\\ \"quoted\" \'single\' \?\n"
         u8"UTF-8 prefix: caf\u00e9");

REGISTER_OP("Unicode").Doc("Grüße — ünïcödé ✓");

}  // namespace tensorflow
