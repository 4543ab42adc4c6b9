"""Operation: a node of the embedded graph, serialised straight to NodeDef wire bytes.

`as_graph_def` of a large graph is dominated by building one NodeDef message per node; each
Operation instead encodes its NodeDef bytes once (cached until it changes), with the bytes of
shared AttrValues (type attrs, cached Consts, OpDef defaults) encoded once per process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from opgen_runtime.proto import attr_value_pb2, node_def_pb2

from ..values import dtypes as _dtypes

if TYPE_CHECKING:
    from .graph import Graph
    from .tensor import Tensor


class Operation:
    """A node of the graph: type, name, inputs, attrs (AttrValue protos) and outputs."""

    __slots__ = (
        "_attrs",
        "_control_inputs",
        "_device",
        "_graph",
        "_in",
        "_name",
        "_op_def",
        "_out",
        "_serialized",
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
        # one Tensor is stored bare, not in a tuple: every object per op costs the cyclic
        # GC a visit at each full collection
        self._in: Tensor | tuple[Tensor, ...] = (
            inputs[0] if len(inputs) == 1 else tuple(inputs)
        )
        self._control_inputs = control_inputs
        self._attrs = attrs  # never changed in place: ops share attr dicts
        self._device = device
        self._op_def = op_def
        self._out: Tensor | tuple[Tensor, ...] = ()
        self._serialized: bytes | None = None

    @property
    def _inputs(self) -> tuple[Tensor, ...]:
        inputs = self._in
        return inputs if isinstance(inputs, tuple) else (inputs,)

    @property
    def _outputs(self) -> tuple[Tensor, ...]:
        outputs = self._out
        return outputs if isinstance(outputs, tuple) else (outputs,)

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
        # A typed local: FromString is Any to mypy (protobuf's Message has no stubs here).
        node_def: node_def_pb2.NodeDef = node_def_pb2.NodeDef.FromString(self._node_def_bytes())
        return node_def

    def _node_def_bytes(self) -> bytes:
        """This node's NodeDef, serialised (fields in NodeDef's field order)."""
        serialized = self._serialized
        if serialized is None:
            name = self._name.encode()
            parts = [b"\n", varint(len(name)), name, _op_field(self._type)]
            inputs = self._in
            for t in inputs if isinstance(inputs, tuple) else (inputs,):
                index = t._value_index
                text = (
                    t._op._name if index == 0 else f"{t._op._name}:{index}"
                ).encode()
                parts += (b"\x1a", varint(len(text)), text)
            for c in self._control_inputs:
                text = b"^" + c._name.encode()
                parts += (b"\x1a", varint(len(text)), text)
            if self._device:
                device = self._device.encode()
                parts += (b'"', varint(len(device)), device)
            parts.append(_attrs_field(self._attrs))
            serialized = self._serialized = b"".join(parts)
        return serialized

    def _set_attr(self, name: str, value: attr_value_pb2.AttrValue) -> None:
        self._attrs = {
            **self._attrs,
            name: value,
        }  # copy on write: attr dicts are shared
        self._serialized = None

    def _set_device(self, device: str) -> None:
        self._device = device
        self._serialized = None

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


# (attr names, ids of their AttrValues) -> one attrs dict shared by every op with those
# values: ops of a type mostly carry the same shared AttrValues (type attrs, small ints,
# defaults), and one dict per op would be one more object per op for the cyclic GC.
_ATTR_DICTS: dict[
    tuple[int, ...], tuple[tuple[str, ...], dict[str, attr_value_pb2.AttrValue]]
] = {}


def shared_attrs(
    names: tuple[str, ...], values: list[attr_value_pb2.AttrValue]
) -> dict[str, attr_value_pb2.AttrValue]:
    """The attrs dict `names` -> `values`, shared with earlier ops that had the same values
    (`names` is an OpInfo's tuple: its id identifies the op type)."""
    key = (id(names), *map(id, values))
    cached = _ATTR_DICTS.get(key)
    if cached is not None and cached[0] is names:
        return cached[1]
    shared = dict(zip(names, values))
    if len(_ATTR_DICTS) >= 4096:
        _ATTR_DICTS.clear()
    # the entry keeps `names` and the values alive, so their ids stay unique
    _ATTR_DICTS[key] = (names, shared)
    return shared


# --- wire encoding ---------------------------------------------------------------------

_SMALL_VARINTS = [bytes([n]) for n in range(128)]


def varint(n: int) -> bytes:
    """`n` as a protobuf varint."""
    if n < 128:
        return _SMALL_VARINTS[n]
    out = bytearray()
    while n > 127:
        out.append((n & 127) | 128)
        n >>= 7
    out.append(n)
    return bytes(out)


def length_delimited(tag: bytes, payload: bytes) -> bytes:
    """One length-delimited protobuf field: tag byte(s), length, payload."""
    return tag + varint(len(payload)) + payload


# (key, id(AttrValue)) -> (the AttrValue, kept alive so its id stays unique; map entry bytes)
_ATTR_ENTRIES: dict[tuple[str, int], tuple[attr_value_pb2.AttrValue, bytes]] = {}
_ATTR_ENTRIES_MAX = 1 << 14


def attr_entry(key: str, value: bytes) -> bytes:
    """The NodeDef `attr` map entry (field 5) for `key` and a serialised AttrValue."""
    return length_delimited(
        b"*", length_delimited(b"\n", key.encode()) + length_delimited(b"\x12", value)
    )


_OP_FIELDS: dict[str, bytes] = {}


def _op_field(op_type: str) -> bytes:
    """The NodeDef `op` field (2) of `op_type`."""
    field = _OP_FIELDS.get(op_type)
    if field is None:
        field = _OP_FIELDS[op_type] = length_delimited(b"\x12", op_type.encode())
    return field


# id(attrs dict) -> (the dict, kept alive so its id stays unique; its `attr` map entries).
# Attr dicts are shared between ops and never changed in place (see `shared_attrs`).
_ATTRS_FIELDS: dict[int, tuple[dict[str, attr_value_pb2.AttrValue], bytes]] = {}


def _attrs_field(attrs: dict[str, attr_value_pb2.AttrValue]) -> bytes:
    cached = _ATTRS_FIELDS.get(id(attrs))
    if cached is not None and cached[0] is attrs:
        return cached[1]
    field = b"".join([_cached_attr_entry(key, value) for key, value in attrs.items()])
    if len(_ATTRS_FIELDS) >= 4096:
        _ATTRS_FIELDS.clear()
    _ATTRS_FIELDS[id(attrs)] = (attrs, field)
    return field


def _cached_attr_entry(key: str, value: attr_value_pb2.AttrValue) -> bytes:
    """`attr_entry` of an AttrValue, cached per (small) AttrValue object, since most attr
    values are shared between nodes."""
    cache_key = (key, id(value))
    cached = _ATTR_ENTRIES.get(cache_key)
    if cached is not None and cached[0] is value:
        return cached[1]
    payload = value.SerializeToString()
    entry = attr_entry(key, payload)
    if len(payload) > 256:
        return entry  # a big tensor: not worth keeping alive
    if len(_ATTR_ENTRIES) >= _ATTR_ENTRIES_MAX:
        _ATTR_ENTRIES.clear()
    _ATTR_ENTRIES[cache_key] = (value, entry)
    return entry
