"""The embedded graph: Graph, Operation and Tensor with TensorFlow's graph-mode behaviour.

Names follow `Graph.name_scope`/`unique_name` (case-insensitive uniquification, TF's scope
regexes), control dependencies follow `_control_dependencies_for_inputs`, device scopes are
canonicalised like `DeviceSpec` (`/cpu:0` -> `/device:CPU:0`), and `as_graph_def` emits a
GraphDef (producer 2474, TF 2.21's) that TensorFlow imports.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from typing import Any

from opgen.proto import attr_value_pb2, graph_pb2, node_def_pb2, versions_pb2

from . import dtypes as _dtypes
from .tensor_shape import TensorShape

GRAPH_DEF_VERSION = 2474  # TF_GRAPH_DEF_VERSION of TensorFlow 2.21
GRAPH_DEF_VERSION_MIN_CONSUMER = 0

VALID_OP_NAME_REGEX = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
VALID_SCOPE_NAME_REGEX = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")

_UNKNOWN_SHAPE = TensorShape(None)
_VALID_NAMES: set[str] = set()  # names already known to pass both scope-name regexes
_NO_CONTROL_INPUTS: (
    tuple
) = ()  # shared by every op without control inputs (never mutated)


class Tensor:
    """One output of an Operation."""

    __slots__ = ("_dtype", "_op", "_shape", "_value_index")

    def __init__(self, op: Operation, value_index: int, dtype: _dtypes.DType) -> None:
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = _UNKNOWN_SHAPE

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        self._shape = self._shape.merge_with(shape)

    @property
    def graph(self) -> Graph:
        return self._op._graph

    @property
    def name(self) -> str:
        return f"{self._op._name}:{self._value_index}"

    @property
    def device(self) -> str:
        return self._op._device

    def _as_node_def_input(self) -> str:
        if self._value_index == 0:
            return self._op._name
        return f"{self._op._name}:{self._value_index}"

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name})'

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __iter__(self):
        raise TypeError("Iterating over a symbolic Tensor is not allowed.")

    def __bool__(self) -> bool:
        raise TypeError("Using a symbolic Tensor as a Python bool is not allowed.")

    def __len__(self) -> int:
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}).")


class Operation:
    """A node of the graph: type, name, inputs, attrs (AttrValue protos) and outputs."""

    __slots__ = (
        "_attrs",
        "_control_inputs",
        "_device",
        "_graph",
        "_inputs",
        "_name",
        "_node_def",
        "_op_def",
        "_outputs",
        "_type",
    )

    def __init__(
        self,
        graph: Graph,
        name: str,
        op_type: str,
        inputs: list[Tensor],
        control_inputs: list[Operation] | tuple[()],
        attrs: dict[str, attr_value_pb2.AttrValue],
        device: str,
        op_def: Any,
    ) -> None:
        self._graph = graph
        self._name = name
        self._type = op_type
        self._inputs = inputs
        self._control_inputs = control_inputs
        self._attrs = attrs
        self._device = device
        self._op_def = op_def
        self._outputs: list[Tensor] = []
        self._node_def: node_def_pb2.NodeDef | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return self._type

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def inputs(self) -> list[Tensor]:
        return list(self._inputs)

    @property
    def control_inputs(self) -> list[Operation]:
        return list(self._control_inputs)

    @property
    def outputs(self) -> list[Tensor]:
        return list(self._outputs)

    @property
    def device(self) -> str:
        return self._device

    @property
    def op_def(self) -> Any:
        return self._op_def

    @property
    def attrs(self) -> dict[str, attr_value_pb2.AttrValue]:
        return dict(self._attrs)

    def get_attr(self, name: str) -> Any:
        """The attr as a Python value, like TF's `Operation.get_attr` (types -> DType)."""
        value = self._attrs.get(name)
        if value is None:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")
        return attr_value_to_python(value)

    def colocation_groups(self) -> list[bytes]:
        default = [f"loc:@{self._name}".encode()]
        cls = self._attrs.get("_class")
        if cls is None:
            return default
        groups = [s for s in cls.list.s if s.startswith(b"loc:@")]
        return groups or default

    @property
    def node_def(self) -> node_def_pb2.NodeDef:
        if self._node_def is None:
            node = node_def_pb2.NodeDef(
                name=self._name, op=self._type, device=self._device
            )
            node.input.extend([t._as_node_def_input() for t in self._inputs])
            node.input.extend(["^" + c._name for c in self._control_inputs])
            for key, value in self._attrs.items():
                node.attr[key].CopyFrom(value)
            self._node_def = node
        return self._node_def

    def _set_attr(self, name: str, value: attr_value_pb2.AttrValue) -> None:
        self._attrs[name] = value
        self._node_def = None

    def __repr__(self) -> str:
        return f"<tf.Operation '{self._name}' type={self._type}>"


