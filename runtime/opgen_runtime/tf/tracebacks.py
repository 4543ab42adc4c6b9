"""opgen's runtime frames hidden from TensorFlow's filtered tracebacks, as TF hides its own.

TF leaves its own frames (files under tensorflow/python) out of the tracebacks of errors that
pass through its API (`filter_traceback` in tensorflow/python/util/traceback_utils.py) and out
of the "in user code:" frames of an error raised while tracing a `tf.function`
(`ErrorMetadataBase.get_message` in tensorflow/python/autograph/pyct/error_utils.py). Both ask
`traceback_utils.include_frame`, which drops a frame whose file contains a path of that
module's `_EXCLUDED_PATHS`. TF offers no public call to add a path, so the runtime's directory
is appended to that tuple, the one place both filters read, when TensorFlow is first used
(`tf.bridge.tensorflow()`); `tf.debugging.disable_traceback_filtering()` shows opgen's frames
again along with TF's. The generated module's own frame stays: it is the user's package.
"""

from __future__ import annotations

import os
from types import ModuleType

# The package's directory (this module's grandparent), subpackages included, as frames name
# their files: `co_filename` is the `__file__` the module was imported from.
RUNTIME_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "")


def hide_runtime_frames(traceback_utils: ModuleType) -> None:
    """Add the runtime's directory to `traceback_utils._EXCLUDED_PATHS` (once); nothing when
    a TensorFlow version keeps no such tuple."""
    excluded = getattr(traceback_utils, "_EXCLUDED_PATHS", None)
    if isinstance(excluded, tuple) and RUNTIME_DIR not in excluded:
        traceback_utils._EXCLUDED_PATHS = (*excluded, RUNTIME_DIR)  # type: ignore[attr-defined]
