"""Differential tests: opgen's `_apply_op_helper` against TensorFlow's, call for call.

Calls are generated systematically from TF's own OpDefs (tests/oracle/tf_registry.py):
dtypes picked from allowed lists, unknown-rank Placeholder inputs (so TF's C++ shape
functions accept them), list inputs of the right length, ref inputs from VariableV2,
attr values from defaults/allowed values/minimums, Python-value inputs for the inference
paths, explicit names, name scopes, control dependencies and devices. Each call runs in a
fresh graph on both sides and the whole GraphDefs must be equal.

Compared: every node's name, op, inputs (incl. ^control), device and attrs. Ignored: TF's
bookkeeping attr `_has_manual_control_dependencies` (set on control-dependency *sources*),
NodeDef.experimental_type (TF's full-type inference) and experimental_debug_info.
"""

from __future__ import annotations

import pytest
from support.op_call_cases import (
    SAFE_PYTHON,
    OptionalContext,
    cases_for,
    input_makers,
    normalise,
    selected_ops,
)

from opgen_runtime.proto import graph_pb2, tensor_pb2

pytestmark = pytest.mark.oracle



@pytest.fixture(scope="module")
def env(tf):
    from oracle.tf_registry import tf_op_list, tf_op_list_bytes

    from opgen_runtime.ops import registry

    registry.register_op_list("tensorflow_registry", tf_op_list_bytes())
    return tf, {op.name: op for op in tf_op_list().op}


def _build(rt, spec, op_name, is_tf):
    """Builds one call in a fresh graph on one side; returns the GraphDef as opgen's proto."""
    if is_tf:
        import tensorflow as tf
        from tensorflow.core.framework import tensor_pb2 as tf_tensor_pb2
        from tensorflow.python.framework import op_def_library as lib

        graph, dtypes = tf.Graph(), tf.dtypes
        make_proto = tf_tensor_pb2.TensorProto.FromString
    else:
        from opgen_runtime import Graph
        from opgen_runtime.ops import op_def_library as lib
        from opgen_runtime.values import dtypes

        graph = Graph()
        make_proto = tensor_pb2.TensorProto.FromString

    placeholder, value = input_makers(lib, make_proto)

    with graph.as_default():
        kwargs = {}
        seen_tensor = False
        for name, kind, dt, ref in spec["inputs"]:
            python_ok = kind != "list" and not ref and dt in SAFE_PYTHON
            if kind == "list":
                kwargs[name] = [placeholder(d, ref) for d in dt]
            elif python_ok and (
                spec.get("python") or (spec.get("python_after_first") and seen_tensor)
            ):
                kwargs[name] = SAFE_PYTHON[dt]
            else:
                kwargs[name] = placeholder(dt, ref)
                seen_tensor = seen_tensor or python_ok
        attrs = {k: value(v) for k, v in spec["attrs"].items()}
        if spec.get("type_names"):
            attrs = {
                k: (
                    dtypes.as_dtype(v).name
                    if isinstance(v, int)
                    and not isinstance(v, bool)
                    and k[:1].isupper()
                    else v
                )
                for k, v in attrs.items()
            }
        kwargs.update(attrs)
        with (
            OptionalContext(spec.get("scope"), graph.name_scope),
            OptionalContext(spec.get("device"), graph.device),
        ):
            deps = [placeholder(1, False)] if spec.get("control") else None
            with OptionalContext(deps, graph.control_dependencies):
                lib._apply_op_helper(op_name, name=spec.get("name"), **kwargs)
        raw = graph.as_graph_def().SerializeToString()
    return graph_pb2.GraphDef.FromString(raw)


def _run_case(op_name, spec):
    """(status, detail): 'same', 'tf-error-same', 'tf-only-error' (TF C++ rejected), or a mismatch."""
    try:
        theirs = _build(None, spec, op_name, True)
    except Exception as e:  # noqa: BLE001 - any TF failure is an outcome to compare
        tf_error = e
        theirs = None
    else:
        tf_error = None
    try:
        ours = _build(None, spec, op_name, False)
    except Exception as e:  # noqa: BLE001
        if tf_error is None:
            return "mismatch", f"we raised {type(e).__name__}: {e}"
        if type(e) is not type(tf_error):
            return (
                "mismatch",
                f"types differ: ours {type(e).__name__}: {e} / TF {type(tf_error).__name__}: {tf_error}",
            )
        return "tf-error-same", ""
    if tf_error is not None:
        return "tf-only-error", f"{type(tf_error).__name__}: {str(tf_error)[:200]}"
    if normalise(ours) != normalise(theirs):
        return "mismatch", f"GraphDefs differ:\nours={ours}\ntheirs={theirs}"
    return "same", ""


def test_node_defs_equal_tensorflow(env):
    _, ops = env
    counts = {"same": 0, "tf-error-same": 0, "tf-only-error": 0, "mismatch": 0}
    same_ops = set()
    attr_types_seen = set()
    mismatches = []
    for op_name in selected_ops(ops, 420):
        for desc, spec in cases_for(ops[op_name]):
            status, detail = _run_case(op_name, spec)
            counts[status] += 1
            if status == "same":
                same_ops.add(op_name)
                attr_types_seen.update(a.type for a in ops[op_name].attr)
            elif status == "mismatch":
                mismatches.append(f"{op_name} [{desc}]: {detail}")
    print(counts, len(same_ops), sorted(attr_types_seen))
    assert not mismatches, (
        "\n\n".join(mismatches[:5]) + f"\n... {len(mismatches)} mismatches"
    )
    assert counts["same"] >= 1000
    assert len(same_ops) >= 300
    ref_ops = [name for name in same_ops if any(a.is_ref for a in ops[name].input_arg)]
    assert (
        len(ref_ops) >= 20
    )  # ref inputs: VariableV2 producers and the `_class` colocation attr
    assert {
        "string",
        "int",
        "float",
        "bool",
        "type",
        "shape",
        "tensor",
        "func",
        "list(int)",
        "list(float)",
        "list(string)",
        "list(type)",
        "list(shape)",
        "list(bool)",
    } <= attr_types_seen
