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

A node also keeps the stack it was created at, shown as "Detected at node X defined at" when
its kernel fails (`_create_c_op` in tensorflow/python/framework/ops.py records
`tf_stack.extract_stack()`). That stack leaves out TF's own files by their path (C++,
`IsInternalFrameForFilename`) and the files of the filter on top of the thread's filter stack
(`tf_stack._source_filter_stacks`, whose bottom is a `SentinelFilter` filtering nothing). The
runtime's files take that bottom place: `hide_runtime_frames_in_node_stacks`, once, at no cost
per op. TF shows its own files there whatever the filtering setting, and so the runtime's.
"""

from __future__ import annotations

import collections
import itertools
import os
from types import ModuleType
from typing import Any

# The package's directory (this module's grandparent), subpackages included, as frames name
# their files: `co_filename` is the `__file__` the module was imported from.
RUNTIME_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "")


def hide_runtime_frames(traceback_utils: ModuleType) -> None:
    """Add the runtime's directory to `traceback_utils._EXCLUDED_PATHS` (once); nothing when
    a TensorFlow version keeps no such tuple."""
    excluded = getattr(traceback_utils, "_EXCLUDED_PATHS", None)
    if isinstance(excluded, tuple) and RUNTIME_DIR not in excluded:
        traceback_utils._EXCLUDED_PATHS = (*excluded, RUNTIME_DIR)  # type: ignore[attr-defined]


def _runtime_files() -> frozenset[str]:
    """The runtime's Python files as frames name them (`co_filename`, the imported `__file__`)."""
    return frozenset(
        os.path.join(folder, name)
        for folder, _, names in os.walk(RUNTIME_DIR)
        for name in names
        if name.endswith(".py")
    )


def hide_runtime_frames_in_node_stacks(tf_stack: ModuleType) -> None:
    """Make a filter of the runtime's files the bottom of every thread's `tf_stack` filter
    stack (in place of TF's `SentinelFilter`); nothing when a TensorFlow version lacks them."""
    stacks = getattr(tf_stack, "_source_filter_stacks", None)
    base: Any = getattr(tf_stack, "StackTraceFilter", None)
    sentinel: Any = getattr(tf_stack, "SentinelFilter", None)
    if not isinstance(stacks, collections.defaultdict) or base is None or sentinel is None:
        return
    if getattr(stacks.default_factory, "hides_opgen_runtime", False):
        return
    files = _runtime_files()

    class RuntimeFilesFilter(base):  # type: ignore[misc]  # TF's class: Any here
        def __init__(self) -> None:
            super().__init__()
            self.parent = None
            self.update()  # a filter's set of files is filled when it is entered; this one never is

        def get_filtered_filenames(self) -> frozenset[str]:
            return files

    def new_stack() -> list[Any]:
        return [RuntimeFilesFilter()]

    new_stack.hides_opgen_runtime = True  # type: ignore[attr-defined]
    stacks.default_factory = new_stack
    # Threads with a stack already: TensorFlow is often first used while a `tf.function` traces,
    # under filters entered on the sentinel, whose sets hold their parents' files: relinked and
    # refreshed from the new bottom up.
    for stack in list(stacks.values()):
        if stack and type(stack[0]) is sentinel:
            stack[0] = RuntimeFilesFilter()
            for below, above in itertools.pairwise(stack):
                above.parent = below
                if hasattr(above, "_cached_set"):  # CurrentModuleFilter's union with its parent's
                    above._cached_set = None
                above.update()
