"""Graph mechanics against TensorFlow's `ops.Graph`: device scopes and device functions,
colocation, control dependencies, `finalize`, the same-graph check, `as_graph_def(add_shapes)`,
lookups by name and their exceptions, and threads building into one graph.

Every case builds the same program on a TF graph and on an opgen graph (each through its
own `_apply_op_helper`); the GraphDefs must be equal, or both must raise the same exception
type and message (object addresses and Graph class paths aside). Thread programs run under a
fixed round-robin schedule, the same on both sides.
"""

from __future__ import annotations

import threading

import pytest
from oracle.runtime_compare import mask_message, normalised_nodes, register_tf_ops

from opgen_runtime.proto import node_def_pb2

pytestmark = pytest.mark.oracle

OPS = ("Placeholder", "Identity", "AddV2", "Const", "NoOp")


@pytest.fixture(scope="module")
def env(tf):
    register_tf_ops("tests.graph_differential", OPS)
    return tf


class _Side:
    def __init__(self, tf, is_tf):
        self.tf, self.is_tf = tf, is_tf
        if is_tf:
            from tensorflow.python.framework import op_def_library

            self.graph = tf.Graph()
        else:
            from opgen_runtime import Graph
            from opgen_runtime.ops import op_def_library

            self.graph = Graph()
        self._apply = op_def_library._apply_op_helper

    def op(self, op_type, **kw):
        return self._apply(op_type, **kw)[2]

    def ph(self, dtype=1, shape=None, name=None):
        return self.op("Placeholder", dtype=dtype, shape=shape, name=name).outputs[0]

    def ident(self, x, name=None):
        return self.op("Identity", input=x, name=name).outputs[0]


def _outcome(side, program, add_shapes=False):
    try:
        with side.graph.as_default():
            result = program(side)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return ("error", type(e).__name__, mask_message(str(e)))
    extra = (
        None
        if result is None
        else mask_message(repr(result)).replace("SymbolicTensor", "Tensor")
    )
    return ("graph", normalised_nodes(side.graph, add_shapes), extra)


def _compare(tf, cases, add_shapes=False):
    mismatches, counts = [], {"graph": 0, "error": 0}
    for label, program in cases:
        theirs = _outcome(_Side(tf, True), program, add_shapes)
        ours = _outcome(_Side(tf, False), program, add_shapes)
        if theirs != ours:
            mismatches.append(
                f"{label}:\n  TF:    {_show(theirs)}\n  opgen: {_show(ours)}"
            )
        else:
            counts[theirs[0]] += 1
    assert not mismatches, (
        "\n".join(mismatches[:8]) + f"\n... {len(mismatches)} of {len(cases)}"
    )
    return counts


def _show(outcome):
    if outcome[0] == "error":
        return f"{outcome[1]}: {outcome[2][:300]}"
    nodes = " | ".join(
        str(node_def_pb2.NodeDef.FromString(n)).replace("\n", " ")[:160]
        for n in outcome[1]
    )
    return f"{nodes[:1200]} -> {outcome[2]}"


# --- devices ---------------------------------------------------------------------------


def _device_specs(tf):
    return {
        "/cpu:0": "/cpu:0",
        "/gpu": "/gpu",
        "/job:w": "/job:w",
        "/device:GPU:1": "/device:GPU:1",
        "empty": "",
        "None": None,
        "/job:ps/task:1/cpu:2": "/job:ps/task:1/cpu:2",
        "/replica:3": "/replica:3",
        "fn-gpu1": lambda op: "/gpu:1",
        "fn-by-type": lambda op: "/cpu:1" if op.type == "Identity" else "",
        "fn-keeps": lambda op: op.device,
        "fn-spec": lambda op: tf.DeviceSpec(job="fn", device_type="CPU"),
        "fn-bytes": lambda op: b"/job:b",
        "fn-None": lambda op: None,
        "DeviceSpec": tf.DeviceSpec(job="spec", task=2),
        "bad": "/foo:1",
        "two-types": "/cpu:0/gpu:0",
    }


def _device_cases(tf):
    specs = _device_specs(tf)
    cases = []
    names = list(specs)
    for outer in names:
        for inner in names:

            def program(side, outer=specs[outer], inner=specs[inner]):
                x = side.ph()
                with side.graph.device(outer):
                    side.ident(x)
                    with side.graph.device(inner):
                        side.ident(x)
                        side.op("NoOp")
                    side.ident(x)

            cases.append((f"device({outer})/device({inner})", program))
    for first in ("/cpu:0", "fn-gpu1", "None"):
        for second in ("/gpu", "/job:w", "fn-by-type"):
            for third in ("/device:GPU:1", "empty", "fn-keeps"):

                def program(side, a=specs[first], b=specs[second], c=specs[third]):
                    x = side.ph()
                    with (
                        side.graph.device(a),
                        side.graph.device(b),
                        side.graph.device(c),
                    ):
                        side.ident(x)

                cases.append((f"device({first},{second},{third})", program))
    return cases


def test_device_scopes_equal_tensorflow(env):
    counts = _compare(env, _device_cases(env))
    assert counts["graph"] >= 200 and counts["error"] >= 50


