"""A gathering's errors and warnings print in source order, interleaved (trial26: a duplicate
op printed after the file's later errors, a shape function's line 15 warning before its
line 14 one): file by file as the files were first read, each by line and column, one op's
builder errors together at its REGISTER_OP in TensorFlow's order (a cause first)."""

from __future__ import annotations

import pytest

from opgen.spec.gather import GatherErrors, gather

_HEADER = '#include "tensorflow/core/framework/op.h"\n'


def _heads(text: str) -> list[str]:
    """Each message's location and severity (`b.cc:2:1: error`), in the order printed."""
    return [line.split(": ", 2)[0] + ": " + line.split(": ", 2)[1] for line in text.splitlines()
            if not line.startswith(" ") and ": " in line and line.split(": ", 2)[1] in ("error", "warning")]


def test_a_duplicate_prints_where_it_stands_among_the_files_other_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.cc").write_text(_HEADER + 'REGISTER_OP("DupOp").Output("y: float");\n')
    (tmp_path / "b.cc").write_text(_HEADER + 'REGISTER_OP("DupOp")\n    .Output("y: float");\n'
                                   'REGISTER_OP("Add").Input("x: float").Output("y: float");\n'
                                   'REGISTER_OP("lower_case").Output("y: float");\n'
                                   'REGISTER_OP("WithDefaultList").Attr("l: list(int) = [1, 2").Output("y: float");\n')
    with pytest.raises(GatherErrors) as raised:
        gather(["a.cc", "b.cc"], core_ops=())
    assert _heads(raised.value.format()) == ["b.cc:2:1: error", "b.cc:4:1: warning", "b.cc:5:1: error",
                                             "b.cc:6:53: error"]
    assert raised.value.format().endswith("\n3 errors in 1 file, 1 warning")


def test_one_ops_errors_keep_their_cause_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.cc").write_text(_HEADER + 'REGISTER_OP("Zed").Output("y: float");\n'
                                   'REGISTER_OP("FollowOn")\n    .Input("x: T")\n    .Attr("T: tpye")\n'
                                   '    .Output("y: T");\n'
                                   'REGISTER_OP("Zed").Output("y: float");\n'
                                   'REGISTER_OP("Other").Attr("n: integer").Output("y: float");\n')
    with pytest.raises(GatherErrors) as raised:
        gather(["f.cc"])
    text = raised.value.format()
    # FollowOn's attr error, then the two that follow from it; the duplicate Zed; Other
    assert _heads(text) == ["f.cc:5:15: error", "f.cc:4:16: error", "f.cc:6:17: error", "f.cc:7:1: error",
                            "f.cc:8:34: error"]
    assert text.count("fix that one first") == 2


def test_a_shape_functions_warnings_print_by_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.cc").write_text(
        _HEADER + '#include "tensorflow/core/framework/shape_inference.h"\n'
        'REGISTER_OP("BadShape").Input("x: float").Output("y: float").Attr("k: int = 1")\n'
        '    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {\n'
        '      int k;\n'
        '      TF_RETURN_IF_ERROR(c->GetAttr("kk", &k));\n'
        '      c->set_output(1, c->input(0));\n'
        '      return ::tensorflow::OkStatus();\n'
        '    });\n')
    warnings: list[str] = []
    gather(["s.cc"], warn=warnings.append)
    assert _heads("\n".join(warnings)) == ["s.cc:6:37: warning", "s.cc:7:21: warning"]
    assert "reads attr 'kk'" in warnings[0] and "sets output 1" in warnings[1]
