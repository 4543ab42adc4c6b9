"""Generated modules on real TensorFlow: a drop-in for the wrappers TF's own generator writes.

Both generators get the same OpList (TF's registry, stateless ops with CPU kernels):
opgen's module (`opgen build`) and TF's (`GetPythonWrappers`, as `tf.load_op_library`
builds it) run side by side on the same inputs, eagerly and inside `tf.function`, and
must give the same output structure (namedtuple/list/tensor), dtypes, shapes and values,
or raise the same exception type. Gradients through both must agree too (GradientTape
eager and inside `tf.function`, `tf.gradients` in a `tf.Graph`). No retracing or
AutoGraph warning may be logged while opgen's wrappers run.
"""

from __future__ import annotations

import inspect
import logging

import pytest
from support import tf_dropin_cases as cases

from opgen_runtime.proto import op_def_pb2

pytestmark = pytest.mark.oracle


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(scope="module")
def modules(tf):
    from oracle.tf_registry import tf_op_list
    from oracle.wrapper_modules import opgen_module, tf_module
    from tensorflow.python.framework import kernels

    ops = [
        op
        for op in tf_op_list().op
        if cases.selected(
            op,
            any(k.device_type == "CPU" for k in kernels.get_registered_kernels_for_op(op.name).kernel),
        )
    ]
    data = op_def_pb2.OpList(op=ops).SerializeToString()
    ours, names = opgen_module(data, "opgen_dropin_under_test")
    theirs = tf_module(data)
    return {op.name: op for op in ops}, ours, theirs, names


@pytest.fixture(scope="module")
def log_records(tf):
    """Everything TensorFlow logs (retracing and AutoGraph warnings go to its logger)."""
    handler = _Records()
    logger = tf.get_logger()
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


def _keywords(function, kwargs):
    params = inspect.signature(function).parameters
    return {(k if k in params else k + "_"): v for k, v in kwargs.items()}


def _outcome(call, /, *args, **kwargs):
    try:
        return "ok", call(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - compared by type
        return "error", e


def _describe(tf, value):
    """Structure, dtypes, shapes and values of an op's result, comparable with ==."""
    import numpy as np

    if value is None:
        return None
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, value._fields, tuple(_describe(tf, v) for v in value))
    if isinstance(value, list):
        return ["list", *(_describe(tf, v) for v in value)]
    if isinstance(value, tf.Operation):
        return ("Operation", value.type)
    if value.dtype in (tf.variant, tf.resource):
        return (value.dtype.name, tuple(value.shape))
    array = np.asarray(value.numpy())
    if array.dtype.kind in "fc":
        data = np.where(np.isnan(array), 0, array).tobytes(), np.isnan(array).tobytes()
    else:
        data = array.tobytes() if array.dtype != object else tuple(array.flat)
    return (value.dtype.name, tuple(value.shape), data)


def _compare(tf, op_name, desc, ours, theirs, mismatches):
    if theirs[0] == "error":
        if ours[0] != "error" or type(ours[1]) is not type(theirs[1]):
            mismatches.append(f"{op_name} [{desc}]: TF raised {type(theirs[1]).__name__}: {theirs[1]}; ours {ours}")
        return False
    if ours[0] == "error":
        mismatches.append(f"{op_name} [{desc}]: we raised {type(ours[1]).__name__}: {ours[1]}")
        return False
    a, b = _describe(tf, ours[1]), _describe(tf, theirs[1])
    if a != b:
        mismatches.append(f"{op_name} [{desc}]: results differ\nours={a}\ntheirs={b}")
        return False
    return True


@pytest.fixture(scope="module")
def working_calls(tf, modules):
    """Per op: the first recipe TF's wrapper runs, else the first one it rejects."""
    ops, _, theirs, names = modules
    working, rejected = {}, {}
    for op_name, fn_name in sorted(names.items()):
        tf_fn = getattr(theirs, fn_name)
        for desc, kwargs in cases.calls(tf, ops[op_name]):
            kw = _keywords(tf_fn, kwargs)
            outcome = _outcome(tf_fn, **kw)
            if outcome[0] == "ok":
                working[op_name] = (desc, kw, outcome)
                break
            rejected.setdefault(op_name, (desc, kw, outcome))
    return working, {k: v for k, v in rejected.items() if k not in working}


