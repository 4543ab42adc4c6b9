// F6/F7 parameter order, inferred attrs, list inputs, annotations (F9), outputs (F11, F12).
#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Ordering")
    .Input("x: T")
    .Input("y: T")
    .Attr("T: {float, int32}")
    .Attr("with_default: int = 3")
    .Attr("required: string")
    .Attr("out_type: {int32, int64} = DT_INT64")
    .Attr("dst: type")
    .Output("z: out_type");

REGISTER_OP("ListInputs")
    .Input("values: N * T")
    .Input("more: N * T")
    .Input("fixed: M * int32")
    .Attr("N: int >= 1")
    .Attr("M: int >= 0")
    .Attr("T: type")
    .Output("sum: T");

REGISTER_OP("TypeLists")
    .Input("args: Tin")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type)")
    .Output("results: Tout");

REGISTER_OP("SplitLike")
    .Input("split_dim: int32")
    .Input("value: T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Output("output: num_split * T");

REGISTER_OP("ManyOutputs")
    .Input("x: T")
    .Attr("T: {half, float}")
    .Attr("n: int >= 0")
    .Output("first: T")
    .Output("middle: n * T")
    .Output("count: int64")
    .Output("last_list: n * int32");

REGISTER_OP("NoOutputs").Input("x: float").SetIsStateful();

REGISTER_OP("StatefulListOutput")
    .Attr("n: int >= 0")
    .Output("out: n * float")
    .SetIsStateful();

REGISTER_OP("SingleType")
    .Input("x: T")
    .Attr("T: {bfloat16}")
    .Output("y: T");

}  // namespace tensorflow