def _colocation_cases(tf):
    def colocate_then_device(side):
        with side.graph.device("/cpu:1"):
            x = side.ph()
        with side.graph.colocate_with(x):
            side.ident(x)
            with side.graph.device("/gpu:0"):
                side.ident(x)

    def device_then_colocate(side):
        x = side.ph()
        with side.graph.device("/job:a"), side.graph.colocate_with(x.op):
            side.ident(x)

    def nested(side):
        x, y = side.ph(name="x"), side.ph(name="y")
        with side.graph.colocate_with(x), side.graph.colocate_with(y):
            z = side.ident(x)
        with side.graph.colocate_with(z):
            side.ident(y)

    def ignore_existing(side):
        x, y = side.ph(name="x"), side.ph(name="y")
        with side.graph.colocate_with(x):
            with side.graph.colocate_with(y, ignore_existing=True):
                side.ident(x)
            with side.graph.colocate_with(None, ignore_existing=True):
                side.ident(x)

    def reset_without_ignore(side):
        with side.graph.colocate_with(None):
            side.ph()

    return [
        ("colocate_then_device", colocate_then_device),
        ("device_then_colocate", device_then_colocate),
        ("nested", nested),
        ("ignore_existing", ignore_existing),
        ("reset_without_ignore", reset_without_ignore),
    ]


def test_colocation_equals_tensorflow(env):
    _compare(env, _colocation_cases(env))


# --- graph methods -----------------------------------------------------------------------


def _method_cases(tf):
    def finalize(side):
        x = side.ph()
        side.graph.finalize()
        assert side.graph.finalized
        side.ident(x)

    def finalize_name_scope(side):
        side.graph.finalize()
        with side.graph.name_scope("s") as scope:
            return scope

    def mixed_graphs(side):
        x = side.ph()
        other = type(side.graph)()
        with other.as_default():
            y = side.ph()
        side.op("AddV2", x=x, y=y)

    def mixed_graphs_in_list(side):
        x = side.ph()
        other = type(side.graph)()
        with other.as_default():
            y = side.ph()
        side.op("AddV2", x=y, y=x)

    def control_by_name(side):
        x = side.ph(name="x")
        with side.graph.control_dependencies(["x"]):
            side.ident(x)
            side.op("NoOp")

    def control_from_other_graph(side):
        other = type(side.graph)()
        with other.as_default():
            y = side.ph()
        with side.graph.control_dependencies([y]):
            side.op("NoOp")

    def control_bad(side):
        with side.graph.control_dependencies([3]):
            side.op("NoOp")

    def control_nested_and_reset(side):
        a, b = side.ph(name="a"), side.ph(name="b")
        with side.graph.control_dependencies([a]):
            with side.graph.control_dependencies([a, b.op]):
                side.op("NoOp")
                side.ident(a)
            with side.graph.control_dependencies(None):
                side.op("NoOp")

    cases = [
        ("finalize", finalize),
        ("finalize_name_scope", finalize_name_scope),
        ("mixed_graphs", mixed_graphs),
        ("mixed_graphs_in_list", mixed_graphs_in_list),
        ("control_by_name", control_by_name),
        ("control_from_other_graph", control_from_other_graph),
        ("control_bad", control_bad),
        ("control_nested_and_reset", control_nested_and_reset),
    ]
    lookups = [
        "x",
        "x:0",
        "x:1",
        "y",
        "y:0",
        "x:",
        ":0",
        "x:0:1",
        "x:a",
        "X",
        "x:-1",
        b"x",
        b"x:0",
        3,
        None,
    ]
    for lookup in lookups:
        for method in (
            "get_operation_by_name",
            "get_tensor_by_name",
            "as_graph_element",
        ):

            def program(side, lookup=lookup, method=method):
                side.ph(name="x")
                found = getattr(side.graph, method)(lookup)
                return (type(found).__name__, found.name)

            cases.append((f"{method}({lookup!r})", program))
    for allow_tensor, allow_operation in ((True, False), (False, True), (False, False)):
        for lookup in ("x", "x:0", "y"):

            def program(side, lookup=lookup, t=allow_tensor, o=allow_operation):
                side.ph(name="x")
                found = side.graph.as_graph_element(
                    lookup, allow_tensor=t, allow_operation=o
                )
                return (type(found).__name__, found.name)

            cases.append(
                (
                    f"as_graph_element({lookup!r}, {allow_tensor}, {allow_operation})",
                    program,
                )
            )

    def element_of_other_graph(side):
        other = type(side.graph)()
        with other.as_default():
            y = side.ph()
        side.graph.as_graph_element(y)

    cases.append(("element_of_other_graph", element_of_other_graph))
    # graph-mode set_shape: TF's C++ merge and its messages (trial38 #5)
    for start, new in (([4, 3], [4, 5]), ([4, 3], [4, 3, 1]), ([4, 3], [None, 3]), ([4, 3], None),
                       ([4, 3], [5, None]), (None, [2]), ([None, 2], [3, None]), ([None, 2], [3, 4]), ([], [1])):

        def program(side, start=start, new=new):
            x = side.ph(shape=start)
            x.set_shape(new)
            return None if x.shape.rank is None else x.shape.as_list()

        cases.append((f"set_shape({start}, {new})", program))

    def consumers(side):
        x, y = side.ph(name="x"), side.ph(name="y")
        side.ident(x, name="a")
        side.op("AddV2", x=x, y=x, name="b")
        side.op("AddV2", x=y, y=x, name="c")
        return [[op.name for op in t.consumers()] for t in (x, y, side.graph.get_tensor_by_name("a:0"))]

    cases.append(("consumers", consumers))
    return cases


