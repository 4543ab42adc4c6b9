// F4 snake-casing, F3 reserved/visible rules, AvoidPythonReserved on argument names.
#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("MatMulLike").Input("a: float").Output("b: float");
REGISTER_OP("Conv2DBackpropInputLike").Input("input: float").Output("output: float");
REGISTER_OP("RGBToHSVLike").Input("images: float").Output("out: float");
REGISTER_OP("L2LossLike").Input("t: float").Output("out: float");
REGISTER_OP("CTCLossLike").Input("x: float").Output("y: float");
REGISTER_OP("Xla2Foo").Input("x: float").Output("y: float");
REGISTER_OP("ABc").Input("x: float").Output("y: float");
REGISTER_OP("Ab_Cd").Input("x: float").Output("y: float");
REGISTER_OP("UTF8DecodeLike").Input("x: string").Output("y: string");
// A visible op whose snake name is a keyword is not generated (as in TF).
REGISTER_OP("Print").Input("x: float").Output("y: float");
// A name that is merely a builtin shadows it.
REGISTER_OP("Sorted").Input("x: float").Output("y: float");
// Argument names that are Python keywords (incl. the Python 3 ones TF forgot) get `_`.
REGISTER_OP("KeywordArgs")
    .Input("lambda: float")
    .Input("async: float")
    .Input("input: float")
    .Attr("await: int = 1")
    .Attr("nonlocal: bool = false")
    .Output("out: float");

}  // namespace tensorflow
