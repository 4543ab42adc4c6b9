"""The names of TensorFlow 2.21's core ops (`tf_core_ops.txt`, generated from TF's registry
by tools/gen_tf_core_ops.py).

A library loaded into TF cannot replace one: `LoadDynamicLibrary`
(tensorflow/core/framework/load_library.cc) watches the registrations its library makes,
and an `AlreadyExists` status from `OpRegistry::RegisterAlreadyLocked`
(tensorflow/core/framework/op.cc) for a name the library did not register itself is
ignored. TF keeps its own OpDef; the library's registration is dropped, and the library's
OpList (`TF_GetOpList`, what `tf.load_op_library` builds its module from) lacks it.
"""

from __future__ import annotations

import functools
from pathlib import Path

_NAMES_FILE = Path(__file__).resolve().parent / "tf_core_ops.txt"


@functools.cache
def tf_core_op_names() -> frozenset[str]:
    lines = _NAMES_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def is_tf_core_op(name: str) -> bool:
    return name in tf_core_op_names()