def test_graph_methods_equal_tensorflow(env):
    counts = _compare(env, _method_cases(env))
    assert counts["error"] >= 45 and counts["graph"] >= 15, counts  # (set_shape: 5 of each)


def test_as_graph_def_add_shapes_equals_tensorflow(env):
    def program(side):
        side.ph(shape=[2, 3])
        side.ph(shape=[None, 4], dtype=3)
        side.ph(shape=None)
        side.op("Const", value=env.make_tensor_proto([[1.0, 2.0]]), dtype=1)
        side.op("NoOp")

    _compare(env, [("add_shapes", program)], add_shapes=True)


# --- threads -----------------------------------------------------------------------------


class _Worker(threading.Thread):
    """A thread running a generator one step (up to its next `yield`) per `go` signal."""

    def __init__(self, program):
        super().__init__(daemon=True)
        self.program, self.go, self.done = program, threading.Event(), threading.Event()
        self.finished, self.error = False, None

    def run(self):
        steps = self.program()
        while not self.finished:
            self.go.wait()
            self.go.clear()
            try:
                next(steps)
            except StopIteration:
                self.finished = True
            except BaseException as e:  # noqa: BLE001 - reported by the driver
                self.error, self.finished = e, True
            self.done.set()


def _round_robin(programs):
    """Runs each program in its own thread, one step at a time, threads in a fixed order."""
    workers = [_Worker(p) for p in programs]
    for w in workers:
        w.start()
    live = list(workers)
    while live:
        for w in list(live):
            w.go.set()
            assert w.done.wait(timeout=60), "a thread step hung"
            w.done.clear()
            if w.finished:
                live.remove(w)
    errors = [w.error for w in workers if w.error is not None]
    assert not errors, errors


def _thread_program(side, i, x, rounds):
    """Thread i: a name scope, control dependencies on its own first op, a device scope
    (a string for even threads, a device function for odd ones), ops with clashing names;
    one graph action per step."""
    g = side.graph
    with g.as_default():
        with g.name_scope(f"t{i}"):
            yield
            first = side.ident(x, name="first")
            yield
            device = (
                f"/cpu:{i}"
                if i % 2 == 0
                else (lambda op: f"/job:t{i}" if op.type == "NoOp" else "")
            )
            with g.control_dependencies([first]), g.device(device):
                yield
                for _ in range(rounds):
                    side.ident(x, name="op")
                    yield
                    side.op("NoOp")
                    yield
                    with g.name_scope("inner"):
                        yield
                        side.ident(first, name="op")
                        yield
                    yield
                    with g.name_scope(None):  # a root-level name every thread uses
                        yield
                        side.ident(x, name="common")
                        yield
                    yield
        yield
        side.ident(x, name="after")


def _threaded_graph(side, n, rounds):
    with side.graph.as_default():
        x = side.ph(name="x")
    _round_robin([lambda i=i: _thread_program(side, i, x, rounds) for i in range(n)])
    return normalised_nodes(side.graph)


@pytest.mark.parametrize("n", [2, 4])
def test_threads_under_one_schedule_equal_tensorflow(env, n):
    theirs = _threaded_graph(_Side(env, True), n, rounds=30)
    ours = _threaded_graph(_Side(env, False), n, rounds=30)
    assert len(ours) == len(theirs) == 1 + n * (2 + 30 * 4)
    assert ours == theirs


def test_threads_free_running_keep_their_own_scopes(env):
    """No schedule: 4 threads x 3000 ops race on one graph; names stay unique and every op
    carries its own thread's scope, control dependency and device."""
    side = _Side(env, False)
    g = side.graph
    with g.as_default():
        x = side.ph(name="x")
    errors = []

    def run(i):
        try:
            with g.as_default(), g.name_scope(f"t{i}"):
                first = side.ident(x, name="first")
                with g.control_dependencies([first]), g.device(f"/cpu:{i}"):
                    for _ in range(1000):
                        side.ident(x, name="op")
                        with g.name_scope(None):
                            side.ident(x, name="common")
                        side.op("NoOp")
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    ops = g.get_operations()
    assert len(ops) == 1 + 4 * 3001 and len({op.name for op in ops}) == len(ops)
    commons = [op for op in ops if op.name.startswith("common")]
    assert len(commons) == 4000
    for op in ops:
        if op.name.startswith("t"):
            i = op.name[1]
            if not op.name.endswith("/first"):
                assert op.device == f"/device:CPU:{i}", op
                assert [c.name for c in op.control_inputs] == [f"t{i}/first"], op
