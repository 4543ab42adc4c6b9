"""Warnings of a gather that succeeds: things a user most likely got wrong but TF would
accept (a mistyped shape function name, ...)."""

from __future__ import annotations

import os

import pytest

from opgen.spec.gather import gather
from opgen_runtime.shapes.fn_names import PORTS

# (common_shape_fns.h declares TF's named shape functions: without it g++ rejects them, and
# gathering warns so, test_tf_headers.py; real code includes op.h too)
HEADER = '#include "tensorflow/core/framework/common_shape_fns.h"\n'


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


def test_an_unported_tf_common_shape_fn_is_not_corrected_to_another(tmp_path):
    """`RandomShape` is TF's and right for the op: the warning says the runtime has no port and
    how to register one (the documented public path), and suggests no other function."""
    warnings = _warnings(tmp_path, 'REGISTER_OP("RpRandom").Input("shape: int32").Output("y: float")\n'
                                   '    .SetShapeFn(shape_inference::RandomShape);\n'
                                   'REGISTER_OP("RpTypo").Output("y: float").SetShapeFn(shape_inference::SliceShap);\n')
    assert len(warnings) == 2
    assert warnings[0] == (
        f"{tmp_path / 'ops.cc'}:3:17: warning: shape function 'shape_inference::RandomShape' is one of TensorFlow's "
        "(common_shape_fns.h) that opgen's runtime has no port of, so without TensorFlow the op's outputs get "
        "unknown shapes (on TensorFlow, TF's own function runs)\n"
        "  hint: keep it; for shapes without TensorFlow too, register a Python shape function: "
        'opgen_runtime.register_shape_fn("RpRandom", fn) (docs/runtime.md lists the ported functions)')
    assert ("did you mean shape_inference::SliceShape? (TensorFlow's, which opgen's runtime has no port of"
            in warnings[1])
    assert 'opgen_runtime.register_shape_fn("RpTypo", fn)' in warnings[1]


def test_tf_common_shape_fns_are_the_headers():
    """TF_COMMON_SHAPE_FNS: the functions of TF 2.21's common_shape_fns.h that take only an
    InferenceContext* (what `SetShapeFn` can name), read from the installed wheel's header."""
    import re

    import pytest
    from oracle.cxx_build import CxxBuildError, tf_install

    from opgen.spec.shape_fn_names import TF_COMMON_SHAPE_FNS

    try:
        header = tf_install().include_dir / "tensorflow" / "core" / "framework" / "common_shape_fns.h"
    except CxxBuildError as e:  # no TensorFlow here
        pytest.skip(str(e))
    if not header.is_file():
        pytest.skip(f"{header} not installed")
    text = re.sub(r"//[^\n]*", "", header.read_text())
    declared = {m.group(1) for m in re.finditer(r"Status\s+(\w+)\s*\(([^)]*)\)", text)
                if re.fullmatch(r"(?:shape_inference::)?InferenceContext\s*\*\s*\w*", " ".join(m.group(2).split()))}
    assert declared == TF_COMMON_SHAPE_FNS


def test_runtime_doc_lists_the_ported_and_unported_common_shape_fns():
    """docs/runtime.md's two lists are the runtime's PORTS and TF's common functions it lacks."""
    import re

    from support.paths import REPO

    from opgen.spec.shape_fn_names import unported_tf_shape_fns

    text = " ".join((REPO / "docs" / "runtime.md").read_text().split())
    ported = text.split("`SetShapeFn(shape_inference::X)` name picks", 1)[1].split("Not ported,", 1)[0]
    unported = text.split("Not ported,", 1)[1].split("A custom op naming", 1)[0]
    names = re.compile(r"`(\w+)`")
    assert set(names.findall(ported)) == PORTS.keys()
    assert names.findall(unported.split("(they take only the context):", 1)[1]) == unported_tf_shape_fns()