def attr_value_to_python(value: attr_value_pb2.AttrValue) -> Any:
    which = value.WhichOneof("value")
    if which == "list":
        lst = value.list
        for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(lst, field)
            if items:
                if field == "type":
                    return [_dtypes.as_dtype(t) for t in items]
                return list(items)
        return []
    if which == "type":
        return _dtypes.as_dtype(value.type)
    if which is None:
        return []
    return getattr(value, which)


# --- devices -------------------------------------------------------------------------

_VALID_DEVICE_TYPES = {"CPU", "GPU", "TPU"}
_device_cache: dict[str, tuple] = {}


def parse_device(spec: str) -> tuple:
    """DeviceSpec components (job, replica, task, device_type, device_index) of `spec`."""
    cached = _device_cache.get(spec)
    if cached is not None:
        return cached
    job = replica = task = device_type = device_index = None
    for part in (spec or "").split("/"):
        y = part.split(":")
        ly = len(y)
        if ly == 2 and y[0] == "job":
            job = y[1]
        elif ly == 2 and y[0] == "replica":
            replica = y[1]
        elif ly == 2 and y[0] == "task":
            task = y[1]
        elif ly in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(
                    f"Multiple device types are not allowed while parsing the device spec: {spec}."
                )
            device_type = y[0].upper()
            if ly == 2 and y[1] != "*":
                device_index = int(y[1])
        elif ly == 3 and y[0] == "device":
            if device_type is not None:
                raise ValueError(
                    f"Multiple device types are not allowed while parsing the device spec: {spec}."
                )
            device_type = y[1]
            if y[2] != "*":
                device_index = int(y[2])
        elif ly and y[0] != "":
            raise ValueError(
                f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: '{spec}'."
            )
    result = (job, replica, task, device_type, device_index)
    _device_cache[spec] = result
    return result


def device_to_string(components: tuple) -> str:
    job, replica, task, device_type, device_index = components
    out = []
    if job is not None:
        out.append("/job:" + job)
    if replica is not None:
        out.append("/replica:" + str(replica))
    if task is not None:
        out.append("/task:" + str(task))
    if device_type is not None:
        out.append(
            f"/device:{device_type}:{'*' if device_index is None else device_index}"
        )
    return "".join(out)


def canonical_device(spec: str) -> str:
    return device_to_string(parse_device(spec))


def _merge_devices(outer: tuple, inner: tuple) -> tuple:
    merged = list(outer)
    if inner[3] is not None and inner[3] != outer[3]:
        merged[4] = None  # a new device type drops the outer index
    for i, value in enumerate(inner):
        if value is not None:
            merged[i] = value
    return tuple(merged)


# --- control dependencies --------------------------------------------------------------


class _ControlDependencies:
    __slots__ = ("control_inputs", "graph", "new_stack", "old_stack", "seen")

    def __init__(self, graph: Graph, control_inputs: list[Operation] | None) -> None:
        self.graph = graph
        self.new_stack = control_inputs is None
        self.control_inputs = control_inputs or []
        self.seen: set[int] = set()
        self.old_stack: list[_ControlDependencies] | None = None

    def __enter__(self) -> None:
        if self.new_stack:
            self.old_stack = self.graph._control_stack
            self.graph._control_stack = []
        self.graph._control_stack.append(self)

    def __exit__(self, *exc: object) -> None:
        self.graph._control_stack.remove(self)
        if self.new_stack:
            self.graph._control_stack = self.old_stack  # type: ignore[assignment]


# --- graph ---------------------------------------------------------------------------


