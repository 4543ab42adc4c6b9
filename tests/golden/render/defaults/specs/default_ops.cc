// F8: every attr default as TF renders it.
#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Defaults")
    .Attr("s: string = 'caf\\303\\251 \\t \\'q\\' \"dq\" \\\\ {{ jinja }}'")
    .Attr("s_empty: string = ''")
    .Attr("i: int = -9223372036854775808")
    .Attr("f_small: float = 1e-07")
    .Attr("f_big: float = 1234567.0")
    .Attr("f_pi: float = 3.14159265")
    .Attr("f_neg_zero: float = -0.0")
    .Attr("f_hundred: float = 100")
    .Attr("b: bool = true")
    .Attr("t_half: type = DT_HALF")
    .Attr("t_float: type = DT_FLOAT")
    .Attr("t_bool: type = DT_BOOL")
    .Attr("shape_unknown: shape = { unknown_rank: true }")
    .Attr("shape_partial: shape = { dim { size: -1 } dim { size: 3 } }")
    .Attr("shape_scalar: shape = {}")
    .Attr("ten: tensor = { dtype: DT_INT32 tensor_shape { } int_val: 7 }")
    .Attr("li: list(int) = [1, 2, 3]")
    .Attr("l_empty: list(int) = []")
    .Attr("lf: list(float) = [0.5, 10, 1e+10]")
    .Attr("ls: list(string) = ['a', 'b\\n']")
    .Attr("lb: list(bool) = [true, false]")
    .Attr("lt: list(type) = [DT_INT32, DT_DOUBLE]")
    .Attr("lshape: list(shape) = [{}, { dim { size: 1 } }]");

}  // namespace tensorflow
