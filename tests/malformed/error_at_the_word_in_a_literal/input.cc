#include "tensorflow/core/framework/op.h"

namespace tensorflow {

// Each error stands at the word it is about inside the literal: across adjacent literals,
// after simple escapes, in a raw string's later line, in a constant's or a macro's text (the
// note says where), in a macro argument. After a numeric escape (whose bytes may join into one
// character) and in text no literal holds (StrCat's integer) it stands at the argument.
constexpr char kAttr[] = "T: {flaot, int32}";
constexpr char kTypes[] = "{double, " "halff}";
#define MY_ATTR "U: {bfloat, int32}"
#define MY_OP(name, spec) REGISTER_OP(name).Attr(spec)

REGISTER_OP("Adjacent").Attr("T: " "{flaot, double}");
REGISTER_OP("Escapes").Attr("s: string = \"x\"").Attr("T: {\tflaot}");
REGISTER_OP("Raw").Attr(R"x(T: {
    int32, flaot})x");
REGISTER_OP("Constant").Attr(kAttr);
REGISTER_OP("ConstantJoined").Attr(std::string("V: ") + kTypes);
REGISTER_OP("Macro").Attr(MY_ATTR);
MY_OP("MacroArgument", "W: {flaot}");
REGISTER_OP("BeforeNumericEscape").Attr("T: {flaot, \x66loat}");
REGISTER_OP("AfterNumericEscape").Attr("n: \x69nt = 1.5");
REGISTER_OP("StrCatInteger").Attr(absl::StrCat("T: {", 3, "flaot}"));
REGISTER_OP("DefaultNotAllowed").Attr("mode: {'a', 'b'} = 'c'");
REGISTER_OP("LengthAttr").Input("x: N * float").Attr("N: list(int)");

}  // namespace tensorflow
