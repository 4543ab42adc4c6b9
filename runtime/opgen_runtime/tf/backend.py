"""Which backend a generated wrapper call runs on: the embedded graph or TensorFlow.

The rule, first match wins:
1. `opgen_runtime.set_backend("tensorflow" | "embedded")`, else the environment variable
   `OPGEN_BACKEND=tensorflow|embedded` (read at import); `set_backend(None)` returns to
   the automatic rule below.
2. An opgen `Graph` is the default graph of this thread (`with graph.as_default():`):
   the embedded runtime.
3. TensorFlow is imported (`"tensorflow" in sys.modules`): TensorFlow, exactly as TF's own
   generated wrappers run — eagerly by default, or into the `tf.Graph`/`tf.function`
   being built. A Python-only call in eager code therefore returns an EagerTensor, never
   an embedded tensor.
4. Otherwise: the embedded runtime (its global default graph).

TensorFlow is never imported by this module; `tf_backend` imports it on first use.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from ..graph.graph import _default_stack
from ..ops import registry as _registry
from . import bridge as tf_backend
from . import op_libraries
from .bridge import tensorflow

BACKENDS = ("embedded", "tensorflow")
_selected: str | None = None


def _from_environment() -> str | None:
    value = os.environ.get("OPGEN_BACKEND", "").strip().lower()
    if not value:
        return None
    if value not in BACKENDS:
        raise ValueError(f"OPGEN_BACKEND={value!r} is not one of {', '.join(BACKENDS)}")
    return value


_selected = _from_environment()


def set_backend(name: str | None) -> None:
    """Selects "tensorflow" or "embedded" for every later op creation; None means automatic."""
    global _selected
    if name is not None and name not in BACKENDS:
        raise ValueError(
            f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)} or None"
        )
    if name == "tensorflow":
        tensorflow()
    _selected = name


def get_backend() -> str:
    """ "embedded" or "tensorflow" when set, else "auto"."""
    return _selected or "auto"


def eager_context() -> Any:
    """TF's eager context when this call runs eagerly on TensorFlow, else None.

    Generated wrappers start with it: not None means TF's eager fast path.
    """
    selected = _selected
    if selected is None:
        if "tensorflow" not in sys.modules or _default_stack():
            return None
    elif selected == "embedded":
        return None
    if _registry.pending_libraries:
        op_libraries.register_pending(stacklevel=3)  # the wrapper's caller
    context = (tf_backend._tf or tensorflow()).context
    ctx = context._context or context.context()
    return ctx if ctx._thread_local_data.is_eager else None


def active() -> bool:
    """Whether the current call goes to TensorFlow (the rule in this module's docstring)."""
    if _selected is not None:
        return _selected == "tensorflow"
    return "tensorflow" in sys.modules and not _default_stack()
