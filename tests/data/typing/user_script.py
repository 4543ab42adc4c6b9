"""A user's script over the example library (generated/): mypy --strict and pyright must
accept it as it is, and it runs (tests/project/test_typing.py): `build` on the embedded
runtime, `on_tensorflow` with TensorFlow (the argument `tensorflow`)."""

from __future__ import annotations

import gen_array_ops
import gen_math_ops
import gen_nn_ops
import gen_state_ops

import opgen_runtime as rt
from opgen_runtime.values import dtypes


def build() -> list[str]:
    graph = rt.Graph()
    with graph.as_default():
        x = gen_array_ops.placeholder(dtypes.float32, shape=[None, 4])
        y = gen_array_ops.placeholder(1, shape=rt.TensorShape([None, 4]))
        total: rt.Tensor = gen_math_ops.add(x, y)
        mean = gen_math_ops.reduce_mean(total, [0], keep_dims=True)
        halves: list[rt.Tensor] = gen_array_ops.split(value=total, split_dim=1, num_split=2)
        summed = gen_math_ops.add_n(halves)
        distinct = gen_array_ops.unique([3, 1, 3], out_idx=dtypes.int64)
        images = gen_array_ops.placeholder("float32", shape=(1, 8, 8, 3))
        filters = gen_array_ops.placeholder(dtypes.float32, shape=[3, 3, 3, 2])
        conv = gen_nn_ops.conv2d(images, filters, strides=(1, 1, 1, 1), padding="SAME", data_format="NHWC")
        biased = gen_nn_ops.bias_add(conv, [1.0, 2.0])
        pooled = gen_nn_ops.max_pool(biased, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        handle = gen_state_ops.var_handle_op(dtypes.float32, [2], shared_name="v")
        assigned = gen_state_ops.assign_variable_op(handle, [1.0, 2.0])
        done = gen_array_ops.no_op()
        names = [mean.name, distinct.values.name, distinct.indices.name, pooled.name]
        if assigned is not None and done is not None:
            names += [assigned.name, done.name]
        return [*names, str(mean.shape), summed.dtype.name]


def on_tensorflow() -> list[str]:
    """What code written for TensorFlow does with results (TF's tensors there): operators,
    indexing, `.numpy()`, unpacking a multi-output result; checkers read a result's members
    beyond the embedded `Tensor`'s as Any, as TF's own wrappers type their results."""
    x = gen_math_ops.add([1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 0.5, 0.5])
    z = x * 2.0 + 1.0
    first, second = gen_array_ops.split(value=z, split_dim=0, num_split=2)
    values, _ = gen_array_ops.unique([3, 1, 3])
    return [str(z.numpy().tolist()), str(float(z[0])), str((first - second).numpy().tolist()),
            str(values.numpy().tolist()), z.dtype.name]


if __name__ == "__main__":
    import sys

    print("\n".join(on_tensorflow() if sys.argv[1:] == ["tensorflow"] else build()))