class Graph:
    """A dataflow graph of Operations, built by generated wrappers on the embedded runtime."""

    def __init__(self) -> None:
        self._ops: list[Operation] = []
        self._ops_by_name: dict[str, Operation] = {}
        self._names_in_use: dict[str, int] = {}
        self._name_stack = ""
        self._control_stack: list[_ControlDependencies] = []
        self._device_stack: list[tuple | None] = []
        self._device_string = ""
        self._colocation_stack: list[Operation] = []
        self.producer = GRAPH_DEF_VERSION

    # names
    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        old_stack, returned = self._enter_name_scope(name)
        try:
            yield returned
        finally:
            self._name_stack = old_stack

    def _enter_name_scope(self, name: str | None) -> tuple[str, str]:
        """TF's `Graph.name_scope` entry: validates, sets the stack; returns (old stack, scope)."""
        if name and name not in _VALID_NAMES:
            if isinstance(name, bytes):
                name = name.decode()
            if self._name_stack:
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
        old_stack = self._name_stack
        if not name:
            new_stack = returned = ""
        elif name[-1] == "/":
            new_stack = name[:-1]
            returned = name
        else:
            new_stack = self.unique_name(name)
            returned = new_stack + "/"
        self._name_stack = new_stack
        return old_stack, returned

    def get_name_scope(self) -> str:
        return self._name_stack

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        used = self._names_in_use
        i = used.get(key, 0)
        if mark_as_used:
            used[key] = i + 1
        if i > 0:
            base_key = key
            while key in used:
                key = f"{base_key}_{i}"
                i += 1
            if mark_as_used:
                used[key] = 1
            name = f"{name}_{i - 1}"
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
    def control_dependencies(self, control_inputs: Any) -> _ControlDependencies:
        if control_inputs is None:
            return _ControlDependencies(self, None)
        current = {id(op) for c in self._control_stack for op in c.control_inputs}
        ops = []
        for c in control_inputs:
            if isinstance(c, Tensor):
                c = c._op
            elif not isinstance(c, Operation):
                raise TypeError(f"Control input must be Operation or Tensor: {c}")
            if id(c) not in current:
                ops.append(c)
                current.add(id(c))
        return _ControlDependencies(self, ops)

    def _control_inputs_for(self, input_ops: list[Operation]) -> list[Operation]:
        result: list[Operation] = []
        input_ids = {id(op) for op in input_ops}
        for controller in self._control_stack:
            if any(i in controller.seen for i in input_ids):
                continue
            result.extend(
                c for c in controller.control_inputs if id(c) not in input_ids
            )
        return result

    # devices
    @contextlib.contextmanager
    def device(self, device_name: str | None) -> Iterator[None]:
        old = self._device_string
        self._device_stack.append(
            None if device_name is None else parse_device(device_name)
        )
        self._device_string = self._compute_device()
        try:
            yield
        finally:
            self._device_stack.pop()
            self._device_string = old

    def _compute_device(self) -> str:
        merged: tuple = (None,) * 5
        for entry in self._device_stack:
            merged = (None,) * 5 if entry is None else _merge_devices(merged, entry)
        return device_to_string(merged)

    @contextlib.contextmanager
    def colocate_with(self, op: Operation | Tensor) -> Iterator[None]:
        if isinstance(op, Tensor):
            op = op._op
        old_devices, old_string = self._device_stack, self._device_string
        self._device_stack = [parse_device(op._device)] if op._device else []
        self._device_string = op._device
        self._colocation_stack.append(op)
        try:
            yield
        finally:
            self._colocation_stack.pop()
            self._device_stack, self._device_string = old_devices, old_string

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
    ) -> Operation:
        """`_create_op` with the final node name (already uniquified or taken verbatim)."""
        ops_by_name = self._ops_by_name
        if name in ops_by_name:
            raise ValueError(f"Duplicate node name in graph: '{name}'")
        control_stack = self._control_stack
        control_inputs: list[Operation] | tuple[()]
        if control_stack:
            control_inputs = self._control_inputs_for([t._op for t in inputs])
        else:
            control_inputs = _NO_CONTROL_INPUTS
        device = self._device_string
        if self._colocation_stack:
            groups: set[bytes] = set()
            for colocated in self._colocation_stack:
                groups.update(colocated.colocation_groups())
            attrs["_class"] = attr_value_pb2.AttrValue(
                list=attr_value_pb2.AttrValue.ListValue(s=sorted(groups))
            )
            device = next(
                (c._device for c in reversed(self._colocation_stack) if c._device),
                device,
            )
        op = Operation(
            self, name, op_type, inputs, control_inputs, attrs, device, op_def
        )
        if len(output_dtypes) == 1:
            op._outputs = [Tensor(op, 0, output_dtypes[0])]
        else:
            op._outputs = [Tensor(op, i, dt) for i, dt in enumerate(output_dtypes)]
        if infer is not None:
            infer(op)
        for controller in control_stack:
            controller.seen.add(id(op))
        # list.append and dict assignment are atomic under the GIL: no lock needed
        self._ops.append(op)
        ops_by_name[name] = op
        return op

    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        try:
            return self._ops_by_name[name]
        except KeyError:
            raise KeyError(
                f"The name '{name}' refers to an Operation not in the graph."
            ) from None

    def get_tensor_by_name(self, name: str) -> Tensor:
        op_name, _, index = name.rpartition(":")
        return self.get_operation_by_name(op_name)._outputs[int(index)]

    def as_graph_def(self) -> graph_pb2.GraphDef:
        graph_def = graph_pb2.GraphDef(
            versions=versions_pb2.VersionDef(
                producer=self.producer, min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER
            )
        )
        graph_def.node.extend([op.node_def for op in self._ops])
        return graph_def

    @property
    def graph_def_versions(self) -> versions_pb2.VersionDef:
        return versions_pb2.VersionDef(
            producer=self.producer, min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER
        )


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


def control_dependencies(control_inputs: Any) -> _ControlDependencies:
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name: str | None) -> Any:
    return get_default_graph().device(device_name)
