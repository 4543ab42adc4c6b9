"""Run code right after a module is imported, without importing it (TensorFlow, here).

The runtime binds to TensorFlow lazily: importing a generated module must not import TF
(it costs seconds), yet some things must happen as soon as TF exists: listing wrappers in
TF's dispatch registry (`dispatch`), registering op libraries (`op_libraries`).
`call_when_imported(name, callback)` calls `callback(module)` at once when `name` is
imported already, else right after the module's code has run, from a meta path finder
that is in `sys.meta_path` only while some callback waits.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

_lock = threading.Lock()
_waiting: dict[str, list[Callable[[ModuleType], None]]] = {}  # module name -> callbacks
_hook: _CallWhenImported | None = None


def imported(name: str) -> ModuleType | None:
    """The module if its code has run to the end, else None (not imported, or importing now).

    `__spec__._initializing` is what importlib itself reads (`_bootstrap._find_and_load`)
    to tell a module still executing from a finished one.
    """
    module = sys.modules.get(name)
    if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
        return None
    return module


def call_when_imported(name: str, callback: Callable[[ModuleType], None]) -> None:
    """`callback(module)` now if `name` is imported, else once its import has executed it.

    A module that is being imported right now (this call comes from code it runs) gets no
    hook: its finder has already run. Callers handle that case on first use.
    """
    global _hook
    module = imported(name)
    if module is not None:
        callback(module)
        return
    if name in sys.modules:
        return
    with _lock:
        _waiting.setdefault(name, []).append(callback)
        if _hook is None:
            _hook = _CallWhenImported()
            sys.meta_path.insert(0, _hook)


def _take(name: str) -> list[Callable[[ModuleType], None]]:
    """The callbacks waiting for `name`, removed (and the hook, when none waits any more)."""
    global _hook
    with _lock:
        callbacks = _waiting.pop(name, [])
        if not _waiting and _hook is not None:
            sys.meta_path.remove(_hook)
            _hook = None
    return callbacks


class _CallWhenImported:
    """A meta path finder that wraps the loader of each awaited module.

    It implements the protocols of `importlib.abc.MetaPathFinder` and `Loader` without
    importing `importlib.abc` (which costs more than the whole runtime).
    """

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in _waiting:
            return None
        callbacks = _take(fullname)
        if not callbacks:
            return None
        for finder in sys.meta_path:  # the spec the import would have found without this hook
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec: Any = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _CallingLoader(spec.loader, callbacks)
        return spec


class _CallingLoader:
    """The module's own loader, then the callbacks."""

    def __init__(self, loader: Any, callbacks: list[Callable[[ModuleType], None]]) -> None:
        self._loader = loader
        self._callbacks = callbacks

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        for callback in self._callbacks:
            callback(module)

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, is_package, ... of the real loader
        return getattr(self._loader, name)
