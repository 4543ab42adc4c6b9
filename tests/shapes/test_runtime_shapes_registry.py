"""Shape differential over TF's registry (tests/oracle/shape_differential.py), TF graph mode
as the oracle: for every op opgen has a shape function for, the static shapes equal TF's on
every setup TF accepts and every setup TF's shape function rejects raises TF's ValueError
with TF's message; coverage of the informative ops is reported per TF module.

Split by TF module so xdist can spread it; `python -m oracle.shape_differential` (from
tests/) prints the whole report.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.oracle

# ≥ 90% of the informative ops of these modules get TF's shapes on every setup.
TARGET_MODULES = ("gen_math_ops", "gen_array_ops", "gen_nn_ops")


def _check(differential, names):
    reports = differential.run_differential(names)
    mismatches = [m for r in reports for m in r.mismatches]
    cases = sum(r.cases for r in reports if r.ported)
    print(f"{len(reports)} ops, {cases} compared cases, {len(mismatches)} mismatches")
    assert not mismatches, (
        "\n".join(mismatches[:20]) + f"\n({len(mismatches)} mismatches)"
    )
    return reports


@pytest.mark.parametrize("module", TARGET_MODULES)
def test_module_shapes_equal_tensorflow(differential, module):
    modules = differential.module_of_ops()
    names = sorted(
        name
        for name, m in modules.items()
        if m == module
        and name in differential.registry_ops()
        and name not in differential.CRASH_TF
    )
    table = differential.coverage(_check(differential, names))
    print(differential.format_coverage(table))
    good, total = table[module]
    assert total >= 80
    assert (
        good >= 0.9 * total
    ), f"{module}: {good}/{total} informative ops get TF's shapes"


def test_other_ported_ops_equal_tensorflow(differential):
    from opgen_runtime.shapes import fns as shape_fns

    modules = differential.module_of_ops()
    names = sorted(
        name
        for name in shape_fns.BY_OP
        if modules.get(name) not in TARGET_MODULES and name not in differential.CRASH_TF
    )
    names = [n for n in names if n in differential.registry_ops()]
    reports = _check(differential, names)
    assert sum(r.cases for r in reports) >= 1000


def test_example_library_squeeze_and_split_give_tf_shapes(tf):
    """op_specs declares TF's shape functions: Squeeze drops size-1 dims, Split takes a
    rank-1 placeholder as split_dim (its value is unknown) like TF."""
    from generated import gen_array_ops
    from opgen_runtime import Graph

    with Graph().as_default():
        x = gen_array_ops.placeholder(dtype="float32", shape=[1, 3])
        assert gen_array_ops.squeeze(x).shape.as_list() == [3]
        axis = gen_array_ops.placeholder(dtype="int32", shape=[1])
        value = gen_array_ops.placeholder(dtype="float32", shape=[4, 6])
        parts = gen_array_ops.split(value, axis, num_split=2)
    assert [p.shape.as_list() for p in parts] == [[None, None], [None, None]]
    with tf.Graph().as_default():
        tf_parts = tf.raw_ops.Split(
            axis=tf.compat.v1.placeholder("int32", [1]),
            value=tf.compat.v1.placeholder("float32", [4, 6]),
            num_split=2,
        )
    assert [p.shape.as_list() for p in tf_parts] == [[None, None], [None, None]]


def test_keras_train_step_op_instances_get_tf_shapes(differential):
    """≥ 95% of the op instances of a traced Keras CNN+attention train step get TF's shapes."""
    from oracle import keras_trace

    total, good, bad = keras_trace.rebuild_and_compare(
        keras_trace.traced_train_step_graph()
    )
    print(
        f"{good}/{total} op instances get TF's static shapes; mismatching: {dict(bad)}"
    )
    assert total >= 500
    assert good >= 0.95 * total
