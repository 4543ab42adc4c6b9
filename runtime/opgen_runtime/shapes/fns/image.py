"""Ports of the shape functions of TF's image ops (tensorflow/core/ops/image_ops.cc)."""

from __future__ import annotations

from ..context import InferenceContext, ShapeError
from .common import ShapeFn, unchanged_shape_with_rank_at_least


def _resize(c: InferenceContext) -> None:
    """TF's ResizeShapeFn with SetOutputToSizedImage."""
    images = c.with_rank(c.input(0), 4)
    size = c.with_rank(c.input(1), 1)
    c.with_value(c.dim(size, 0), 2)
    value = c.input_tensor(1)
    height = width = None
    if value is not None:
        # MakeDim(-1) is an unknown dimension
        height, width = (None if v == -1 else int(v) for v in value[0][:2])
    c.set_output(0, c.make_shape([c.dim(images, 0), height, width, c.dim(images, 3)]))


def _original_image(c: InferenceContext) -> None:
    c.set_output(0, c.input(1))


def _colorspace(c: InferenceContext) -> None:
    """TF's ColorspaceShapeFn: the last dimension holds 3 channels."""
    shape = c.with_rank_at_least(c.input(0), 1)
    last = c.with_value(c.dim(shape, -1), 3)
    c.set_output(0, c.replace_dim(shape, -1, last))


def _adjust_contrast(c: InferenceContext) -> None:
    c.with_rank(c.input(1), 0)
    unchanged_shape_with_rank_at_least(c, 3)


def _adjust(c: InferenceContext) -> None:
    unchanged_shape_with_rank_at_least(c, 3)


def _channels(c: InferenceContext) -> int | None:
    channels = c.get_attr("channels")
    if channels == 0:
        return None
    if channels < 0:
        raise ShapeError(f"channels must be non-negative, got {channels}")
    return int(channels)


def _decode_image(c: InferenceContext) -> None:
    """TF's DecodeImageShapeFn: a scalar string in, [height, width, channels] out."""
    c.with_rank(c.input(0), 0)
    c.set_output(0, c.make_shape([None, None, _channels(c)]))


def _encode_image(c: InferenceContext) -> None:
    c.with_rank(c.input(0), 3)
    c.set_output(0, c.scalar())


def _extract_jpeg_shape(c: InferenceContext) -> None:
    c.with_rank(c.input(0), 0)
    c.set_output(0, c.vector(3))


def _non_max_suppression(c: InferenceContext) -> None:
    """NonMaxSuppression (V1-V3): boxes [n, 4], scores [n], scalar limits."""
    boxes = c.with_rank(c.input(0), 2)
    scores = c.with_rank(c.input(1), 1)
    for i in range(2, c.num_inputs):
        c.with_rank(c.input(i), 0)
    c.merge_dim(c.dim(boxes, 0), c.dim(scores, 0))
    c.with_value(c.dim(boxes, 1), 4)
    c.set_output(0, c.vector(None))


BY_OP: dict[str, ShapeFn] = {
    "AdjustContrastv2": _adjust_contrast,
    "AdjustHue": _adjust,
    "AdjustSaturation": _adjust,
    "DecodeBmp": _decode_image,
    "DecodeJpeg": _decode_image,
    "DecodePng": _decode_image,
    "EncodeJpeg": _encode_image,
    "ExtractJpegShape": _extract_jpeg_shape,
    "HSVToRGB": _colorspace,
    "RGBToHSV": _colorspace,
    "NonMaxSuppression": _non_max_suppression,
    "NonMaxSuppressionV2": _non_max_suppression,
    "NonMaxSuppressionV3": _non_max_suppression,
    "ResizeArea": _resize,
    "ResizeBicubic": _resize,
    "ResizeBilinear": _resize,
    "ResizeNearestNeighbor": _resize,
    "ResizeBicubicGrad": _original_image,
    "ResizeBilinearGrad": _original_image,
}
