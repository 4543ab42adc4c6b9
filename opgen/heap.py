"""How opgen's big loops treat the heap: they allocate hundreds of thousands of small
acyclic objects (tokens, tuples, protobuf wrappers, scanner nodes) that the cyclic garbage
collector would only traverse again and again (a third of gathering a large file, most of
locating a 10 MB OpList's fields, more than a whole incremental build with TensorFlow's heap
imported), so they pause it and leave their garbage to reference counting."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """The cyclic GC off for the block, and back on after it if it was on before (a caller
    that paused it keeps it paused)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
