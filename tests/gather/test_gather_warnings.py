"""Warnings of a gather that succeeds: things a user most likely got wrong but TF would
accept (a mistyped shape function name, ...)."""

from __future__ import annotations

from opgen.spec.gather import gather
from opgen_runtime.shapes.fn_names import PORTS

HEADER = '#include "tensorflow/core/framework/op.h"\n'


def _warnings(tmp_path, text: str) -> list[str]:
    src = tmp_path / "ops.cc"
    src.write_text(HEADER + text)
    warnings: list[str] = []
    gather([str(src)], warn=warnings.append)
    return warnings


def test_known_names_are_the_runtimes():
    from opgen_runtime.shapes.fns.common import NAMED

    assert NAMED.keys() == PORTS.keys()


def test_mistyped_shape_fn_is_a_located_warning_naming_the_nearest(tmp_path):
    warnings = _warnings(tmp_path, 'REGISTER_OP("A").Output("y: float")\n'
                                   '    .SetShapeFn(shape_inference::UnchangedShap);\n')
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{tmp_path / 'ops.cc'}:3:17: warning: unknown shape function "
                                  "'shape_inference::UnchangedShap'")
    assert "did you mean shape_inference::UnchangedShape?" in warnings[0]


def test_tf_namespace_names_get_the_nearest_even_when_far(tmp_path):
    warnings = _warnings(tmp_path, 'REGISTER_OP("A").Output("y: float")'
                                   '.SetShapeFn(::tensorflow::shape_inference::Whatever);\n')
    assert len(warnings) == 1 and "did you mean shape_inference::" in warnings[0]


def test_known_and_own_shape_fns_are_quiet(tmp_path):
    assert (
        _warnings(
            tmp_path,
            'REGISTER_OP("A").Output("y: float").SetShapeFn(shape_inference::UnchangedShape);\n'
            'REGISTER_OP("B").Output("y: float").SetShapeFn(::tensorflow::shape_inference::MatMulShape);\n'
            'REGISTER_OP("C").Output("y: float").SetShapeFn(MyLibraryShapeFn);\n',
        )
        == []
    )
