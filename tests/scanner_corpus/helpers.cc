#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/util/mirror_pad_mode.h"
#include "tensorflow/core/util/padding.h"
#include "tensorflow/core/util/tensor_format.h"

namespace tensorflow {

REGISTER_OP("Conv")
    .Attr(GetPaddingAttrString())
    .Attr(GetPaddingAttrStringWithExplicit())
    .Attr(GetExplicitPaddingsAttrString())
    .Attr(GetConvnetDataFormatAttrString())
    .Attr(::tensorflow::GetConvnet3dDataFormatAttrString())
    .Attr(tensorflow::GetConvnetDataFormat2D3DAttrString())
    .Attr(GetConvnetFilterFormatAttrString())
    .Attr(GetConvnet3dFilterFormatAttrString())
    .Attr(GetMirrorPadModeAttrString())
    .Attr("prefix_" + GetPaddingAttrString() + " ")
    .Attr(kUserConstant)
    .Attr(UserHelper());

}  // namespace tensorflow
