#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/util/mirror_pad_mode.h"
#include "tensorflow/core/util/padding.h"
#include "tensorflow/core/util/tensor_format.h"

namespace tensorflow {
namespace {
// File-local string constants, as TF's own op files use them.
constexpr auto kModeAttr =
    "mode: {'a', 'b'} = 'a'";
constexpr char kDirectionAttr[] = "direction: {'uni', 'bi'} = "
                                  "'uni'";
static const char* const kShadowed = "s: int = 1";
}  // namespace

std::string LocalHelper() { return "local: {'x', 'y'} = " "'x'"; }

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
    .Attr(UserHelper())
    .Attr(kModeAttr)
    .Attr(kDirectionAttr)
    .Attr(kShadowed)
    .Attr(LocalHelper());

// An op named by a constant: REGISTER_OP takes any `const char*`.
constexpr char kOpName[] = "NamedByConstant";
REGISTER_OP(kOpName).Attr(kModeAttr);

}  // namespace tensorflow