def test_a_misspelt_shape_fn_of_many_ops_warns_three_times_and_names_the_rest(tmp_path):
    """5,000 ops naming one misspelt function: three located warnings, then one line naming the
    other ops and where the first of them is; another misspelt name gets its own three."""
    ops = "".join(f'REGISTER_OP("Op{i}").Output("y: float").SetShapeFn(shape_inference::UnchangedShap);\n'
                  for i in range(5000))
    other = 'REGISTER_OP("Other").Output("y: float").SetShapeFn(shape_inference::ScalarShap);\n'
    warnings = _warnings(tmp_path, ops + other)
    src = tmp_path / "ops.cc"
    assert [w.split(": warning: ")[0] for w in warnings[:3]] == [f"{src}:{line}:50" for line in (2, 3, 4)]
    assert all("unknown shape function 'shape_inference::UnchangedShap'" in w for w in warnings[:3])
    assert warnings[3] == (f"warning: 4997 more ops name shape function 'shape_inference::UnchangedShap' too: "
                           f"Op3, Op4, Op5, Op6, Op7, Op8, Op9, Op10, Op11, Op12, ... (first at {src}:5:50)")
    assert len(warnings) == 5 and warnings[4].startswith(f"{src}:5002:") and "ScalarShap'" in warnings[4]


def test_a_missing_include_spelled_with_a_path_names_the_directory_to_add(tmp_path, monkeypatch):
    """trial35 #4: `#include "tensorflow_text/core/kernels/x.h"` needs the directory holding
    `tensorflow_text/`, not the header's own: the hint says so, and names the exact -I when a
    directory of the project holds the file (not a hidden one); so do --strict-includes' error
    and the hint of an error the missing header may explain."""
    from opgen.spec.gather import GatherErrors

    (tmp_path / "pyproject.toml").write_text("[tool.opgen]\n")
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "x_op.cc").write_text('#include "tensorflow_text/core/kernels/x.h"\nREGISTER_OP(X_NAME);\n')
    header = tmp_path / ".cache" / "tensorflow_text" / "core" / "kernels" / "x.h"
    header.parent.mkdir(parents=True)
    header.write_text('#define X_NAME "TextX"\n')
    monkeypatch.chdir(tmp_path)
    warnings: list[str] = []
    with pytest.raises(GatherErrors) as raised:
        gather(["ops"], warn=warnings.append)
    holding = ("add the directory holding tensorflow_text/ with -I DIR (DIR such that "
               "DIR/tensorflow_text/core/kernels/x.h exists) or [tool.opgen] include_dirs")
    assert (f'  hint: likely cause: "tensorflow_text/core/kernels/x.h" (ops/x_op.cc:1:10) was not found and may '
            f"define 'X_NAME'; {holding}") in raised.value.format().splitlines()
    (tmp_path / "third_party" / "text").mkdir(parents=True)
    (tmp_path / ".cache" / "tensorflow_text").rename(tmp_path / "third_party" / "text" / "tensorflow_text")
    with pytest.raises(GatherErrors) as raised:
        gather(["ops"], strict_includes=True)
    found = "add -I third_party/text (it holds tensorflow_text/core/kernels/x.h) or [tool.opgen] include_dirs"
    assert raised.value.format().splitlines()[0] == (
        'ops/x_op.cc:1:10: error: cannot find include file "tensorflow_text/core/kernels/x.h" (searched: ops, .); '
        f"{found}")
    (tmp_path / "ops" / "x_op.cc").write_text('#include "tensorflow_text/core/kernels/x.h"\nREGISTER_OP("TextY");\n')
    gather(["ops"], warn=warnings.append)
    assert warnings[-1].splitlines()[1] == f"  hint: {found}"  # (the project's header: no word of skipping it)
    assert [op.name for op in gather(["ops"], include_dirs=["third_party/text"]).op_list.op] == ["TextY"]


