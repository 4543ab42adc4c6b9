"""End to end: graphs of example-library ops (op_specs/) built by the embedded runtime,
exported, imported into TensorFlow and run, equal TF's own results for the same calls;
the same calls on the TF backend give TF's results in graph and eager mode.

The embedded side runs in a subprocess that registers only the example library's OpList
(gathered by `opgen oplist op_specs`), so it cannot collide with TF's registry that other
runtime tests register in this process.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.example_calls import CALLS, complete
from support.paths import REPO

pytestmark = pytest.mark.oracle


_BUILD_SCRIPT = r"""
import base64, json, sys
from google.protobuf import text_format
from opgen_runtime.proto import op_def_pb2
from opgen_runtime import Graph, registry
from opgen_runtime import op_def_library as lib
sys.path.insert(0, sys.argv[2])
from support.example_calls import CALLS, complete
op_list = text_format.Parse(open(sys.argv[1]).read(), op_def_pb2.OpList())
registry.register_op_list("op_specs", op_list.SerializeToString())
ops = {op.name: op for op in op_list.op}
out = {}
for name, kwargs in CALLS.items():
    g = Graph()
    with g.as_default():
        _, _, op, outputs = lib._apply_op_helper(name, **complete(ops[name], kwargs))
    out[name] = [base64.b64encode(g.as_graph_def().SerializeToString()).decode(), [t.name for t in outputs]]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def example_graphs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("e2e")
    oplist = tmp / "ops.pbtxt"
    subprocess.run(
        [sys.executable, "-m", "opgen", "oplist", "op_specs", "-o", str(oplist)],
        cwd=REPO,
        check=True,
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    run = subprocess.run(
        [sys.executable, "-c", _BUILD_SCRIPT, str(oplist), str(REPO / "tests")],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    from google.protobuf import text_format

    from opgen_runtime.proto import op_def_pb2

    ops = {
        op.name: op
        for op in text_format.Parse(oplist.read_text(), op_def_pb2.OpList()).op
    }
    return json.loads(run.stdout), ops


def _run_tf_graph(tf, build, *args):
    graph = tf.Graph()
    with graph.as_default():
        fetches = build(*args)
    with tf.compat.v1.Session(graph=graph) as sess:
        return sess.run(fetches)


def _assert_same(a, b, what):
    import numpy as np

    assert len(a) == len(b), what
    for x, y in zip(a, b):
        # exact, up to 1-ulp float differences between TF's eager kernels and grappler-folded graphs
        np.testing.assert_allclose(
            np.asarray(x), np.asarray(y), rtol=1e-6, atol=0, err_msg=what
        )
        assert np.asarray(x).dtype == np.asarray(y).dtype, what


def test_embedded_graphs_run_in_tensorflow(tf, example_graphs):
    from tensorflow.core.framework import graph_pb2 as tf_graph_pb2
    from tensorflow.python.framework import op_def_library as tf_lib

    built, ops = example_graphs
    assert len(built) >= 30
    for name, (graph_b64, fetch_names) in built.items():
        graph_def = tf_graph_pb2.GraphDef.FromString(base64.b64decode(graph_b64))
        assert graph_def.versions.producer == 2474

        def imported(graph_def, fetch_names):
            tf.graph_util.import_graph_def(graph_def, name="")
            return fetch_names

        def native(name):
            return list(
                tf_lib._apply_op_helper(name, **complete(ops[name], CALLS[name]))[3]
            )

        _assert_same(
            _run_tf_graph(tf, imported, graph_def, fetch_names),
            _run_tf_graph(tf, native, name),
            name,
        )


def test_tensorflow_backend_graph_and_eager(tf, example_graphs):
    from tensorflow.python.framework import op_def_library as tf_lib

    from opgen_runtime import set_backend
    from opgen_runtime.ops import op_def_library as lib

    _, ops = example_graphs
    set_backend("tensorflow")
    try:
        for name, kwargs in CALLS.items():
            call = complete(ops[name], kwargs)

            def build(helper, name, call):
                return list(helper(name, **call)[3])

            expected = _run_tf_graph(tf, build, tf_lib._apply_op_helper, name, call)
            graph_mode = _run_tf_graph(tf, build, lib._apply_op_helper, name, call)
            _assert_same(graph_mode, expected, f"{name} graph mode")
            eager = [t.numpy() for t in lib._apply_op_helper(name, **call)[3]]
            _assert_same(eager, expected, f"{name} eager mode")
    finally:
        set_backend(None)


def test_automatic_backend_inside_tf_graph(tf):
    from opgen_runtime import Tensor
    from opgen_runtime.ops import op_def_library as lib

    with tf.Graph().as_default():
        out = lib._apply_op_helper("AddV2", x=1.0, y=2.0)[3][0]
    assert isinstance(out, tf.Tensor) and not isinstance(out, Tensor)
    out = lib._apply_op_helper("AddV2", x=tf.constant(1.0), y=2.0)[3][
        0
    ]  # eager TF tensor input
    assert float(out.numpy()) == 3.0


def test_backend_missing_op_is_a_clear_error(tf):
    from opgen_runtime import set_backend
    from opgen_runtime.ops import op_def_library as lib
    from opgen_runtime.ops import registry
    from opgen_runtime.proto import op_def_pb2

    registry.register_op_def("custom_module", op_def_pb2.OpDef(name="OpgenNotInTf"))
    set_backend("tensorflow")
    try:
        with pytest.raises(RuntimeError, match=r"tf.load_op_library"):
            lib._apply_op_helper("OpgenNotInTf")
    finally:
        set_backend(None)


# --- the same, through wrappers generated by `opgen build` from op_specs/ ---------------------


def _cache_dir(kind: str, *parts: bytes) -> Path:
    key = hashlib.sha256(b"\0".join(parts)).hexdigest()[:20]
    return (
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        / "opgen"
        / kind
        / key
    )


def _tree_bytes(*folders: Path) -> bytes:
    """The files under `folders` (the runtime excluded: generated code does not depend on it)."""
    return b"\0".join(
        p.read_bytes()
        for folder in folders
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "runtime" not in p.parts and "__pycache__" not in p.parts
    )


@pytest.fixture(scope="module")
def example_wrappers(tf):
    """op name -> generated function, from `opgen build op_specs` without overrides (OpDef arg names)."""
    out = _cache_dir(
        "runtime-example-wrappers",
        _tree_bytes(
            REPO / "op_specs",
            REPO / "opgen",
            REPO / "templates",
        ),
    )
    if not (out / "gen" / "opgen_sourcemap.json").exists():
        (out / "no-overrides").mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "opgen", "build", "op_specs", "--overrides", str(out / "no-overrides"),
             "--out", str(out / "gen")],
            cwd=REPO, check=True, capture_output=True, env=dict(os.environ, PYTHONPATH=str(REPO)),
        )  # fmt: skip
    from support.call_wrappers import record_build_dir

    record_build_dir(out / "gen")  # every wrapper gets called (support/call_wrappers.py)
    source_map = json.loads((out / "gen" / "opgen_sourcemap.json").read_text())[
        "modules"
    ]
    functions = {}
    for file_name, entries in source_map.items():
        spec = importlib.util.spec_from_file_location(
            f"opgen_example_wrappers.{file_name[:-3]}", out / "gen" / file_name
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        functions.update(
            {
                entry["op"]: getattr(module, fn)
                for fn, entry in entries.items()
                if hasattr(module, fn)
            }
        )
    return functions


def _call_wrapper(function, kwargs):
    params = inspect.signature(function).parameters
    result = function(**{(k if k in params else k + "_"): v for k, v in kwargs.items()})
    flat = []
    for item in result if isinstance(result, (list, tuple)) else [result]:
        flat.extend(item if isinstance(item, list) else [item])
    return flat


def test_generated_wrappers_embedded_and_tensorflow_backend(
    tf, example_wrappers, example_graphs
):
    from tensorflow.python.framework import op_def_library as tf_lib

    from opgen_runtime import Graph, set_backend

    _, ops = example_graphs
    missing = sorted(set(CALLS) - set(example_wrappers))
    assert not missing, f"no generated wrapper for {missing}"
    for name, kwargs in CALLS.items():
        function = example_wrappers[name]
        call = complete(ops[name], kwargs)
        expected = _run_tf_graph(
            tf,
            lambda name, call: list(tf_lib._apply_op_helper(name, **call)[3]),
            name,
            call,
        )

        graph = Graph()
        with graph.as_default():
            fetches = [t.name for t in _call_wrapper(function, kwargs)]
        graph_def = tf.compat.v1.GraphDef.FromString(
            graph.as_graph_def().SerializeToString()
        )

        def imported(graph_def, fetches):
            tf.graph_util.import_graph_def(graph_def, name="")
            return fetches

        _assert_same(
            _run_tf_graph(tf, imported, graph_def, fetches),
            expected,
            f"{name} embedded via wrapper",
        )
        _assert_same(
            _run_tf_graph(tf, _call_wrapper, function, kwargs),
            expected,
            f"{name} TF graph via wrapper",
        )
        set_backend("tensorflow")
        try:
            eager = [t.numpy() for t in _call_wrapper(function, kwargs)]
        finally:
            set_backend(None)
        _assert_same(eager, expected, f"{name} TF eager via wrapper")


def test_backend_eager_runs_ops_without_outputs(tf, example_graphs):
    from opgen_runtime import set_backend
    from opgen_runtime.ops import op_def_library as lib

    variable = tf.Variable(1.0)
    set_backend("tensorflow")
    try:
        result = lib._apply_op_helper(
            "AssignVariableOp", resource=variable.handle, value=5.0, validate_shape=None
        )
    finally:
        set_backend(None)
    assert (
        result[2] is None and result[3] == []
    )  # like TF's eager wrappers: no Operation in eager mode
    assert float(variable.numpy()) == 5.0
