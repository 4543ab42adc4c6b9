"""What generated wrappers call besides `_apply_op_helper`, like TF's `eager.execute` module.

Attr conversions (TF's `_execute.make_*`): `make_type` returns the DataType enum,
`make_str` bytes, `make_shape` a list (None for unknown rank); `make_tensor` also parses a
text-format TensorProto.

TensorFlow's eager branch: `eager_context()` is None unless the call runs eagerly on
TensorFlow (see `backend`); then the wrapper calls `fast_path_execute` (TF's
`TFE_Py_FastPathExecute` itself) and handles `NotOkStatusException` with
`raise_from_not_ok_status`; on `FallbackException` it goes on with its conversions and
`_apply_op_helper`, which runs TF's eager fallback (`tf.bridge`). Those three names are
TensorFlow's and resolve on first use (only then: TensorFlow is imported by then), so they
are not in `__all__`.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from opgen_runtime.proto import tensor_pb2

from ..tf import op_libraries as _op_libraries
from ..tf.backend import eager_context
from ..tf.bridge import raise_from_not_ok_status, tensorflow
from ..values import tensor_shape as _tensor_shape
from ..values.attr_values import make_bool, make_float, make_int, make_str, make_type
from ..values.tf_objects import as_own_message

if TYPE_CHECKING:
    # PEP 702's decorator, for checkers only: a deprecated alias's stub in generated code
    # (`if TYPE_CHECKING:`) is marked with it, so checkers and IDEs flag its callers as
    # `deprecated_alias` warns them at run time; nothing imports it when the code runs.
    from typing_extensions import deprecated as deprecated

__all__ = [
    "deprecated_alias",
    "eager_context",
    "make_bool",
    "make_float",
    "make_int",
    "make_shape",
    "make_str",
    "make_tensor",
    "make_type",
    "raise_from_not_ok_status",
]

_FROM_TENSORFLOW = frozenset(
    ("fast_path_execute", "FallbackException", "NotOkStatusException")
)


def __getattr__(name: str) -> Any:
    """TensorFlow's fast path and exception classes, bound here on first use."""
    if name not in _FROM_TENSORFLOW:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(tensorflow(), name)
    globals()[name] = value
    return value


def guard_fast_path(guard: Callable[[str], None] | None) -> None:
    """Makes `fast_path_execute` call `guard(op_name)` first (`op_libraries.check_op`: the ops
    of a library that failed raise its error, though TF may run them, e.g. a stale library's),
    or, with None, TF's function itself again: a process whose libraries all registered pays
    nothing per call. Generated wrappers look the name up on this module at every call."""
    fast_path_execute = tensorflow().fast_path_execute
    if guard is None:
        globals()["fast_path_execute"] = fast_path_execute
        return

    def guarded(ctx: Any, op_name: str, name: Any, *args: Any) -> Any:
        guard(op_name)
        return fast_path_execute(ctx, op_name, name, *args)

    globals()["fast_path_execute"] = guarded


_op_libraries.fast_path_guards.append(guard_fast_path)
if _op_libraries.failed_ops:  # (a library failed before this module was imported)
    guard_fast_path(_op_libraries.check_op)


_P = ParamSpec("_P")
_R = TypeVar("_R")


# A part of a split module (`gen_x._part1`, opgen's max_ops_per_module) is private: its
# package, which imports every part's functions, is what users import and call.
_PART = re.compile(r"\._part\d+\Z")


def deprecated_alias(function: Callable[_P, _R], alias: str) -> Callable[_P, _R]:
    """What a deprecated endpoint (ApiDef `endpoint { deprecated: true }`) binds: `function`,
    warning at each call (a `DeprecationWarning` at the caller's line: Python's filters show
    it once per line) that `alias` is deprecated, as TF's `deprecated_endpoints` logs."""
    module = _PART.sub("", function.__module__)
    message = f"{module}.{alias} is deprecated: use {module}.{function.__name__} instead"

    @functools.wraps(function)
    def warned(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return function(*args, **kwargs)

    warned.__name__ = warned.__qualname__ = alias
    return warned


def make_shape(v: Any, arg_name: str) -> list[int | None] | None:
    try:
        shape = _tensor_shape.as_shape(v)
    except TypeError as e:
        raise TypeError(f"Error converting {arg_name} to a TensorShape: {e}.") from None
    except ValueError as e:
        raise ValueError(
            f"Error converting {arg_name} to a TensorShape: {e}."
        ) from None
    return None if shape.rank is None else shape.as_list()


def make_tensor(v: Any, arg_name: str) -> tensor_pb2.TensorProto:
    v = as_own_message(v, tensor_pb2.TensorProto) or v  # TF's own TensorProto
    if isinstance(v, tensor_pb2.TensorProto):
        return v
    if isinstance(v, str):
        from google.protobuf import text_format

        proto = tensor_pb2.TensorProto()
        text_format.Merge(v, proto)
        return proto
    raise TypeError(
        f"Don't know how to convert {v!r} to a TensorProto for argument '{arg_name}'."
    )
