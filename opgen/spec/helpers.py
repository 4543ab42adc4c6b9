"""String-returning C++ helpers used inside Attr/Input/Output, e.g.
`.Attr(GetPaddingAttrString())`: TensorFlow's well-known ones (exact strings of TF 2.21,
tensorflow/core/util/padding.cc, tensor_format.cc, mirror_pad_mode.cc; trailing spaces
included) plus user-defined ones from `[tool.opgen.helpers]`.
"""

from __future__ import annotations

from collections.abc import Mapping

BUILTIN_HELPERS: dict[str, str] = {
    "GetPaddingAttrString": "padding: {'SAME', 'VALID'}",
    "GetPaddingAttrStringWithExplicit": "padding: {'SAME', 'VALID', 'EXPLICIT'}",
    "GetExplicitPaddingsAttrString": "explicit_paddings: list(int) = []",
    "GetConvnetDataFormatAttrString": "data_format: { 'NHWC', 'NCHW' } = 'NHWC' ",
    "GetConvnet3dDataFormatAttrString": "data_format: { 'NDHWC', 'NCDHW' } = 'NDHWC' ",
    "GetConvnetDataFormat2D3DAttrString": "data_format: { 'NHWC', 'NCHW', 'NDHWC', 'NCDHW' } = 'NHWC' ",
    "GetConvnetFilterFormatAttrString": "filter_format: { 'HWIO', 'OIHW' } = 'HWIO' ",
    "GetConvnet3dFilterFormatAttrString": "filter_format: { 'DHWIO', 'OIDHW' } = 'DHWIO' ",
    "GetMirrorPadModeAttrString": "mode: {'REFLECT', 'SYMMETRIC'}",
}


def helper_table(user: Mapping[str, str] | None) -> dict[str, str]:
    """Built-in helpers overlaid with the user's (a user entry replaces a built-in one).
    Keys are names, unqualified or qualified: `tensorflow::GetPaddingAttrString()` looks up
    `tensorflow::GetPaddingAttrString`, then `GetPaddingAttrString` (`chains`)."""
    table = dict(BUILTIN_HELPERS)
    table.update({name.lstrip(":"): value for name, value in (user or {}).items()})  # `::ns::F` is `ns::F`
    return table
