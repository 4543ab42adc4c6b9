"""Notes `opgen build` prints once per build about the ops it generated (not warnings: each
describes something meant as often as a mistake, and `--warnings-as-errors` lets it pass)."""

from __future__ import annotations

from support.apidiff_cases import run_cli


def test_an_op_deprecated_below_tf_graph_def_version_is_noted(tmp_path, monkeypatch, capsys):
    """trial32 #5: `.Deprecated(7, ...)` makes every call of the wrapper raise (TF 2.21 produces
    GraphDef version 2474): the build says so, naming the op; a version above it does not, nor
    does a TF op of the same name (PlaceholderV2, deprecated at 23, in a library mirroring TF's)."""
    (tmp_path / "ops.cc").write_text('REGISTER_OP("OldOp").Output("y: float").Deprecated(7, "use NewOp");\n'
                                     'REGISTER_OP("LaterOp").Output("y: float").Deprecated(9999, "later");\n'
                                     'REGISTER_OP("NewOp").Output("y: float");\n'
                                     'REGISTER_OP("PlaceholderV2").Output("y: float").Deprecated(23, "Placeholder");\n')
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\ncore_ops = ["PlaceholderV2"]\n')
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["build", "ops.cc", "-o", "gen", "--warnings-as-errors"], capsys)
    assert code == 0
    assert err.splitlines()[0] == (
        "note: 1 op is deprecated at a GraphDef version TensorFlow 2.21 already produces (2474): every call of its "
        "wrapper raises NotImplementedError (eagerly tf.errors.UnimplementedError); graphs saved before still load "
        "(OldOp)")


def test_the_api_snapshot_calls_an_internal_op_internal(tmp_path, monkeypatch, capsys):
    """trial32 #6: an `_` op kept by include_internal is not in `__all__`: API.md says
    `internal`, not `visible` (the JSON keeps its ApiDef visibility)."""
    (tmp_path / "ops.cc").write_text('REGISTER_OP("_MyInternal").Output("y: float");\n'
                                     'REGISTER_OP("MyPublic").Output("y: float");\n')
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops.cc"]\nout = "gen"\n'
                                             'include_internal = true\napi = "gen/API.md"\n')
    monkeypatch.chdir(tmp_path)
    assert run_cli(["build"], capsys)[0] == 0
    api = (tmp_path / "gen" / "API.md").read_text()
    assert "- op `_MyInternal`; internal\n" in api and "- op `MyPublic`; visible\n" in api