def test_eager_and_tf_function_results_equal_tensorflow(tf, modules, working_calls):
    _, ours, theirs, names = modules
    working, rejected = working_calls
    eager_same, function_same, errors_same, mismatches = set(), set(), 0, []
    for op_name, (desc, kw, theirs_eager) in sorted(working.items()):
        our_fn, tf_fn = getattr(ours, names[op_name]), getattr(theirs, names[op_name])
        if _compare(tf, op_name, desc, _outcome(our_fn, **kw), theirs_eager, mismatches):
            eager_same.add(op_name)
        traced = [tf.function(lambda f=f, kw=kw: f(**kw)) for f in (our_fn, tf_fn)]
        if _compare(tf, op_name, desc + ", tf.function", *[_outcome(t) for t in traced], mismatches):
            function_same.add(op_name)
    for op_name, (desc, kw, theirs_eager) in sorted(rejected.items()):
        our_fn = getattr(ours, names[op_name])
        ours_eager = _outcome(our_fn, **kw)
        if ours_eager[0] == "error" and type(ours_eager[1]) is type(theirs_eager[1]):
            errors_same += 1
        else:
            mismatches.append(f"{op_name} [{desc}]: TF raised {theirs_eager[1]!r}; ours {ours_eager}")
    print(f"eager: {len(eager_same)} ops equal; tf.function: {len(function_same)}; {errors_same} raise alike")
    assert not mismatches, "\n\n".join(mismatches[:8]) + f"\n({len(mismatches)} mismatches)"
    assert len(eager_same) >= 300 and len(function_same) >= 300


def test_no_retracing_or_autograph_warnings(tf, modules, log_records):
    """Eager calls with ever new shapes, and a tf.function (AutoGraph on) calling wrappers."""
    _, ours, _, names = modules
    add, mat_mul, reshape = (getattr(ours, names[n]) for n in ("AddV2", "MatMul", "Reshape"))
    for n in range(1, 40):
        x = tf.ones([n, n])
        mat_mul(add(x, x), x)

    @tf.function
    def step(x):
        y = x
        for _ in tf.range(3):  # AutoGraph converts this loop; the wrappers are left as they are
            y = add(mat_mul(y, x), x)
        return reshape(y, [-1])

    for n in (2, 3, 2):
        step(tf.ones([n, n]))
    assert not log_records.messages, log_records.messages[:3]


def test_invalid_calls_raise_like_tensorflow(tf, modules, working_calls):
    """A disallowed input dtype (a string tensor) in each working call: same exception type and text."""
    ops, ours, theirs, names = modules
    working, _ = working_calls
    same, mismatches = 0, []
    bad = tf.constant(["not a number"])
    for op_name, (desc, kw, _) in sorted(working.items()):
        first = next((a for a in ops[op_name].input_arg if a.type_attr and not a.number_attr), None)
        if first is None:
            continue
        key = first.name if first.name in kw else first.name + "_"
        invalid = dict(kw, **{key: bad})
        our_fn, tf_fn = getattr(ours, names[op_name]), getattr(theirs, names[op_name])
        a, b = (
            _outcome(our_fn, **invalid),
            _outcome(tf_fn, **invalid, **_integral_float_defaults(ops[op_name], invalid)),
        )
        if b[0] == "ok":
            continue  # strings are allowed here
        if a[0] != "error" or type(a[1]) is not type(b[1]) or str(a[1]) != str(b[1]):
            mismatches.append(f"{op_name} [{desc}, string input]: ours {a}\ntheirs {b}")
        else:
            same += 1
    print(f"{same} invalid calls raise alike")
    assert not mismatches, "\n\n".join(mismatches[:8]) + f"\n({len(mismatches)} mismatches)"
    assert same >= 200


