"""Helpers of the runtime differentials that compare whole graphs and exceptions with TF."""

from __future__ import annotations

import re

from opgen_runtime.proto import graph_pb2, node_def_pb2


def register_tf_ops(module_name: str, names: tuple[str, ...]) -> None:
    """Registers TF's own OpDefs of `names` in opgen's runtime registry."""
    from opgen_runtime.ops import registry
    from opgen_runtime.proto import op_def_pb2
    from oracle.tf_registry import tf_op_list

    ops = [op for op in tf_op_list().op if op.name in names]
    registry.register_op_list(
        module_name, op_def_pb2.OpList(op=ops).SerializeToString()
    )


def mask_message(message: str) -> str:
    """An exception message without object addresses and Graph class paths."""
    message = re.sub(r"0x[0-9a-f]+", "0x?", message)
    for path in ("tensorflow.python.framework.ops.Graph", "opgen_runtime.graph.graph.Graph"):
        message = message.replace(path, "Graph")
    return message


def normalised_nodes(graph, add_shapes: bool = False) -> list[bytes]:
    """The graph's NodeDefs as deterministic bytes, without TF's full-type inference
    (experimental_type) and debug info; `graph` is either side's Graph."""
    raw = graph.as_graph_def(add_shapes=add_shapes).SerializeToString()
    nodes = []
    for node in graph_pb2.GraphDef.FromString(raw).node:
        n = node_def_pb2.NodeDef()
        n.CopyFrom(node)
        n.ClearField("experimental_type")
        n.ClearField("experimental_debug_info")
        nodes.append(n.SerializeToString(deterministic=True))
    return nodes
