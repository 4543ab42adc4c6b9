// Overrides: skip, hide, rename_to, alias, attr_default, input/attr/output renames, ApiDef files.
#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("Gone").Input("x: float").Output("y: float");
REGISTER_OP("Abs").Input("x: T").Attr("T: {float, int32}").Output("y: T");
REGISTER_OP("Add").Input("x: T").Input("y: T").Attr("T: {float, int32}").Output("z: T");
REGISTER_OP("AddV2").Input("x: T").Input("y: T").Attr("T: {float, int32}").Output("z: T");
REGISTER_OP("Mul").Input("x: T").Input("y: T").Attr("T: {float, int32}").Output("z: T");
REGISTER_OP("ArgMaxLike")
    .Input("input: T")
    .Input("dimension: int32")
    .Attr("T: {float, int32}")
    .Attr("output_type: {int32, int64} = DT_INT64")
    .Output("output: output_type");
REGISTER_OP("SumLike")
    .Input("input: T")
    .Input("reduction_indices: int32")
    .Attr("keep_dims: bool = false")
    .Attr("T: {float, int32}")
    .Output("output: T")
    .Doc(R"doc(
Sums `input` along `reduction_indices`.

input: The tensor to reduce.
reduction_indices: The dimensions to reduce.
keep_dims: If true, retains reduced dimensions with length 1.
)doc");
REGISTER_OP("MinMax")
    .Input("x: float")
    .Output("min_value: float")
    .Output("max_value: float");
REGISTER_OP("Reordered")
    .Input("a: float")
    .Input("b: int32")
    .Output("c: float");

}  // namespace tensorflow
