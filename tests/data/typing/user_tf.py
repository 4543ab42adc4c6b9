"""A user's TensorFlow program over the example library (generated/): wrappers' results go
into TF's own functions, whose annotations (typeshed's TensorFlow stubs, which pyright
bundles) ask for `tf.Tensor`. With the checker told the code runs on TensorFlow
(`OPGEN_TENSORFLOW_TYPES`, docs/typing.md), mypy --strict and pyright accept it as it is
(tests/project/test_typing.py); it runs on TensorFlow."""

from __future__ import annotations

import gen_array_ops
import gen_math_ops
import gen_nn_ops
import gen_state_ops
import tensorflow as tf


def program() -> list[str]:
    x = tf.constant([[1.0, -2.0], [3.0, 4.0]])
    y = gen_math_ops.add(x, 1.0)
    total = tf.reduce_sum(y) + tf.nn.relu(gen_nn_ops.relu(y))
    flat = tf.reshape(gen_math_ops.mat_mul(y, y), [4])
    halves = gen_array_ops.split(split_dim=1, value=y, num_split=2)
    joined = tf.concat(halves, axis=0)
    positive = tf.where(y > 1.0, y, 0.0)
    as_int = tf.cast(gen_math_ops.reduce_mean(y, [0]), tf.int32)
    unique = gen_array_ops.unique([3, 1, 3])
    op = gen_array_ops.no_op()
    tensor: tf.Tensor = gen_math_ops.sqrt(tf.abs(y))
    variable = tf.Variable(tf.constant([1.0, 2.0]))
    gen_state_ops.assign_variable_op(variable.handle, [5.0, 6.0])
    value = tf.math.square(gen_state_ops.read_variable_op(variable.handle, tf.float32))
    return [
        str(total.numpy()),
        str(flat.numpy().tolist()),
        str(joined.shape.as_list()),
        str(positive.numpy().tolist()),
        str(as_int.numpy().tolist()),
        str(unique.values.numpy().tolist()),
        str(op is None),
        str(tensor.dtype.name),
        str(value.numpy().tolist()),
    ]


if __name__ == "__main__":
    print("\n".join(program()))
