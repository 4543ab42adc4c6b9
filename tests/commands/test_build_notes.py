"""Notes `opgen build` prints once per build about the ops it generated (not warnings: each
describes something meant as often as a mistake, and `--warnings-as-errors` lets it pass)."""

from __future__ import annotations

from support.apidiff_cases import run_cli


def test_an_op_deprecated_below_tf_graph_def_version_is_noted(tmp_path, monkeypatch, capsys):
    """trial32 #5: `.Deprecated(7, ...)` makes every call of the wrapper raise (TF 2.21 produces
    GraphDef version 2474): the build says so, naming the op; a version above it does not."""
    (tmp_path / "ops.cc").write_text('REGISTER_OP("OldOp").Output("y: float").Deprecated(7, "use NewOp");\n'
                                     'REGISTER_OP("LaterOp").Output("y: float").Deprecated(9999, "later");\n'
                                     'REGISTER_OP("NewOp").Output("y: float");\n')
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["build", "ops.cc", "-o", "gen", "--warnings-as-errors"], capsys)
    assert code == 0
    assert err.splitlines()[0] == (
        "note: 1 op is deprecated at a GraphDef version TensorFlow 2.21 already produces (2474): every call of its "
        "wrapper raises NotImplementedError (eagerly tf.errors.UnimplementedError); graphs saved before still load "
        "(OldOp)")
