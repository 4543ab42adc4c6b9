"""The names generated wrappers' annotations use (`_api_types.TensorLike`, ...; docs/typing.md).

Type checkers read them from `typing_aliases`. At run time annotations stay strings (`from
__future__ import annotations`), so a generated module's import never needs them: the
Protocols and unions of `typing_aliases` are built on first access (`typing.get_type_hints`
of a wrapper), which keeps them out of every module's import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "DType",
    "DTypeLike",
    "FuncLike",
    "InferenceContext",
    "ListOrTuple",
    "Operation",
    "ShapeLike",
    "Tensor",
    "TensorLike",
    "TensorLikeList",
    "TensorProtoLike",
]

if TYPE_CHECKING:
    from .typing_aliases import (
        DType,
        DTypeLike,
        FuncLike,
        InferenceContext,
        ListOrTuple,
        Operation,
        ShapeLike,
        Tensor,
        TensorLike,
        TensorLikeList,
        TensorProtoLike,
    )
else:

    def __getattr__(name: str) -> Any:
        if name not in __all__:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from . import typing_aliases

        value = getattr(typing_aliases, name)
        globals()[name] = value
        return value
