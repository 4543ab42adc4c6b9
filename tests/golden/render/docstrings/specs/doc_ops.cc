// F10: summary, description, Args type lines, `=` descriptions, AppendWithinWidth, Returns.
#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Documented")
    .Input("x: T")
    .Input("y: T")
    .Input("indices: Tidx")
    .Attr("T: {float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("mode: {'fast', 'exact'} = 'fast'")
    .Attr("count: int >= 2")
    .Attr("ratios: list(float) >= 1 = [0.5]")
    .Output("z: T")
    .Doc(R"doc(
Combines `x` and `y` with a very long summary line that goes on and on past the margin.

The description has several paragraphs.

  An indented block stays indented,
  relative to the rest.

x: The first operand. It has a long description that will not fit on the line with its type phrase.
y:= Same shape as `x`; the type phrase is replaced by this text.
indices: Short.
mode: How to combine: "fast" or "exact" (with \backslashes\ and """quotes""").
count: How many.
z: The combination.
)doc");

REGISTER_OP("TwoOutputs")
    .Input("a: float")
    .Output("lo: float")
    .Output("hi: float")
    .Doc(R"doc(
Splits `a`.

lo: The lower half, with a description long enough to run past the seventy-four column margin.
hi:= The upper half, described in full.
)doc");

REGISTER_OP("Undocumented").Input("a: float").Output("b: int32");

}  // namespace tensorflow
