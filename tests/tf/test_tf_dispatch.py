"""TF's API dispatch through generated wrappers, differential against TF's own wrappers.

Both generators get the same OpList (a few of TF's ops): opgen's module (`opgen build`) and
TF's (`GetPythonWrappers`, as `tf.load_op_library` builds it; every op VISIBLE, so TF
decorates each for dispatch). The same dispatch targets are registered on both sides and
the same calls run eagerly, inside `tf.function` and in a `tf.Graph`: which handler is
called, with which arguments, and the results (or exception types) must agree. Which ops
carry TF's decorators at all (ApiDef visibility) is checked over TF's shipped
gen_math_ops/gen_array_ops by tests/overrides/test_tf_apidef_crosscheck.py.
"""

# No `from __future__ import annotations`: `dispatch_for_api` reads the handlers' annotations.
import subprocess
import sys

import pytest
from support.paths import REPO

from opgen_runtime.proto import op_def_pb2

pytestmark = pytest.mark.oracle

OPS = ("Abs", "Neg", "Sqrt", "AddV2", "Mul", "Cast", "ConcatV2")
MODES = ("eager", "tf.function", "graph")


@pytest.fixture(scope="module")
def modules(tf):
    from oracle.tf_registry import tf_op_list
    from oracle.wrapper_modules import opgen_module, tf_module

    data = op_def_pb2.OpList(op=[op for op in tf_op_list().op if op.name in OPS]).SerializeToString()
    ours, _ = opgen_module(data, "opgen_dispatch_under_test")
    return {"ours": ours, "theirs": tf_module(data)}


