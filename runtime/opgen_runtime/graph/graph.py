"""The embedded Graph, with TensorFlow's graph-mode behaviour.

Names follow `Graph.name_scope`/`unique_name` (case-insensitive uniquification, TF's scope
regexes), control dependencies `_control_dependencies_for_inputs`, devices and colocation
`_create_op_helper` (see `devices`), per-thread scope stacks `switch_to_thread_local` (see
`scopes`), lookups `_as_graph_element_locked`; `as_graph_def` emits a GraphDef (producer
2474, TF 2.21's) that TensorFlow imports.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from opgen_runtime.proto import attr_value_pb2, graph_pb2, versions_pb2

from ..values import dtypes as _dtypes
from .devices import DeviceScope, apply_device_functions
from .operation import Operation, attr_entry, length_delimited, varint
from .scopes import ControlDependencies, ThreadScopes
from .tensor import Tensor

if TYPE_CHECKING:

    class _GraphLocal(Protocol):
        """What `Graph._local` (a `threading.local`) holds: this thread's scope stacks, once
        created. Declared so that reading them is typed, with no code on the hot path."""

        scopes: ThreadScopes


GRAPH_DEF_VERSION = 2474  # TF_GRAPH_DEF_VERSION of TensorFlow 2.21
GRAPH_DEF_VERSION_MIN_CONSUMER = 0

VALID_OP_NAME_REGEX = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
VALID_SCOPE_NAME_REGEX = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")

_VALID_NAMES: set[str] = set()  # names already known to pass both scope-name regexes
_NO_CONTROL_INPUTS: tuple[()] = ()  # shared by every op without control inputs
_MANUAL_CONTROL_DEPENDENCY = attr_value_pb2.AttrValue(b=True)


class Graph:
    """A dataflow graph of Operations, built by generated wrappers on the embedded runtime.

    Safe to build from several threads: each thread has its own scope stacks (`scopes`);
    name uniquification and op registration hold the graph's lock.
    """

    def __init__(self) -> None:
        self._ops: list[Operation] = []
        self._ops_by_name: dict[str, Operation] = {}
        self._names_in_use: dict[str, int] = {}
        self._lock = threading.Lock()
        self._lock_acquire, self._lock_release = self._lock.acquire, self._lock.release
        self._local: _GraphLocal = threading.local()
        self._finalized = False
        self.producer = GRAPH_DEF_VERSION

    def _scopes(self) -> ThreadScopes:
        """This thread's scope stacks (created empty on a thread's first use)."""
        try:
            return self._local.scopes
        except AttributeError:
            scopes = self._local.scopes = ThreadScopes()
            return scopes

    # finalization
    @property
    def finalized(self) -> bool:
        return self._finalized

    def finalize(self) -> None:
        """Makes the graph read-only: creating an op raises RuntimeError, as in TF."""
        self._finalized = True

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    # names
    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        scopes = self._scopes()
        old_stack, returned = self._enter_name_scope(name, scopes)
        try:
            yield returned
        finally:
            scopes.name_stack = old_stack

    def _enter_name_scope(
        self, name: str | bytes | None, scopes: ThreadScopes
    ) -> tuple[str, str]:
        """TF's `Graph.name_scope` entry: validates, sets the stack; returns (old stack, scope)."""
        if isinstance(name, bytes):
            name = name.decode()
        if name and name not in _VALID_NAMES:
            if scopes.name_stack:
                if not VALID_SCOPE_NAME_REGEX.match(name):
                    raise ValueError(
                        f"'{name}' is not a valid scope name. A scope name has to match "
                        f"the following pattern: {VALID_SCOPE_NAME_REGEX.pattern}"
                    )
            elif not VALID_OP_NAME_REGEX.match(name):
                raise ValueError(
                    f"'{name}' is not a valid root scope name. A root scope name has "
                    f"to match the following pattern: {VALID_OP_NAME_REGEX.pattern}"
                )
            elif len(_VALID_NAMES) < 4096:
                _VALID_NAMES.add(name)  # valid at the root, hence also inside any scope
        old_stack = scopes.name_stack
        if not name:
            new_stack = returned = ""
        elif name[-1] == "/":
            new_stack = name[:-1]
            returned = name
        else:
            new_stack = self.unique_name(name, scopes=scopes)
            returned = new_stack + "/"
        scopes.name_stack = new_stack
        return old_stack, returned

    def get_name_scope(self) -> str:
        return self._scopes().name_stack

    def unique_name(
        self, name: str, mark_as_used: bool = True, scopes: ThreadScopes | None = None
    ) -> str:
        stack = (scopes or self._scopes()).name_stack
        if stack:
            name = stack + "/" + name
        key = name.lower()
        used = self._names_in_use
        self._lock_acquire()  # (the bound methods: cheaper than `with` on this hot path)
        try:
            i = used.get(key, 0)
            if mark_as_used:
                used[key] = i + 1
            if i > 0:
                suffixed = f"{key}_{i}"
                while suffixed in used:
                    i += 1
                    suffixed = f"{key}_{i}"
                if mark_as_used:
                    used[suffixed] = 1
                name = f"{name}_{i}"
        finally:
            self._lock_release()
        return name

    # default graph
    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        stack = _default_stack()
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    # control dependencies
    def control_dependencies(self, control_inputs: Any) -> ControlDependencies:
        """TF's `Graph.control_dependencies`: names and Tensors resolve to their ops, which
        get `_has_manual_control_dependencies`; ops already in force are not repeated.
        """
        if control_inputs is None:
            return ControlDependencies(self, None)
        current = {
            id(op) for c in self._scopes().control_stack for op in c.control_inputs
        }
        ops = []
        for c in control_inputs:
            if hasattr(c, "_handle") and hasattr(c, "op"):
                c = c.op
            c = self.as_graph_element(c)
            if isinstance(c, Tensor):
                c = c._op
            elif not isinstance(c, Operation):
                raise TypeError(f"Control input must be Operation or Tensor: {c}")
            if id(c) not in current:
                ops.append(c)
                current.add(id(c))
            c._set_attr("_has_manual_control_dependencies", _MANUAL_CONTROL_DEPENDENCY)
        return ControlDependencies(self, ops)

    def _control_inputs_for(
        self, control_stack: list[ControlDependencies], input_ops: list[Operation]
    ) -> list[Operation]:
        result: list[Operation] = []
        input_ids = {id(op) for op in input_ops}
        for controller in control_stack:
            if any(i in controller.seen for i in input_ids):
                continue
            result.extend(
                c for c in controller.control_inputs if id(c) not in input_ids
            )
        return result

    # devices
    @contextlib.contextmanager
    def device(self, device_name_or_function: Any) -> Iterator[None]:
        """A device scope: a spec string merged like TF's `MergeDevice`, a function of the
        Operation, or None (ignores outer scopes)."""
        scopes = self._scopes()
        entry = DeviceScope(device_name_or_function)
        scopes.set_device_stack([*scopes.device_stack, entry])
        try:
            yield
        finally:
            stack = scopes.device_stack
            if not stack or stack[-1] is not entry:
                raise RuntimeError("Exiting device scope without proper scope nesting.")
            scopes.set_device_stack(stack[:-1])

    @contextlib.contextmanager
    def colocate_with(
        self, op: Operation | Tensor | None, ignore_existing: bool = False
    ) -> Iterator[None]:
        """TF's `Graph.colocate_with`: device scopes are set aside inside; new ops join the
        colocation groups of the stacked ops and take the innermost one's device."""
        if op is None and not ignore_existing:
            raise ValueError(
                "Trying to reset colocation (op is None) but ignore_existing is not True"
            )
        if isinstance(op, Tensor):
            op = op._op
        scopes = self._scopes()
        old_devices = scopes.device_stack
        old_colocation = scopes.colocation_stack
        scopes.set_device_stack([])
        if ignore_existing:
            scopes.colocation_stack = []
        if op is not None:
            scopes.colocation_stack = [*scopes.colocation_stack, op]
        try:
            yield
        finally:
            scopes.set_device_stack(old_devices)
            scopes.colocation_stack = old_colocation

    # ops
    def _create_op(
        self,
        op_type: str,
        inputs: list[Tensor],
        name: str,
        attrs: dict[str, attr_value_pb2.AttrValue],
        output_dtypes: list[_dtypes.DType],
        op_def: Any,
        infer: Any = None,
    ) -> Operation:
        """Adds a node; `name` ending in "/" is used verbatim (minus the slash), else uniquified.

        `infer(op)` (shape inference) runs before the node joins the graph, so a shape error
        leaves no node behind (its name stays used, as in TF).
        """
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        if name and name[-1] == "/":
            name = name[:-1]
        else:
            name = self.unique_name(name)
        return self._add_op(op_type, inputs, name, attrs, output_dtypes, op_def, infer)

    def _add_op(
        self,
        op_type: str,
        inputs: list[Tensor],
        name: str,
        attrs: dict[str, attr_value_pb2.AttrValue],
        output_dtypes: list[_dtypes.DType],
        op_def: Any,
        infer: Any = None,
        inputs_in_graph: bool = False,
    ) -> Operation:
        """`_create_op` with the final node name (already uniquified or taken verbatim).

        `inputs_in_graph`: the caller has checked that every input is in this graph."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        try:
            scopes = self._local.scopes
        except AttributeError:
            scopes = self._scopes()
        if not inputs_in_graph:
            for t in inputs:
                if t._op._graph is not self:
                    raise ValueError(
                        f"{t} must be from the same graph as {inputs[0]} "
                        f"(graphs are {t._op._graph} and {self})."
                        if inputs[0]._op._graph is self
                        else f"Tensor {t} is not an element of this graph."
                    )
        control_stack = scopes.control_stack
        control_inputs: list[Operation] | tuple[()]
        if control_stack:
            control_inputs = self._control_inputs_for(
                control_stack, [t._op for t in inputs]
            )
        else:
            control_inputs = _NO_CONTROL_INPUTS
        device = scopes.static_device
        op = Operation(
            self, name, op_type, inputs, control_inputs, attrs, device or "", op_def
        )
        if len(output_dtypes) == 1:
            op._out = Tensor(op, 0, output_dtypes[0])
        else:
            op._out = tuple([Tensor(op, i, dt) for i, dt in enumerate(output_dtypes)])
        if infer is not None:
            infer(op)
        # setdefault claims the name atomically (a verbatim scope name may race)
        if self._ops_by_name.setdefault(name, op) is not op:
            raise ValueError(f"Duplicate node name in graph: '{name}'")
        self._ops.append(op)
        for controller in control_stack:
            controller.seen.add(id(op))
        if device is None:
            apply_device_functions(scopes.device_stack, op)
        if scopes.colocation_stack:
            self._colocate(op, scopes.colocation_stack)
        return op

    @staticmethod
    def _colocate(op: Operation, colocation_stack: list[Operation]) -> None:
        groups: set[bytes] = set()
        device_set = False
        for colocated in reversed(colocation_stack):
            groups.update(colocated.colocation_groups())
            if colocated._device and not device_set:
                op._set_device(colocated._device)
                device_set = True
        op._set_attr(
            "_class",
            attr_value_pb2.AttrValue(
                list=attr_value_pb2.AttrValue.ListValue(s=sorted(groups))
            ),
        )

    # lookups
    def get_operations(self) -> list[Operation]:
        with self._lock:
            return list(self._ops)

    def as_graph_element(
        self, obj: Any, allow_tensor: bool = True, allow_operation: bool = True
    ) -> Any:
        """TF's `Graph.as_graph_element`: a Tensor/Operation of this graph, or one by name."""
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        elif allow_operation:
            types_str = "Operation"
        else:
            raise ValueError("allow_tensor and allow_operation can't both be False.")
        conv = getattr(obj, "_as_graph_element", None)
        if conv is not None and callable(conv):
            converted = conv()
            if converted is not None:
                obj = converted
        if isinstance(obj, (str, bytes)):
            name = obj.decode() if isinstance(obj, bytes) else obj
            if ":" in name and allow_tensor:
                try:
                    op_name, out = name.split(":")
                    out_n = int(out)
                except ValueError:  # not one colon, or not an int after it
                    raise ValueError(
                        f"The name {name!r} looks a like a Tensor name, but is not a valid one. "
                        'Tensor names must be of the form "<op_name>:<output_index>".'
                    ) from None
                op = self._ops_by_name.get(op_name)
                if op is None:
                    raise KeyError(
                        f"The name {name!r} refers to a Tensor which does not exist. "
                        f"The operation, {op_name!r}, does not exist in the graph."
                    )
                try:
                    return op._outputs[out_n]
                except IndexError:
                    raise KeyError(
                        f"The name {name!r} refers to a Tensor which does not exist. "
                        f"The operation, {op_name!r}, exists but only has "
                        f"{len(op._outputs)} outputs."
                    ) from None
            if ":" in name:
                raise ValueError(
                    f"Name {name!r} appears to refer to a Tensor, not a {types_str}."
                )
            if allow_operation:
                op = self._ops_by_name.get(name)
                if op is None:
                    raise KeyError(
                        f"The name {name!r} refers to an Operation not in the graph."
                    )
                return op
            if name in self._ops_by_name:
                message = (
                    f"The name {name!r} refers to an Operation, not a {types_str}."
                )
            else:
                message = (
                    f"The name {name!r} looks like an (invalid) Operation name, "
                    f"not a {types_str}."
                )
            raise ValueError(
                message
                + ' Tensor names must be of the form "<op_name>:<output_index>".'
            )
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types_str}.")

    def get_operation_by_name(self, name: Any) -> Operation:
        if not isinstance(name, str):
            raise TypeError(
                f"Operation names are strings (or similar), not {type(name).__name__}."
            )
        # A typed local: as_graph_element returns Any (a Tensor or an Operation, as asked).
        op: Operation = self.as_graph_element(
            name, allow_tensor=False, allow_operation=True
        )
        return op

    def get_tensor_by_name(self, name: Any) -> Tensor:
        if not isinstance(name, str):
            raise TypeError(
                f"Tensor names are strings (or similar), not {type(name).__name__}."
            )
        # A typed local: as_graph_element returns Any (a Tensor or an Operation, as asked).
        tensor: Tensor = self.as_graph_element(
            name, allow_tensor=True, allow_operation=False
        )
        return tensor

    # export
    def as_graph_def(
        self, from_version: int | None = None, add_shapes: bool = False
    ) -> graph_pb2.GraphDef:
        """The GraphDef of every op in creation order; `add_shapes` adds each node's
        `_output_shapes` (its outputs' static shapes), as TF does. `from_version` is
        accepted and ignored, as in TF 2.x."""
        del from_version
        ops = self.get_operations()
        nodes = [op._node_def_bytes() for op in ops]
        if add_shapes:
            nodes = [
                node + _output_shapes_entry(op) if op._outputs else node
                for node, op in zip(nodes, ops)
            ]
        parts: list[bytes] = []
        for node in nodes:
            parts += (b"\n", varint(len(node)), node)
        parts.append(
            length_delimited(b'"', self.graph_def_versions.SerializeToString())
        )
        # A typed local: FromString is Any to mypy (protobuf's Message has no stubs here).
        graph_def: graph_pb2.GraphDef = graph_pb2.GraphDef.FromString(b"".join(parts))
        return graph_def

    @property
    def graph_def_versions(self) -> versions_pb2.VersionDef:
        return versions_pb2.VersionDef(
            producer=self.producer, min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER
        )


def _output_shapes_entry(op: Operation) -> bytes:
    value = attr_value_pb2.AttrValue(
        list=attr_value_pb2.AttrValue.ListValue(
            shape=[t._shape.as_proto() for t in op._outputs]
        )
    )
    return attr_entry("_output_shapes", value.SerializeToString())


# --- the default graph -------------------------------------------------------------------

_thread_local = threading.local()
_global_default_graph: Graph | None = None


def _default_stack() -> list[Graph]:
    stack = getattr(_thread_local, "stack", None)
    if stack is None:
        stack = _thread_local.stack = []
    return stack


def get_default_graph() -> Graph:
    """The innermost `Graph.as_default()` graph of this thread, else the global default graph."""
    stack = _default_stack()
    if stack:
        return stack[-1]
    global _global_default_graph
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph() -> None:
    global _global_default_graph
    if _default_stack():
        raise AssertionError("Do not use reset_default_graph() to clear nested graphs.")
    _global_default_graph = Graph()


def name_scope(name: str | None) -> Any:
    return get_default_graph().name_scope(name)


def control_dependencies(control_inputs: Any) -> ControlDependencies:
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function: Any) -> Any:
    return get_default_graph().device(device_name_or_function)
