"""Deliberate mistakes: mypy --strict and pyright must each report exactly one error on
every line marked `# mistake:`, and none elsewhere (tests/project/test_typing.py)."""

from __future__ import annotations

import gen_array_ops
import gen_math_ops
import gen_nn_ops

import opgen_runtime as rt

x = rt.constant([1.0, 2.0])
gen_math_ops.reduce_mean(x, [0], bogus=1)  # mistake: a keyword the wrapper does not have
gen_math_ops.reduce_mean(x, [0], keep_dims="yes")  # mistake: a str for a bool attr
gen_nn_ops.bias_add(x, x, data_format="NWHC")  # mistake: a string outside the attr's set
values, indices, counts = gen_array_ops.unique([3, 1, 3])  # mistake: two outputs unpacked into three
print(gen_array_ops.unique([3, 1, 3]).value)  # mistake: a field the result does not have (`values`)
rank: int = gen_math_ops.add(x, x).shape.rank  # mistake: a typed member of a result (`int | None`)
gen_math_ops.mean(x, [0])  # mistake: a deprecated alias (reduce_mean's), PEP 702
