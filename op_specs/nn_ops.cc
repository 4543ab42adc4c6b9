// Example op library, nn module: convolution, pooling, activations.
//
// Padding and data-format attrs come from TensorFlow's helper functions, exactly as in
// TF's own nn_ops.cc; opgen resolves them from its built-in helper table.

#include "common_macros.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/util/padding.h"
#include "tensorflow/core/util/tensor_format.h"

namespace tensorflow {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// The four attrs every 2-D convolution shares, in TF's order.
#define CONV2D_WINDOW_ATTRS()                    \
  Attr(GetPaddingAttrStringWithExplicit())       \
      .Attr(GetExplicitPaddingsAttrString())     \
      .Attr(GetConvnetDataFormatAttrString())    \
      .Attr("dilations: list(int) = [1, 1, 1, 1]")

REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .CONV2D_WINDOW_ATTRS()
    .SetShapeFn(shape_inference::Conv2DShapeWithExplicitPadding)
    .Doc(R"doc(
2-D convolution of a batch of images with a bank of filters.

The filter is laid out as `[height, width, in_channels, out_channels]`; the
image layout follows `data_format`.

input: A rank-4 batch of images.
filter: A rank-4 filter bank.
strides: Step of the sliding window per dimension of `input` (length 4).
use_cudnn_on_gpu: Allow the cuDNN implementation on GPUs.
padding: SAME pads to keep spatial sizes (for stride 1), VALID does not pad,
  EXPLICIT takes the amounts from `explicit_paddings`.
explicit_paddings: Pairs of (before, after) amounts per dimension, only with
  EXPLICIT padding.
data_format: NHWC (channels last) or NCHW (channels first).
dilations: Spacing between filter taps per dimension.
)doc");

REGISTER_OP("DepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .CONV2D_WINDOW_ATTRS()
    .SetShapeFn(shape_inference::DepthwiseConv2DNativeShapeWithExplicitPadding)
    .Doc(R"doc(
Convolves each input channel with its own set of filters.

filter: `[height, width, in_channels, channel_multiplier]`.
)doc");

REGISTER_OP("MaxPool")
    .Attr(
        "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
        "uint16, qint8} = DT_FLOAT")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(GetPaddingAttrStringWithExplicit())
    .Attr(GetExplicitPaddingsAttrString())
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Input("input: T")
    .Output("output: T")
    .SetShapeFn(shape_inference::MaxPoolShapeWithExplicitPadding)
    .Doc(R"doc(
Largest value in each sliding window.

ksize: Window size per dimension of `input`.
strides: Window step per dimension of `input`.
)doc");

REGISTER_OP("BiasAdd")
    .Attr("T: numbertype")
    .Input("value: T")
    .Input("bias: T")
    .Attr(GetConvnetDataFormatAttrString())
    .Output("output: T")
    .SetShapeFn(shape_inference::BiasAddShape)
    .Doc(R"doc(
Adds a per-channel bias.

value: Any rank >= 2.
bias: A vector as long as the channel dimension of `value`.
data_format: Which dimension holds the channels.
)doc");

REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {realnumbertype, qint8}")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Clamps negative values to zero.
)doc");

REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Like Relu, but negative values are scaled by `alpha` instead of zeroed.

alpha: Slope for negative inputs.
)doc");

REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn([](InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRankAtLeast(c, 1);
    })
    .Doc(R"doc(
Normalised exponentials over the last axis.

logits: Unscaled scores, rank 1 or more.
softmax: Probabilities summing to one along the last axis.
)doc");

REGISTER_OP("TopK")
    .Input("input: T")
    .Output("values: T")
    .Output("indices: int32")
    .Attr("k: int >= 0")
    .Attr("sorted: bool = true")
    .Attr("T: realnumbertype")
    .Deprecated(7, "Use TopKV2 instead")
    .PER_OP_SHAPE_FN
    .Doc(R"doc(
The `k` largest entries of the last axis and where they are.

k: How many entries to keep.
sorted: Return them in descending order.
values: The kept entries.
indices: Their positions along the last axis.
)doc");

}  // namespace tensorflow