def _integral_float_defaults(op_def, kw):
    """The float attrs `kw` leaves at a default TF's wrapper spells as an int (`bias=1`), as
    floats: the defaults opgen writes (README "Deliberate differences from TensorFlow's
    generator"). TF's fast path rejects the int, so TF's own call would take its slow path and
    word its errors differently; with the floats it takes the fast path, as ours does."""
    return {a.name: a.default_value.f for a in op_def.attr
            if a.type == "float" and a.HasField("default_value") and a.default_value.f.is_integer()
            and a.name not in kw and a.name + "_" not in kw}


def _float_inputs(tf, kw):
    found = []
    for value in kw.values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, tf.Tensor) and v.dtype in (tf.float32, tf.float64):
                found.append(v)
    return found


def _loss(tf, result):
    flat = tf.nest.flatten(result)
    terms = [tf.reduce_sum(tf.cast(t, tf.float64)) for t in flat if t.dtype in (tf.float32, tf.float64)]
    return tf.add_n(terms) if terms else None


def _gradients(tf, fn, kw, mode):
    """d(sum of float outputs)/d(float inputs) through `fn`, as numpy (None where TF gives None)."""
    import numpy as np

    def with_tape(kw):
        xs = _float_inputs(tf, kw)
        with tf.GradientTape() as tape:
            tape.watch(xs)
            loss = _loss(tf, fn(**kw))
        return [None] if loss is None else tape.gradient(loss, xs, unconnected_gradients="zero")

    if mode == "eager":
        grads = with_tape(kw)
    elif mode == "tf.function":
        grads = tf.function(lambda: with_tape(kw))()
    else:
        with tf.Graph().as_default() as g:
            graph_kw = {
                k: [tf.constant(x.numpy()) for x in v] if isinstance(v, list) else tf.constant(v.numpy())
                if isinstance(v, tf.Tensor)
                else v
                for k, v in kw.items()
            }
            loss = _loss(tf, fn(**graph_kw))
            xs = _float_inputs(tf, graph_kw)
            grads = [None] if loss is None else tf.gradients(loss, xs, unconnected_gradients="zero")
            with tf.compat.v1.Session(graph=g) as session:
                grads = session.run([x for x in grads if x is not None])
        return [np.asarray(x).tobytes() for x in grads]
    return [None if x is None else np.asarray(tf.convert_to_tensor(x)).tobytes() for x in grads]


def test_gradients_equal_tensorflow(tf, modules, working_calls):
    """GradientTape (eager and in tf.function) and tf.gradients through both wrappers."""
    from tensorflow.python.framework import ops as tf_ops

    _, ours, theirs, names = modules
    working, _ = working_calls
    same, mismatches = set(), []
    for op_name, (_desc, kw, _) in sorted(working.items()):
        try:
            if tf_ops.gradient_registry.lookup(op_name) is None:  # NotDifferentiable
                continue
        except LookupError:
            continue
        if not _float_inputs(tf, kw):
            continue
        our_fn, tf_fn = getattr(ours, names[op_name]), getattr(theirs, names[op_name])
        for mode in ("eager", "tf.function", "tf.gradients"):
            theirs_grads = _outcome(_gradients, tf, tf_fn, kw, mode)
            ours_grads = _outcome(_gradients, tf, our_fn, kw, mode)
            if theirs_grads[0] == "error":
                if ours_grads[0] != "error" or type(ours_grads[1]) is not type(theirs_grads[1]):
                    mismatches.append(f"{op_name} {mode}: TF raised {theirs_grads[1]!r}; ours {ours_grads}")
                break
            if ours_grads != theirs_grads:
                mismatches.append(f"{op_name} {mode}: gradients differ: ours {ours_grads}, TF {theirs_grads}")
                break
        else:
            same.add(op_name)
    print(f"gradients equal for {len(same)} ops")
    assert not mismatches, "\n\n".join(mismatches[:8]) + f"\n({len(mismatches)} mismatches)"
    assert len(same) >= 100

