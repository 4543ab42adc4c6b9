"""The TensorFlow backend: generated wrappers drive real TensorFlow instead of the embedded graph.

Selection, first match wins:
1. `opgen.runtime.set_backend("tensorflow" | "embedded")` (`None` returns to automatic);
2. the environment variable `OPGEN_BACKEND=tensorflow|embedded` (read at import);
3. automatic: TensorFlow is already imported and either TF is building a graph
   (`with tf.Graph().as_default():`, `tf.function` tracing) or an input is a TF tensor.

Graph mode creates ops through TF's own `op_def_library._apply_op_helper`; eager mode runs
the same call inside a throw-away `tf.function` and returns eager tensors (the Operation
is then None, as TF's eager wrappers return None for ops without outputs).

Ops must be registered in TensorFlow: built-in ops are; custom ops need their compiled
library loaded first with `tf.load_op_library("path/to/lib.so")`, otherwise the call fails
with a RuntimeError saying so. TensorFlow is imported only here, lazily.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from opgen.proto import op_def_pb2

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
        _tensorflow()
    _selected = name


def get_backend() -> str:
    return _selected or "auto"


def active(keywords: dict[str, Any]) -> bool:
    """Whether this call goes to TensorFlow."""
    if _selected is not None:
        return _selected == "tensorflow"
    tf = sys.modules.get("tensorflow")
    if tf is None:
        return False
    context = sys.modules.get("tensorflow.python.eager.context")
    if not (
        context.executing_eagerly() if context is not None else tf.executing_eagerly()
    ):
        return True
    plain = _PLAIN
    for value in keywords.values():
        kind = type(value)
        if kind in plain:
            continue
        if kind is list or kind is tuple:
            for item in value:
                if type(item) not in plain and tf.is_tensor(item):
                    return True
        elif tf.is_tensor(value):
            return True
    return False


def _plain_types() -> set[type]:
    from .graph import Operation, Tensor

    return {Tensor, Operation, int, float, bool, str, bytes, type(None)}


_PLAIN = _plain_types()


def _tensorflow() -> Any:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError as e:
        raise RuntimeError(
            "the tensorflow backend needs TensorFlow installed (pip install tensorflow-cpu)"
        ) from e
    return tf


def apply_op_helper(op_type_name: str, name: str | None = None, **keywords: Any):
    """TF's `_apply_op_helper` in graph mode; executes the op in eager mode."""
    tf = _tensorflow()
    from tensorflow.python.framework import op_def_library, op_def_registry

    if op_def_registry.get(op_type_name) is None:
        raise RuntimeError(
            f"Op {op_type_name} is not registered in TensorFlow. Load the op library that defines it "
            f"first: tf.load_op_library('/path/to/lib.so')"
        )
    keywords = {k: _to_tensorflow(v) for k, v in keywords.items()}
    if not tf.executing_eagerly():
        return op_def_library._apply_op_helper(op_type_name, name=name, **keywords)
    facts: dict[str, Any] = {}

    def build():
        structure, stateful, _, outputs = op_def_library._apply_op_helper(
            op_type_name, name=name, **keywords
        )
        facts["structure"], facts["stateful"] = structure, stateful
        return list(
            outputs
        )  # ops without outputs still run (tf.function keeps stateful ops)

    outputs = tf.function(build, autograph=False)()
    return facts["structure"], facts["stateful"], None, list(outputs)


_TF_MESSAGES = {
    "TensorProto": "tensorflow.core.framework.tensor_pb2",
    "TensorShapeProto": "tensorflow.core.framework.tensor_shape_pb2",
    "NameAttrList": "tensorflow.core.framework.attr_value_pb2",
}


def _to_tensorflow(value: Any) -> Any:
    """opgen's proto messages and DTypes as TF's (wrappers' `make_tensor` etc. build opgen's)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_to_tensorflow(v) for v in value)
    cls = type(value)
    if cls.__module__.startswith("opgen."):
        if cls.__name__ in _TF_MESSAGES:
            import importlib

            tf_cls = getattr(
                importlib.import_module(_TF_MESSAGES[cls.__name__]), cls.__name__
            )
            return tf_cls.FromString(value.SerializeToString())
        if cls.__name__ == "DType":
            return value.as_datatype_enum
        if cls.__name__ in ("Tensor", "Operation"):
            raise TypeError(
                f"{value!r} belongs to opgen's embedded graph and cannot be used with the TensorFlow backend"
            )
    return value


def op_list_from_library(path: str) -> op_def_pb2.OpList:
    """The OpList a compiled op library registers (TF_LoadLibrary + TF_GetOpList)."""
    from opgen.errors import OpgenError

    if not os.path.isfile(path):
        raise OpgenError(
            f"op library {path} does not exist", hint="pass the path of a compiled .so"
        )
    _tensorflow()
    from tensorflow.python.client import pywrap_tf_session as c_api

    try:
        handle = c_api.TF_LoadLibrary(path)
    except Exception as e:  # noqa: BLE001 - TF raises its own NotFoundError/InvalidArgumentError types
        raise OpgenError(
            f"cannot load op library {path}: {getattr(e, 'message', e)}"
        ) from None
    try:
        data = c_api.TF_GetOpList(handle)
    finally:
        c_api.TF_DeleteLibraryHandle(handle)
    ops = op_def_pb2.OpList.FromString(data)
    result = op_def_pb2.OpList()
    result.op.extend(sorted(ops.op, key=lambda o: o.name.encode()))
    return result
