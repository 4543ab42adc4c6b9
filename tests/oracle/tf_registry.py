"""TensorFlow 2.21's own op registry, as the oracle the tests compare against."""

from __future__ import annotations

import functools
import os
import subprocess
import sys

# Run in a fresh interpreter: the test process may have loaded op libraries into its TF
# (`opgen oplist --from-library`, the tf fixture), whose ops would join the registry.
_DUMP = """
import sys
import tensorflow  # registers the ops
from tensorflow.python.client import pywrap_tf_session as c_api

buf = c_api.TF_GetAllOpList()
try:
    sys.stdout.buffer.write(c_api.TF_GetBuffer(buf))
finally:
    c_api.TF_DeleteBuffer(buf)
"""


@functools.cache
def tf_op_list_bytes() -> bytes:
    """Serialized OpList of every op TF itself registers (docs stripped, `_` ops included)."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run([sys.executable, "-c", _DUMP], capture_output=True, check=True, env=env).stdout


def tf_op_list():
    """TF's registry parsed into opgen's OpList message, sorted by name like OpRegistry::Export."""
    from opgen_runtime.proto import op_def_pb2

    ops = op_def_pb2.OpList.FromString(tf_op_list_bytes())
    result = op_def_pb2.OpList()
    result.op.extend(sorted(ops.op, key=lambda o: o.name.encode()))
    return result
