"""TensorFlow 2.21's own op registry, as the oracle the tests compare against."""

from __future__ import annotations

import functools
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


@functools.cache
def tf_op_list_bytes() -> bytes:
    """Serialized OpList of every op registered in the TF process (docs stripped, `_` ops included)."""
    import tensorflow  # noqa: F401  (registers the ops)
    from tensorflow.python.client import pywrap_tf_session as c_api

    buf = c_api.TF_GetAllOpList()
    try:
        return c_api.TF_GetBuffer(buf)
    finally:
        c_api.TF_DeleteBuffer(buf)


def tf_op_list():
    """TF's registry parsed into opgen's OpList message, sorted by name like OpRegistry::Export."""
    from opgen_runtime.proto import op_def_pb2

    ops = op_def_pb2.OpList.FromString(tf_op_list_bytes())
    result = op_def_pb2.OpList()
    result.op.extend(sorted(ops.op, key=lambda o: o.name.encode()))
    return result