def test_a_misspelt_include_names_the_file_it_may_mean(tmp_path):
    """trial21 #8: `#include "lib/fw_comon.h"` where lib/fw_common.h exists below a searched
    directory: the warning (and --strict-includes' error) names it; a name close to nothing
    keeps the hint to add a directory or skip another library's header."""
    from opgen.errors import OpgenError

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "fw_common.h").write_text("#pragma once\n")
    src = tmp_path / "ops.cc"
    src.write_text('#include "lib/fw_comon.h"\n#include "other/far.h"\nREGISTER_OP("A").Output("y: float");\n')
    warnings: list[str] = []
    gather([str(src)], include_dirs=[str(tmp_path)], warn=warnings.append)
    assert [w.splitlines()[1] for w in warnings] == [
        ('  hint: did you mean "lib/fw_common.h"? (else add the directory holding lib/ with -I DIR (DIR such that '
         'DIR/lib/fw_comon.h exists) or [tool.opgen] include_dirs)'),
        ('  hint: add the directory holding other/ with -I DIR (DIR such that DIR/other/far.h exists) or [tool.opgen] '
         'include_dirs; or skip another library\'s header silently: [tool.opgen] external_includes = ["other/*"]')]
    try:
        gather([str(src)], include_dirs=[str(tmp_path)], strict_includes=True)
    except OpgenError as e:
        assert 'hint: did you mean "lib/fw_common.h"?' in e.format()
    else:
        raise AssertionError("--strict-includes accepted a missing include")


def test_an_output_counted_by_an_attr_with_a_default_warns_of_savedmodel_loading(tmp_path):
    """TF's SavedModel drops attrs at their defaults, and its loader counts an output list's
    tensors from the saved attrs alone: an output of `N * T` or `list(type)` length whose
    attr has a default other than none fails to load when called at the default (trial26
    #2; `test_savedmodel_loses_an_output_count_at_its_default` shows it with TF's own op).
    A default of 0 (or no types) loses nothing; an attr without default is always saved."""
    warnings = _warnings(tmp_path, 'REGISTER_OP("Fan").Input("x: float")\n'
                                   '    .Output("ys: N * float")\n'
                                   '    .Attr("N: int >= 1 = 2")\n'
                                   '    .Output("zs: T")\n'
                                   '    .Attr("T: list(type) = [DT_FLOAT]")\n'
                                   '    .SetShapeFn(shape_inference::UnknownShape);\n'
                                   'REGISTER_OP("Fine").Output("ys: N * float").Attr("N: int >= 0 = 0")\n'
                                   '    .Output("zs: M * float").Attr("M: int")\n'
                                   '    .SetShapeFn(shape_inference::UnknownShape);\n')
    assert len(warnings) == 2, warnings
    n, t = warnings
    assert n.startswith(f"{tmp_path / 'ops.cc'}:4:6: warning: output 'ys' of op Fan has as many tensors as attr 'N' "
                        "says, and a SavedModel drops that attr when it is at its default (2): ")
    assert "hint: declare 'N' without a default" in n
    assert t.startswith(f"{tmp_path / 'ops.cc'}:6:6: warning: output 'zs' of op Fan ") and "(a list of 1 types)" in t


_SAVE_AND_LOAD = """
import os, sys, tempfile
import tensorflow as tf
from tensorflow.python.framework import op_def_library

class Saved(tf.Module):
    @tf.function(input_signature=[])
    def __call__(self):
        _, _, _, outputs = op_def_library._apply_op_helper("NIntsOutDefault", N=int(sys.argv[1]))
        return outputs[1]

path = os.path.join(tempfile.mkdtemp(), "saved")
tf.saved_model.save(Saved(), path)
try:
    tf.saved_model.load(path)
    print("loaded")
except KeyError as e:
    print("KeyError", e)
"""


@pytest.mark.oracle
def test_savedmodel_loses_an_output_count_at_its_default():
    """What the warning above says, on TF 2.21's own op `NIntsOutDefault` (`a: N * int32`,
    `N: int >= 2 = 3`): saved with N=3 (the default) the model does not load; with N=4 it does."""
    import subprocess
    import sys

    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    results = {n: subprocess.run([sys.executable, "-c", _SAVE_AND_LOAD, str(n)], capture_output=True, text=True,
                                 env=env, check=True).stdout.strip().splitlines()[-1] for n in (3, 4)}
    assert results == {3: "KeyError 'NIntsOutDefault:a:1'", 4: "loaded"}
