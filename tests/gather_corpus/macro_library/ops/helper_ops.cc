// Every built-in string helper of opgen.spec.helpers, checked against TF's own functions.
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/util/mirror_pad_mode.h"
#include "tensorflow/core/util/padding.h"
#include "tensorflow/core/util/tensor_format.h"

namespace tensorflow {

REGISTER_OP("MyHelperPadding").Attr(GetPaddingAttrString()).Attr(GetConvnetFilterFormatAttrString());
REGISTER_OP("MyHelperPaddingExplicit")
    .Attr(GetPaddingAttrStringWithExplicit())
    .Attr(GetExplicitPaddingsAttrString())
    .Attr(GetConvnet3dDataFormatAttrString())
    .Attr(GetConvnet3dFilterFormatAttrString());
REGISTER_OP("MyHelperFormats").Attr(tensorflow::GetConvnetDataFormat2D3DAttrString());
REGISTER_OP("MyHelperMirrorPad").Attr(::tensorflow::GetMirrorPadModeAttrString());

}  // namespace tensorflow