@pytest.fixture(scope="module")
def masked(tf):
    class Masked(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

    return Masked


def _run(tf, mode, thunk):
    """`thunk()` eagerly, traced by `tf.function`, or building a `tf.Graph`; a comparable outcome."""
    try:
        if mode == "eager":
            return "ok", _describe(tf, thunk(), values=True)
        if mode == "tf.function":
            return "ok", _describe(tf, tf.function(thunk)(), values=True)
        with tf.Graph().as_default():
            return "ok", _describe(tf, thunk(), values=False)
    except Exception as e:  # noqa: BLE001 - compared by type
        return "error", type(e).__name__, str(e)[:300]


def _describe(tf, value, values):
    """Type, and the dtype, shape (and values when not symbolic) of every component tensor."""
    if isinstance(value, tuple) and value and value[0] == "handled":
        return value
    parts = []
    for t in tf.nest.flatten(value, expand_composites=True):
        parts.append((t.dtype.name, str(t.shape), t.numpy().tolist() if values else None))
    return type(value).__name__, parts


def _each_side(modules, run):
    """`run(module)` on opgen's module and on TF's: the two outcomes (an error's message is
    left out of the comparison: it quotes the wrapper's source)."""
    return {side: _Outcome(run(module)) for side, module in modules.items()}


class _Outcome(tuple):
    def __eq__(self, other):
        return self[:2] == other[:2]

    __hash__ = tuple.__hash__


def test_dispatch_attributes_are_tensorflows(tf, modules):
    from tensorflow.python.util import dispatch

    for op in ("abs", "neg", "sqrt", "add_v2", "mul", "cast", "concat_v2"):
        ours, theirs = getattr(modules["ours"], op), getattr(modules["theirs"], op)
        for attr in (dispatch.FALLBACK_DISPATCH_ATTR, dispatch.TYPE_BASED_DISPATCH_ATTR):
            assert hasattr(ours, attr) and hasattr(theirs, attr), (op, attr)
        assert getattr(ours, dispatch.FALLBACK_DISPATCH_ATTR) == []
        assert ours in dispatch.apis_with_type_based_dispatch()


def test_dispatch_for_api_calls_the_handler_exactly_when_tensorflows_wrapper_does(tf, modules, masked):
    """Handlers for `abs` (from type annotations) and `add_v2` (signatures `{"y": Masked}`):
    called for Masked arguments only, in every mode, with the same arguments and results."""
    calls = {"ours": [], "theirs": []}
    handlers = []

    def register(module, log):
        @tf.experimental.dispatch_for_api(module.abs)
        def masked_abs(x: masked, name=None):
            log.append(("abs", name))
            return masked(tf.abs(x.values), x.mask)

        @tf.experimental.dispatch_for_api(module.add_v2, {"y": masked})
        def masked_add(x, y, name=None):
            log.append(("add_v2", type(x).__name__, name))
            x_values = x.values if isinstance(x, masked) else x
            return masked(x_values + y.values, y.mask)

        handlers.extend((masked_abs, masked_add))

    for side, module in modules.items():
        register(module, calls[side])

    def m():
        return masked(tf.constant([-1.0, 2.0]), tf.constant([True, False]))

    def t():
        return tf.constant([3.0, -4.0])

    def cases(module):  # values are made inside each mode's function or graph
        return [
            ("abs(masked)", lambda: module.abs(m(), name="a")),
            ("abs(tensor)", lambda: module.abs(t())),
            ("add_v2(tensor, masked)", lambda: module.add_v2(t(), m())),
            ("add_v2(masked, masked)", lambda: module.add_v2(m(), m())),
            ("add_v2(masked, tensor)", lambda: module.add_v2(m(), t())),
            ("add_v2(tensor, tensor)", lambda: module.add_v2(t(), t())),
        ]

    try:
        for mode in MODES:
            for i, (desc, _) in enumerate(cases(modules["ours"])):
                for log in calls.values():
                    log.clear()
                outcome = _each_side(modules, lambda module: _run(tf, mode, cases(module)[i][1]))  # noqa: B023 - run now
                assert outcome["ours"] == outcome["theirs"], (mode, desc)
                assert calls["ours"] == calls["theirs"], (mode, desc)
                if desc in ("abs(masked)", "add_v2(tensor, masked)", "add_v2(masked, masked)"):
                    assert calls["ours"], (mode, desc)  # the handler ran
                    assert outcome["ours"][0] == "ok" and outcome["ours"][1][0] == "Masked", (mode, desc, outcome)
    finally:
        for handler in handlers:
            tf.experimental.unregister_dispatch_for(handler)
    # Unregistered: both reject the Masked value alike.
    value = masked(tf.constant([-1.0]), tf.constant([True]))
    outcome = _each_side(modules, lambda module: _run(tf, "eager", lambda: module.abs(value)))
    assert outcome["ours"] == outcome["theirs"] and outcome["ours"][0] == "error"


class _Boxed:
    """A value no conversion accepts (only a fallback dispatcher can handle it)."""

    def __repr__(self) -> str:
        return "Boxed"


class _Opaque:
    """Another value no conversion accepts, which the test's dispatcher declines."""

    def __repr__(self) -> str:
        return "Opaque"


def test_fallback_dispatchers_are_consulted_on_errors_as_in_tensorflow(tf, modules):
    """An `OpDispatcher` registered on a wrapper runs when the call raises TypeError or
    ValueError, with the keywords TF's wrapper passes (as given eagerly, attrs converted in
    graph mode), and never for calls that succeed."""
    seen = {"ours": [], "theirs": []}

    class Recording(tf.__internal__.dispatch.OpDispatcher):
        def __init__(self, log):
            self.log = log

        def handle(self, args, kwargs):
            self.log.append((args, {k: repr(v) for k, v in kwargs.items()}))
            if any(isinstance(v, _Boxed) or (isinstance(v, list) and _Boxed in map(type, v)) for v in kwargs.values()):
                return ("handled", sorted(kwargs))
            return self.NOT_SUPPORTED

    for side, module in modules.items():
        Recording(seen[side]).register(module.cast)
        Recording(seen[side]).register(module.concat_v2)

    def t():
        return tf.constant([1.5, 2.5])

    def cases(module):
        return [
            ("cast(boxed)", lambda: module.cast(_Boxed(), tf.int32)),
            ("cast(boxed, Truncate)", lambda: module.cast(_Boxed(), DstT=tf.int32, Truncate=True, name="c")),
            ("cast(tensor)", lambda: module.cast(t(), tf.int32)),
            ("cast(object) declined", lambda: module.cast(_Opaque(), tf.int32)),
            ("concat_v2([boxed])", lambda: module.concat_v2([t(), _Boxed()], 0)),
            ("concat_v2(tensors)", lambda: module.concat_v2([t(), t()], 0)),
        ]

    for mode in MODES:
        for i, (desc, _) in enumerate(cases(modules["ours"])):
            for log in seen.values():
                log.clear()
            outcome = _each_side(modules, lambda module: _run(tf, mode, cases(module)[i][1]))  # noqa: B023 - run now
            assert outcome["ours"] == outcome["theirs"], (mode, desc, outcome)
            assert seen["ours"] == seen["theirs"], (mode, desc, seen)
            assert bool(seen["ours"]) == ("tensor" not in desc and "tensors" not in desc), (mode, desc)


def test_ragged_tensors_reach_tensorflows_elementwise_handlers(tf, modules):
    """Registered as elementwise APIs as TF's math_ops registers its gen_math_ops wrappers,
    opgen's wrappers get TF's RaggedTensor handlers; unregistered, both reject ragged alike."""
    from tensorflow.python.util import dispatch

    for module in modules.values():
        dispatch.register_unary_elementwise_api(module.neg)
        dispatch.register_unary_elementwise_api(module.abs)
        dispatch.register_binary_elementwise_api(module.add_v2)
        dispatch.register_binary_elementwise_api(module.mul)

    def rt():
        return tf.ragged.constant([[1.0, -2.0], [], [3.0]])

    def cases(module):
        return [
            ("neg", lambda: module.neg(rt())),
            ("abs", lambda: module.abs(rt(), name="r")),
            ("add_v2", lambda: module.add_v2(rt(), rt())),
            ("mul", lambda: module.mul(rt(), tf.constant(2.0))),
            ("sqrt (not registered)", lambda: module.sqrt(rt())),
        ]

    for mode in MODES:
        for i, (desc, _) in enumerate(cases(modules["ours"])):
            outcome = _each_side(modules, lambda module: _run(tf, mode, cases(module)[i][1]))  # noqa: B023 - run now
            assert outcome["ours"] == outcome["theirs"], (mode, desc, outcome)
            expected = "error" if "not registered" in desc else "ok"
            assert outcome["ours"][0] == expected, (mode, desc, outcome)
            if expected == "ok":
                assert outcome["ours"][1][0] == "RaggedTensor"


def test_hidden_op_has_no_dispatch(tf, tmp_path):
    """An op TF's ApiDef hides gets no dispatch from TF's generator; opgen's wrapper neither
    (TF's `gen_math_ops.add` vs opgen's built with TF's Python ApiDefs)."""
    from support.tf_python_api import api_def_file, module_op_list
    from tensorflow.python.ops import gen_math_ops

    from opgen import cli

    (tmp_path / "math_ops.pbtxt").write_text(str(module_op_list("gen_math_ops")))
    assert cli.main(["build", str(tmp_path / "math_ops.pbtxt"), "--overrides", str(api_def_file("gen_math_ops")),
                     "--out", str(tmp_path / "out"), "-q"]) == 0
    import importlib.util

    spec = importlib.util.spec_from_file_location("opgen_hidden_math_ops", tmp_path / "out" / "gen_math_ops.py")
    ours = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = ours
    spec.loader.exec_module(ours)
    for name in ("add", "acosh"):
        for fn in (getattr(ours, name), getattr(gen_math_ops, name)):
            assert hasattr(fn, "_tf_type_based_dispatcher") == (name == "acosh"), (fn, name)
        outcomes = []
        for fn in (getattr(ours, name), getattr(gen_math_ops, name)):
            try:
                target = tf.experimental.dispatch_for_api(fn, {"x": tf.RaggedTensor})(lambda x, name=None: x)
                tf.experimental.unregister_dispatch_for(target)
                outcomes.append("registered")
            except ValueError as e:
                outcomes.append(("ValueError", "does not support dispatch" in str(e)))
        assert outcomes[0] == outcomes[1], (name, outcomes)


def test_dispatch_needs_no_tensorflow_until_used():
    """Importing a module and running it on the embedded runtime imports no TensorFlow; TF
    imported afterwards still finds every wrapper listed for `dispatch_for_api`."""
    code = (
        "import sys\n"
        "from generated import gen_math_ops as m\n"
        "from opgen_runtime import Graph\n"
        "with Graph().as_default():\n"
        "    m.abs([1.0])\n"
        "    try:\n"
        "        m.abs(object())\n"
        "    except TypeError:\n"
        "        pass\n"
        "assert 'tensorflow' not in sys.modules\n"
        "import tensorflow as tf\n"
        "from tensorflow.python.util import dispatch\n"
        "assert m.abs in dispatch.apis_with_type_based_dispatch()\n"
        "class T(tf.experimental.ExtensionType):\n"
        "    v: tf.Tensor\n"
        "@tf.experimental.dispatch_for_api(m.abs)\n"
        "def f(x: T, name=None):\n"
        "    return T(x.v + 1)\n"
        "print(int(m.abs(T(tf.constant(1))).v))\n"
    )

    repo = REPO
    result = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True,
                            env={**__import__("os").environ, "PYTHONPATH": str(repo), "TF_CPP_MIN_LOG_LEVEL": "3"},
                            check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "2"
