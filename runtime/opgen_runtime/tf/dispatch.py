"""TensorFlow's API dispatch for generated wrappers, bound to TensorFlow only when used.

TF's generator (`python_op_gen.cc` GenPythonOp::AddEagerFastPathAndGraphCode) decorates
every op whose ApiDef visibility is VISIBLE with `dispatch.add_fallback_dispatch_list` and
`dispatch.add_type_based_api_dispatcher`. Its wrapper then asks the type-based dispatcher
(`_dispatcher_for_<op>(args, None)`, TF's `tf.experimental.dispatch_for_api` targets) before
the eager fallback or the graph path, and on a TypeError or ValueError from
`_apply_op_helper` asks the fallback dispatchers (`dispatch.dispatch`: the op's
`OpDispatcher`s, then the global ones). Generated modules do the same with these two
decorators, which need no TensorFlow:

- `add_fallback_dispatch_list` sets TF's attribute (`_tf_fallback_dispatchers`) to an
  empty list, which TF's `OpDispatcher.register` appends to and `dispatch.dispatch` reads;
- `add_type_based_api_dispatcher` sets TF's attribute (`_tf_type_based_dispatcher`) to an
  `ApiDispatcher`, which becomes TF's own decorator (`PythonAPIDispatcher`, the entry in
  `_TYPE_BASED_DISPATCH_SIGNATURES`) the first time TF registers a target on it. Until
  then no target can match, so its `Dispatch` answers NotImplemented without TensorFlow.

Dispatch only happens for calls that run on TensorFlow (`backend`); the embedded runtime
never consults it.
"""

from __future__ import annotations

import collections
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from . import backend as _backend
from . import import_hooks as _import_hooks

# TF's attribute names (`tensorflow/python/util/dispatch.py` FALLBACK_DISPATCH_ATTR,
# TYPE_BASED_DISPATCH_ATTR): TF's dispatch functions look them up on the wrapper.
FALLBACK_DISPATCH_ATTR = "_tf_fallback_dispatchers"
TYPE_BASED_DISPATCH_ATTR = "_tf_type_based_dispatcher"

NOT_SUPPORTED = object()  # `ApiDispatcher.fallback`: no fallback dispatcher handled the call

# Whether any wrapper's `ApiDispatcher` is bound to TF's (TF registered a target on it). Until
# then no type-based target exists, and wrappers skip asking (the check costs ~10 ns, the
# call ~0.1-0.2 us, which the embedded runtime's op creation would pay on every op).
bound = False

_bind_lock = threading.Lock()

F = TypeVar("F", bound=Callable[..., Any])


def add_fallback_dispatch_list(api: F) -> F:
    """TF's `dispatch.add_fallback_dispatch_list`: an empty list of `OpDispatcher`s."""
    setattr(api, FALLBACK_DISPATCH_ATTR, [])
    return api


def add_type_based_api_dispatcher(api: F) -> F:
    """TF's `dispatch.add_type_based_api_dispatcher`, deferred until TF registers a target."""
    setattr(api, TYPE_BASED_DISPATCH_ATTR, ApiDispatcher(api))
    tf_dispatch = sys.modules.get(_TF_DISPATCH)
    if tf_dispatch is not None:
        _list_api(tf_dispatch, api)
        return api
    with _bind_lock:
        first = not _unlisted
        _unlisted.append(api)
    if first:
        _import_hooks.call_when_imported(_TF_DISPATCH, _list_unlisted)
    return api


def api_dispatcher(api: Callable[..., Any]) -> ApiDispatcher:
    """The `ApiDispatcher` `add_type_based_api_dispatcher` gave `api` (the generated module's
    `_dispatcher_for_<function>`, TF's `<function>._tf_type_based_dispatcher.Dispatch`)."""
    dispatcher = getattr(api, TYPE_BASED_DISPATCH_ATTR)
    assert isinstance(dispatcher, ApiDispatcher)
    return dispatcher


