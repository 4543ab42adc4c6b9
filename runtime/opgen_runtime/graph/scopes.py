"""Per-thread scope state of a Graph and its control-dependency controllers.

TF 2.x graphs keep the name stack, the control-dependency stack, the device stack and the
colocation stack per thread (`ops.py` `Graph.__init__` calls `switch_to_thread_local()`, and
`_name_stack` always lives in `Graph._thread_local`): a thread building into a shared graph
sees only its own scopes, starting empty. Names in use and the ops are shared by all threads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .devices import DeviceScope, static_device

if TYPE_CHECKING:
    from .graph import Graph
    from .operation import Operation


class ThreadScopes:
    """The scope stacks of one thread for one graph."""

    __slots__ = (
        "colocation_stack",
        "control_stack",
        "device_stack",
        "name_stack",
        "static_device",
    )

    def __init__(self) -> None:
        self.name_stack = ""
        self.control_stack: list[ControlDependencies] = []
        self.device_stack: list[DeviceScope] = []
        # the device of every new op while no device function is on the stack, else None
        self.static_device: str | None = ""
        self.colocation_stack: list[Operation] = []

    def set_device_stack(self, stack: list[DeviceScope]) -> None:
        self.device_stack = stack
        self.static_device = static_device(stack)


class ControlDependencies:
    """TF's `Graph._ControlDependenciesController`: `None` starts a new (empty) stack."""

    __slots__ = ("control_inputs", "graph", "new_stack", "old_stack", "seen")

    def __init__(self, graph: Graph, control_inputs: list[Operation] | None) -> None:
        self.graph = graph
        self.new_stack = control_inputs is None
        self.control_inputs = control_inputs or []
        self.seen: set[int] = set()
        self.old_stack: list[ControlDependencies] = []

    def __enter__(self) -> None:
        scopes = self.graph._scopes()
        if self.new_stack:
            self.old_stack = scopes.control_stack
            scopes.control_stack = []
        scopes.control_stack.append(self)

    def __exit__(self, *exc: object) -> None:
        scopes = self.graph._scopes()
        if scopes.control_stack and scopes.control_stack[-1] is self:
            scopes.control_stack.pop()
        else:
            scopes.control_stack.remove(self)
        if self.new_stack:
            scopes.control_stack = self.old_stack
