"""OpRegistry: TF 2.21's op registry semantics over opgen OpDefs (`op.cc` OpRegistry).

* `OpRegistry.register(op_def, source)`: insert by name; the **first** registration wins
  and a duplicate fails with TF's ALREADY_EXISTS text `Op with name <Op>`, located at the
  duplicate (`sources[name]` keeps the first). Finalize and ValidateOpDef are the caller's job
  (`opgen.spec.builder.build_op_def` does both), keeping imports flowing spec -> registry.
* Deferred registration: `defer(factory, source)` queues a factory (a callable building
  the OpDef, e.g. `lambda: build_op_def(reg)[0]`); `process_registrations()` runs the
  queue in order and stops at the first error **without clearing the queue**, like TF;
  `export`/`lookup` process pending factories implicitly (any error is raised).
* `export(include_internal=False)`: OpList sorted by name in plain byte order, `_` ops
  only on request. `lookup(name)`: the OpDef, or TF's NOT_FOUND message.
* `OpListRegistry(op_list)`: read-only name -> OpDef map over an OpList (TF's
  OpListOpRegistry: later duplicates overwrite earlier ones).
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from opgen.errors import Location, OpgenError, OpgenErrors
from opgen_runtime.proto import op_def_pb2

if TYPE_CHECKING:  # OpSource is plain data; no runtime import of the spec layer
    from opgen.model import OpSource

OpFactory = Callable[[], op_def_pb2.OpDef]


def not_found_message(name: str) -> str:
    """TF's NOT_FOUND text for an unregistered op."""
    return (
        f"Op type not registered '{name}' in binary running on {socket.gethostname()}. "
        "Make sure the Op and Kernel are registered in the binary running in this process. "
        "Note that if you are loading a saved graph which used ops from tf.contrib (e.g. "
        "`tf.contrib.resampler`), accessing should be done before importing the graph, as "
        "contrib ops are lazily registered when the module is first accessed."
    )


def export_sorted(op_defs: Iterable[op_def_pb2.OpDef], include_internal: bool) -> op_def_pb2.OpList:
    """An OpList of `op_defs` sorted by name bytewise, without `_` ops unless asked."""
    op_list = op_def_pb2.OpList()
    chosen = [op for op in op_defs if include_internal or not op.name.startswith("_")]
    op_list.op.extend(sorted(chosen, key=lambda op: op.name.encode("utf-8")))
    return op_list


class OpRegistry:
    """Name -> OpDef with TF's registration rules; `sources[name]` says where each came from."""

    def __init__(self) -> None:
        self._ops: dict[str, op_def_pb2.OpDef] = {}
        self.sources: dict[str, OpSource] = {}
        self._deferred: list[tuple[OpFactory, OpSource]] = []
        self._initialized = True

    def __contains__(self, name: str) -> bool:
        return name in self._ops

    def __len__(self) -> int:
        return len(self._ops)

    def register(self, op_def: op_def_pb2.OpDef, source: OpSource) -> None:
        """Register one OpDef now; OpgenError (located at `source`) for a duplicate name."""
        if op_def.name in self._ops:
            raise OpgenError(f"Op with name {op_def.name}", source.location)
        self._ops[op_def.name] = op_def
        self.sources[op_def.name] = source

    # --- deferred registration -----------------------------------------------------------

    def defer_registrations(self) -> None:
        """New `defer`red factories queue up until the next processing (TF DeferRegistrations)."""
        self._initialized = False

    def defer(self, factory: OpFactory, source: OpSource) -> None:
        """Queue a factory; registered immediately when the registry is not deferring."""
        if self._initialized:
            self.register(factory(), source)
        else:
            self._deferred.append((factory, source))

    def clear_deferred_registrations(self) -> None:
        self._deferred.clear()

    def process_registrations(self) -> None:
        """Register queued factories in order; stop at the first error, keeping the queue."""
        if self._initialized:
            return
        self._initialized = True
        for factory, source in self._deferred:
            self.register(factory(), source)
        self._deferred.clear()

    def _process_implicitly(self) -> None:
        if self._initialized:
            return
        self._initialized = True
        errors: list[OpgenError] = []
        for factory, source in self._deferred:
            try:
                self.register(factory(), source)
            except OpgenError as e:
                errors.extend(e.errors if isinstance(e, OpgenErrors) else [e])
        self._deferred.clear()
        if errors:
            raise OpgenErrors(errors)

    # --- queries -------------------------------------------------------------------------

    def lookup(self, name: str, location: Location | None = None) -> op_def_pb2.OpDef:
        """The OpDef registered as `name`; OpgenError with TF's NOT_FOUND text otherwise."""
        self._process_implicitly()
        op_def = self._ops.get(name)
        if op_def is None:
            raise OpgenError(not_found_message(name), location)
        return op_def

    def export(self, include_internal: bool = False) -> op_def_pb2.OpList:
        """TF `OpRegistry::Export`: sorted by name bytewise; `_` ops only when asked."""
        self._process_implicitly()
        return export_sorted(self._ops.values(), include_internal)


class OpListRegistry:
    """Read-only registry over an OpList (TF OpListOpRegistry)."""

    def __init__(self, op_list: op_def_pb2.OpList) -> None:
        self._ops: dict[str, op_def_pb2.OpDef] = {op.name: op for op in op_list.op}

    def __contains__(self, name: str) -> bool:
        return name in self._ops

    def lookup(self, name: str, location: Location | None = None) -> op_def_pb2.OpDef:
        op_def = self._ops.get(name)
        if op_def is None:
            raise OpgenError(not_found_message(name), location)
        return op_def

    def export(self, include_internal: bool = False) -> op_def_pb2.OpList:
        return export_sorted(self._ops.values(), include_internal)