# TF's `dispatch_for_api` looks the API up in `_TYPE_BASED_DISPATCH_SIGNATURES` (an entry
# TF's decorator adds) before it registers anything, so every wrapper is listed there as
# soon as TF's dispatch module exists: at decoration when TF is imported already, else
# right after TF imports that module (`import_hooks`).
_TF_DISPATCH = "tensorflow.python.util.dispatch"
_unlisted: list[Callable[..., Any]] = []


def _list_api(tf_dispatch: Any, api: Callable[..., Any]) -> None:
    tf_dispatch._TYPE_BASED_DISPATCH_SIGNATURES.setdefault(api, collections.defaultdict(list))


def _list_unlisted(tf_dispatch: Any) -> None:
    with _bind_lock:
        apis = _unlisted[:]
        del _unlisted[:]
    for api in apis:
        _list_api(tf_dispatch, api)


class ApiDispatcher:
    """Stands in for TF's `PythonAPIDispatcher` of one wrapper until TF first uses it.

    TF's `dispatch_for_api` reads the wrapper's attribute and calls `Register`; that (or
    `Unregister`, the only other method TF's `dispatch` module calls) runs TF's own
    `add_type_based_api_dispatcher` on the wrapper, which replaces the attribute with TF's
    dispatcher, and calls are forwarded to it from then on. The generated module keeps this
    object as `_dispatcher_for_<function>`.
    """

    __slots__ = ("_api", "_tf")

    def __init__(self, api: Callable[..., Any]) -> None:
        self._api = api
        self._tf: Any = None  # TF's PythonAPIDispatcher, once bound

    def _bind(self) -> Any:
        with _bind_lock:
            if self._tf is None:
                from tensorflow.python.util import dispatch

                if getattr(self._api, TYPE_BASED_DISPATCH_ATTR, None) is self:
                    delattr(self._api, TYPE_BASED_DISPATCH_ATTR)
                    # TF's decorator resets the API's entry, which may hold signatures already
                    listed = dispatch._TYPE_BASED_DISPATCH_SIGNATURES.get(self._api)
                    dispatch.add_type_based_api_dispatcher(self._api)
                    if listed is not None:
                        dispatch._TYPE_BASED_DISPATCH_SIGNATURES[self._api] = listed
                self._tf = getattr(self._api, TYPE_BASED_DISPATCH_ATTR)
                global bound
                bound = True
        return self._tf

    def Register(self, checker: Any, target: Any) -> None:  # noqa: N802 - TF's method name
        self._bind().Register(checker, target)

    def Unregister(self, target: Any) -> None:  # noqa: N802 - TF's method name
        self._bind().Unregister(target)

    def Dispatch(self, args: tuple[Any, ...], kwargs: Any) -> Any:  # noqa: N802 - TF's method name
        """TF's type-based dispatch: a target's result, or NotImplemented."""
        dispatcher = self._tf
        if dispatcher is None or not _backend.active():
            return NotImplemented
        return dispatcher.Dispatch(args, kwargs)

    def fallback(self, ctx: Any, local: dict[str, Any], attrs: tuple[str, ...]) -> Any:
        """TF's `dispatch.dispatch(op, (), kwargs)` after a TypeError or ValueError, else NOT_SUPPORTED.

        `kwargs` holds the wrapper's parameters (`local`: its `locals()`): as given when the
        call ran eagerly (`ctx`), as TF's eager branch passes them, else with the `attrs` as
        converted (`_attr_<name>`), as TF's graph branch does.
        """
        if not _backend.active():
            return NOT_SUPPORTED
        from tensorflow.python.util import dispatch

        code = self._api.__code__
        kwargs = {name: local[name] for name in code.co_varnames[: code.co_argcount]}
        if ctx is None:
            for attr in attrs:
                kwargs[attr] = local["_attr_" + attr]
        result = dispatch.dispatch(self._api, (), kwargs)
        return NOT_SUPPORTED if result is dispatch.OpDispatcher.NOT_SUPPORTED else result
