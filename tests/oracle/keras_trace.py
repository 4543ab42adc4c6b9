"""How many op instances of a traced Keras train step get TF's static shapes in opgen.

A small CNN + self-attention classifier (Conv2D, MaxPool, Reshape, MultiHeadAttention,
LayerNormalization, Dense, sparse softmax cross-entropy, Adam) is traced with
`tf.function`; every node of the train step's graph is then rebuilt in an embedded-runtime
Graph, in order, from its NodeDef (same inputs, attrs and output dtypes; Placeholders keep
TF's shapes), so opgen's shape functions see exactly what TF's saw. An instance counts as
matching when all its output shapes equal TF's.

`python -m oracle.keras_trace` (from tests/) prints the counts and the mismatching op types.
"""

from __future__ import annotations

import collections
import os
import sys
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")


def traced_train_step_graph() -> Any:
    """The FuncGraph of one Keras CNN+attention train step."""
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(0)
    inputs = keras.Input((16, 16, 3))
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
    x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.Conv2D(16, 3, activation="relu")(x)
    x = keras.layers.Reshape((-1, 16))(x)
    attended = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
    x = keras.layers.LayerNormalization()(x + attended)
    x = keras.layers.GlobalAveragePooling1D()(x)
    x = keras.layers.Dropout(0.1)(x)
    outputs = keras.layers.Dense(10)(x)
    model = keras.Model(inputs, outputs)
    optimizer = keras.optimizers.Adam()
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer.build(model.trainable_variables)

    @tf.function
    def train_step(images: Any, labels: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(images, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    concrete = train_step.get_concrete_function(
        tf.TensorSpec([None, 16, 16, 3], tf.float32), tf.TensorSpec([None], tf.int32)
    )
    return concrete.graph


def rebuild_and_compare(tf_graph: Any) -> tuple[int, int, collections.Counter[str]]:
    """(instances, instances with TF's shapes, mismatching op types) over tf_graph's ops."""
    import tensorflow as tf
    from tensorflow.python.ops import handle_data_util

    from opgen_runtime import Graph
    from opgen_runtime.ops import registry
    from opgen_runtime.proto import attr_value_pb2
    from opgen_runtime.shapes import inference as shape_inference
    from opgen_runtime.values import dtypes
    from opgen_runtime.values.tensor_shape import TensorShape

    tf_resource = tf.resource
    graph = Graph()
    tensors: dict[str, Any] = {}
    total = good = 0
    bad: collections.Counter[str] = collections.Counter()
    for op in tf_graph.get_operations():
        attrs = {
            k: attr_value_pb2.AttrValue.FromString(v.SerializeToString())
            for k, v in op.node_def.attr.items()
        }
        inputs = [tensors[t.name] for t in op.inputs]
        out_dtypes = [dtypes.as_dtype(t.dtype.as_datatype_enum) for t in op.outputs]
        op_def = registry.get(op.type)
        infer = shape_inference.shape_fn_for(op.type)
        try:
            ours = graph._create_op(
                op.type, inputs, op.name + "/", attrs, out_dtypes, op_def, infer
            )
        except ValueError:
            ours = graph._create_op(
                op.type, inputs, op.name + "/", attrs, out_dtypes, op_def, None
            )
            for t in ours._outputs:
                t._shape = TensorShape(None)
        if op.type == "Placeholder" and op.outputs[0].dtype == tf_resource:
            # A captured variable: a VarHandleOp carries its shape and dtype, as TF's
            # handle data on the capture does.
            shape_and_type = handle_data_util.get_resource_handle_data(
                op.outputs[0]
            ).shape_and_type[0]
            attrs = {
                "shape": attr_value_pb2.AttrValue(),
                "dtype": attr_value_pb2.AttrValue(type=shape_and_type.dtype),
                "container": attr_value_pb2.AttrValue(s=b""),
                "shared_name": attr_value_pb2.AttrValue(s=op.name.encode()),
                "allowed_devices": attr_value_pb2.AttrValue(list={}),
            }
            attrs["shape"].shape.ParseFromString(
                shape_and_type.shape.SerializeToString()
            )
            ours = graph._create_op(
                "VarHandleOp",
                [],
                op.name + "_var/",
                attrs,
                out_dtypes,
                registry.get("VarHandleOp"),
                None,
            )
        if op.type == "Placeholder":  # captured values: TF's shapes as given
            for t, theirs in zip(ours._outputs, op.outputs):
                t._shape = TensorShape(
                    theirs.shape.as_list() if theirs.shape.rank is not None else None
                )
        for t, theirs in zip(ours._outputs, op.outputs):
            tensors[theirs.name] = t
        total += 1
        same = all(
            _dims(t.shape) == _dims(theirs.shape)
            for t, theirs in zip(ours._outputs, op.outputs)
        )
        good += same
        if not same:
            bad[op.type] += 1
            if os.environ.get("KERAS_TRACE_VERBOSE"):
                print(
                    op.type,
                    op.name,
                    [_dims(t.shape) for t in op.inputs],
                    [_dims(t.shape) for t in ours._inputs],
                    "TF",
                    [_dims(t.shape) for t in op.outputs],
                    "ours",
                    [_dims(t.shape) for t in ours._outputs],
                )
    return total, good, bad


def _dims(shape: Any) -> Any:
    return None if shape.rank is None else tuple(shape.as_list())


def main() -> int:
    from opgen_runtime.ops import registry
    from oracle.tf_registry import tf_op_list_bytes

    registry.register_op_list("tensorflow_registry", tf_op_list_bytes())
    total, good, bad = rebuild_and_compare(traced_train_step_graph())
    print(
        f"{good}/{total} op instances get TF's static shapes ({100.0 * good / total:.1f}%)"
    )
    print("mismatching:", dict(bad.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
