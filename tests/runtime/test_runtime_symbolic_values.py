"""An embedded Tensor has no value: the eager-only members code written for TensorFlow reaches
for (`.numpy()`, `np.array(t)`, `bool`, `float`, `int`, `len`, iteration, ...) fail as on TF's
graph-mode tensors (the same exception types, checked against TF), with a message saying why
the tensor is symbolic and how to get eager values (docs/runtime.md, "Symbolic tensors")."""

from __future__ import annotations

import operator
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from support.paths import REPO

import opgen_runtime
from opgen_runtime import Dimension, Graph, TensorShape, constant, placeholder

# Each refused use: (label, the use of a tensor).
USES: list[tuple[str, Callable[[Any], Any]]] = [
    ("numpy", lambda t: t.numpy()),
    ("__array__", lambda t: t.__array__()),
    ("bool", bool),
    ("if", lambda t: 1 if t else 0),
    ("float", float),
    ("int", int),
    ("complex", complex),
    ("operator.index", operator.index),
    ("range", range),
    ("len", len),
    ("iter", list),
    ("format spec", lambda t: f"{t:.2f}"),
]

NOT_IMPORTED = "(TensorFlow is not imported). For eager tensors with values, `import tensorflow` before"


@pytest.fixture
def without_tensorflow(monkeypatch):
    """The process as a user's without TensorFlow: the message is chosen when the use fails."""
    monkeypatch.delitem(sys.modules, "tensorflow", raising=False)


def _error(use: Callable[[Any], Any], tensor: Any) -> BaseException:
    try:
        use(tensor)
    except Exception as error:  # noqa: BLE001 - the caller compares it
        return error
    raise AssertionError(f"{use} of {tensor!r} did not raise")


@pytest.mark.parametrize(("label", "use"), USES, ids=[label for label, _ in USES])
def test_eager_only_uses_say_the_tensor_is_symbolic_and_how_to_get_values(label, use, without_tensorflow):
    with Graph().as_default():
        t = constant([[1, 2], [3, 4]])
    error = _error(use, t)
    message = str(error)
    assert "Tensor 'Const:0' is symbolic" in message, message
    assert NOT_IMPORTED in message and "OPGEN_BACKEND=tensorflow" in message, message


def test_numpy_is_an_attribute_error_so_hasattr_is_false(without_tensorflow):
    t = constant(3.0, name="x")
    assert not hasattr(t, "numpy")  # as TF's graph tensors: code probing for eager tensors
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute 'numpy': Tensor 'x(_\d+)?:0' is"):
        t.numpy()


def test_the_message_follows_the_backend_selection(monkeypatch):
    t = constant(1)
    selected = opgen_runtime.get_backend()
    try:
        opgen_runtime.set_backend("embedded")
        message = str(_error(bool, t))
        assert "backend is set to 'embedded' (set_backend or OPGEN_BACKEND)" in message
        assert "opgen_runtime.set_backend('tensorflow'), or OPGEN_BACKEND=tensorflow" in message
    finally:
        opgen_runtime.set_backend(None if selected == "auto" else selected)
    monkeypatch.setitem(sys.modules, "tensorflow", sys.modules.get("tensorflow", sys))
    message = str(_error(bool, t))
    assert "built inside an opgen Graph's as_default() or before TensorFlow was imported" in message


def test_str_repr_format_and_shapes_are_unchanged():
    with Graph().as_default():
        t = placeholder("int32", [None, 3])
    assert f"{t}" == str(t) == 'Tensor("Placeholder:0", shape=(None, 3), dtype=int32)'
    assert f"{t!r}" == "<tf.Tensor 'Placeholder:0' shape=(None, 3) dtype=int32>"
    assert t.shape.as_list() == [None, 3]
    # A tensor as a dimension keeps TF's message (TF's graph tensors have no __index__).
    for make in (Dimension, lambda v: TensorShape([v])):
        with pytest.raises(TypeError, match="Dimension value must be integer or None or have an __index__ method"):
            make(t)


def test_numpy_refuses_the_tensor(without_tensorflow):
    np = pytest.importorskip("numpy")
    t = constant([1, 2])
    for convert in (np.array, np.asarray):
        with pytest.raises(NotImplementedError, match=r"Cannot convert a symbolic Tensor \(Const(_\d+)?:0\) to a"):
            convert(t)


def test_a_wrapper_result_without_tensorflow_says_so():
    """The migration case: a wrapper called in a process that never imported TensorFlow."""
    code = (
        "import sys\n"
        "from generated import gen_math_ops\n"
        "r = gen_math_ops.add([[1, 2], [3, 4]], 1)\n"
        "print(r)\n"
        "try:\n"
        "    r.numpy()\n"
        "except AttributeError as e:\n"
        "    print(e)\n"
        "print('tensorflow' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={k: v for k, v in os.environ.items() if k != "OPGEN_BACKEND"} | {"PYTHONPATH": str(REPO)},
    )
    printed, message, imported = out.stdout.splitlines()
    assert printed == 'Tensor("Add:0", shape=(2, 2), dtype=int32)'
    assert message.startswith("'Tensor' object has no attribute 'numpy': Tensor 'Add:0' is symbolic")
    assert NOT_IMPORTED in message
    assert imported == "False"


@pytest.mark.oracle
@pytest.mark.parametrize(("label", "use"), USES, ids=[label for label, _ in USES])
def test_refusals_match_tensorflow_graph_tensors(label, use, tf):
    """TF's graph-mode tensor refuses the same uses; ours raise the builtin exception TF's is
    (or derives from: `OperatorNotAllowedInGraphError` is a TypeError)."""
    np = pytest.importorskip("numpy")
    if label == "__array__":
        use = np.array  # TF's graph tensor's __array__, as numpy calls it
    with tf.Graph().as_default(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # numpy 2 on TF's __array__ (no `copy`)
        tf_error = _error(use, tf.constant([[1, 2], [3, 4]]))
        with Graph().as_default():
            ours = _error(use, constant([[1, 2], [3, 4]]))
    assert type(ours) in (AttributeError, NotImplementedError, TypeError)
    assert isinstance(tf_error, type(ours)), (tf_error, ours)


@pytest.mark.oracle
def test_len_message_is_tensorflows_then_the_cause(tf):
    with tf.Graph().as_default():
        tf_message = str(_error(len, tf.constant([1, 2], name="v")))
    with Graph().as_default():
        ours = str(_error(len, constant([1, 2], name="v")))
    assert tf_message == ours.split(": Tensor 'v:0' is symbolic")[0] + "."
