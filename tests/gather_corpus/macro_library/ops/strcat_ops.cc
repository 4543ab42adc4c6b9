// Attr strings built by absl::StrCat, std::string and `+` from literals, constants, integers
// and built-in helpers, as op libraries write them (tests/gather/test_gather.py).
#include <string>

#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/platform/strcat.h"
#include "tensorflow/core/util/padding.h"

namespace tensorflow {

constexpr char kMyFloatTypes[] = "half, float, double";
static const std::string kMyModeAttr = "mode: {'fast', 'exact'} = 'fast'";

REGISTER_OP("MyStrCatAttrs")
    .Input("x: T")
    .Output("y: T")
    .Attr(absl::StrCat("T: {", kMyFloatTypes, "}"))
    .Attr(std::string("k: int = ") + "3")
    .Attr(absl::StrCat("n: int >= ", 2, " = ", 4))
    .Attr(strings::StrCat("pad_", GetPaddingAttrString()))
    .Attr(::tensorflow::strings::StrCat(kMyModeAttr))
    .Attr(std::string{"flag: bool = "} + absl::StrCat(absl::StrCat("tr", "ue")));

}  // namespace tensorflow
