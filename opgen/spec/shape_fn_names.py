"""Which `SetShapeFn(name)` names opgen's embedded runtime knows, and the warning for a name
it does not: a real TF common shape function the runtime has no port of
(`shape_inference::RandomShape`), or most likely a typo of one (`shape_inference::UnchangedShap`).
Such an op would silently get unknown output shapes in the runtime.

The known names are the keys of the runtime's table `opgen_runtime.shapes.fn_names.PORTS`, a leaf
module the runtime builds its `NAMED` shape functions from.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable

from opgen.errors import Location, OpgenError
from opgen_runtime.shapes.fn_names import PORTS

_TF_NAMESPACES = ("shape_inference::", "tensorflow::shape_inference::")

# Every function TF 2.21's tensorflow/core/framework/common_shape_fns.h declares in namespace
# shape_inference that takes only an InferenceContext* (so `SetShapeFn` can name it): the
# runtime ports some (`PORTS`); a name of the others is TF's own, right for the op under
# TensorFlow, and no typo to correct.
TF_COMMON_SHAPE_FNS: frozenset[str] = frozenset(
    """
    AvgPool3DGradShape AvgPoolGradShape AvgPoolShape BatchMatMulShape BatchMatMulV2Shape
    BiasAddGradShape BiasAddShape BroadcastBinaryOpShapeFn ConcatV2Shape
    Conv2DBackpropFilterWithBiasShape Conv2DBackpropInputShape Conv2DShape
    Conv2DShapeWithExplicitPadding Conv3DShape ConvShape DatasetIteratorShape
    DepthwiseConv2DNativeShape DepthwiseConv2DNativeShapeWithExplicitPadding EinsumShape
    ExplicitShape ExplicitShapes FusedBatchNormExShape FusedBatchNormGradExShape
    FusedBatchNormGradShape FusedBatchNormShape FusedBatchNormV3Shape FusedQuantizedConv2DShape
    FusedQuantizedDepthwiseConv2D GatherNdShape MatMulShape MatrixDiagPartV2Shape MatrixDiagV2Shape
    MatrixSetDiagV2Shape MaxPool3DGradShape MaxPoolGradShape MaxPoolShape
    MaxPoolShapeWithExplicitPadding MergeBothInputsShapeFn NoOutputs Pool3DShape QuantizeV2Shape
    QuantizedAvgPoolShape QuantizedConv2DShape RandomShape ReduceScatterShape ReductionShape
    ScalarShape SegmentReductionWithNumSegmentsShapeFn SliceShape SparseReduceShapeFn UnchangedShape
    UnknownShape
    """.split()
)

_REGISTER = "opgen_runtime.register_shape_fn"


def shape_fn_name(text: str) -> str:
    """The function a `SetShapeFn` argument names, as written without spaces and without the
    `&` of `SetShapeFn(&Fn)` (the same function pointer); a template-id keeps its arguments
    (`ns::Fn<k2>`)."""
    return "".join(text.split()).lstrip("&")


def unqualified(name: str) -> str:
    """`Fn` of `ns::Fn` (and of the template-id `ns::Fn<a::k2>`)."""
    return name.split("<", 1)[0].rsplit("::", 1)[-1]


def builtin_shape_fn(name: str) -> bool:
    """Whether the `SetShapeFn` name `name`, which the translation unit does not define, means
    the runtime's port of TF's function: a known name, unqualified or in TF's
    `shape_inference` namespace (`mine::UnchangedShape` is the project's function; so is a
    unit's own `UnchangedShape`, which gathering translates instead; a template-id is a
    function template's, and none of TF's is one)."""
    return "<" not in name and unqualified(name) in PORTS and _may_be_tfs(name)


def _may_be_tfs(name: str) -> bool:
    """Whether a `SetShapeFn` name may mean a function of TF's `shape_inference` namespace:
    unqualified (`UnchangedShape`, with a using-declaration) or qualified by that namespace."""
    bare = name.lstrip(":")
    return "::" not in bare or bare.startswith(_TF_NAMESPACES)


def known_shape_fns() -> frozenset[str]:
    """The `SetShapeFn` names the runtime has a shape function for."""
    return frozenset(PORTS)


def unported_tf_shape_fns() -> list[str]:
    """TF's common shape functions the runtime has no port of, sorted."""
    return sorted(TF_COMMON_SHAPE_FNS - PORTS.keys())


@functools.lru_cache(maxsize=1024)
def _nearest_shape_fn(name: str, in_tf_namespace: bool) -> list[str]:
    """The known shape function closest to a misspelt `name` (difflib: a few milliseconds, so
    once per name, not per op that names it)."""
    return difflib.get_close_matches(name, PORTS.keys() | TF_COMMON_SHAPE_FNS, n=1,
                                     cutoff=0.0 if in_tf_namespace else 0.8)


def undeclared_tf_shape_fn_warning(name: str, declared: Iterable[str], location: Location) -> str | None:
    """A warning for a `SetShapeFn` name of TF's common shape functions (unqualified or in its
    `shape_inference` namespace) in a translation unit that declares neither it (`declared`) nor
    includes `common_shape_fns.h` (the caller knows every header it read): g++ rejects the op."""
    last = unqualified(name)
    if last not in TF_COMMON_SHAPE_FNS or last in declared or not _may_be_tfs(name) or "<" in name:
        return None
    return OpgenError(
        f"shape function '{name}' is declared in tensorflow/core/framework/common_shape_fns.h, which this file "
        f"includes neither directly nor through its other headers: g++ rejects it ('{last}' is not a member of "
        "'tensorflow::shape_inference'), so the op library does not compile",
        location,
        hint='add #include "tensorflow/core/framework/common_shape_fns.h"',
    ).format_warning()


def unknown_shape_fn_warning(name: str, location: Location, op: str = "MyOp") -> str | None:
    """A warning for a `SetShapeFn` name the runtime does not know when it is one of TF's
    common shape functions, names TF's `shape_inference` namespace, or is close to a known
    name; None for a known name or a library's own function (which only the compiled library
    runs; a template-id is a function template's, never one of those). `op`: the op's name, for the
    hint's `register_shape_fn` call."""
    known = PORTS.keys()
    last = name.rsplit("::", 1)[-1]
    if last in known or "<" in name:
        return None
    register = f'{_REGISTER}("{op}", fn)'
    in_tf_namespace = name.lstrip(":").startswith(_TF_NAMESPACES)
    if last in TF_COMMON_SHAPE_FNS and _may_be_tfs(name):
        return OpgenError(
            f"shape function '{name}' is one of TensorFlow's (common_shape_fns.h) that opgen's runtime has no port "
            "of, so without TensorFlow the op's outputs get unknown shapes (on TensorFlow, TF's own function runs)",
            location,
            hint=f"keep it; for shapes without TensorFlow too, register a Python shape function: {register} "
            "(docs/runtime.md lists the ported functions)",
        ).format_warning()
    nearest = _nearest_shape_fn(last, in_tf_namespace)
    if not nearest:
        return None
    if nearest[0] in known:
        hint = (f"did you mean shape_inference::{nearest[0]}? (a function of your own: register it in Python "
                f"with {register})")
    else:
        hint = (f"did you mean shape_inference::{nearest[0]}? (TensorFlow's, which opgen's runtime has no port of: for "
                f"shapes without TensorFlow, or a function of your own, register it in Python with {register})")
    return OpgenError(
        f"unknown shape function '{name}': opgen's runtime has no shape function of that name, so without "
        "TensorFlow the op's outputs get unknown shapes",
        location,
        hint=hint,
    ).format_warning()
