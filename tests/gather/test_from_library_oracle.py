"""`opgen oplist --from-library` on real op libraries compiled with g++ against the TF wheel.

TF's registry runs only ValidateOpDef on an op registered without OpDefBuilder (a
registration function filling the OpDef itself): an arg whose DataType no TF version
defines, or an arg name that is no identifier, loads fine. opgen validates what a library
registers like any OpList: the first is a located error (exit 2, nothing written); the
second is TF's OpList as registered, and `opgen build` then refuses the name, located at its
line of that OpList.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from oracle.cxx_build import compile_op_library
from support.paths import REPO

from opgen.cli import main
from opgen.spec.oplist_io import load_op_list_file

pytestmark = pytest.mark.oracle

# Each library's valid op has its own name: libraries loaded into one process share TF's
# registry, and TF_GetOpList lists only what a library newly registered.
_GOOD = 'REGISTER_OP("{name}").Input("x: float").Output("y: float").Attr("scale: float = 2.0");\n'


def _raw_op(name: str, arg: str, dtype: str) -> str:
    """A registration that bypasses OpDefBuilder (and so its Finalize checks)."""
    return f"""
static bool registered_{name} = [] {{
  tensorflow::OpRegistry::Global()->Register([](tensorflow::OpRegistrationData* data) -> absl::Status {{
    data->op_def.set_name("{name}");
    auto* x = data->op_def.add_input_arg();
    x->set_name("{arg}");
    x->set_type(static_cast<tensorflow::DataType>({dtype}));
    auto* y = data->op_def.add_output_arg();
    y->set_name("y");
    y->set_type(tensorflow::DT_FLOAT);
    return absl::OkStatus();
  }});
  return true;
}}();
"""


def _library(tmp_path: Path, name: str, good: str, *raw_ops: str) -> Path:
    source = tmp_path / f"{name}.cc"
    source.write_text('#include "tensorflow/core/framework/op.h"\n' + "".join(raw_ops) + _GOOD.format(name=good))
    return compile_op_library(source, f"_opgen_{name}.so")


# TF_LoadLibrary registers the ops (tf.load_op_library would also generate TF's own Python
# wrappers, which for `Bad-Name` is a SyntaxError); TF's global registry then has them.
_REGISTERED = """
import sys
from tensorflow.python.client import pywrap_tf_session
from tensorflow.python.framework import op_def_registry
pywrap_tf_session.TF_LoadLibrary(sys.argv[1])
print(" ".join(name for name in sys.argv[2:] if op_def_registry.get(name) is not None))
"""


def _tf_op_names(library: Path, *names: str) -> list[str]:
    """Which of `names` TF's registry holds after loading `library`."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", _REGISTERED, str(library), *names], capture_output=True, text=True,
                          env=env, check=True)
    return proc.stdout.split()


def test_unknown_arg_datatype_tf_loads_is_a_located_error(tmp_path, monkeypatch, capsys):
    library = _library(tmp_path, "bad_dtype", "OpgenLibGoodA", _raw_op("OpgenLibBadType", "x", "77"))
    assert _tf_op_names(library, "OpgenLibBadType", "OpgenLibGoodA") == ["OpgenLibBadType", "OpgenLibGoodA"]
    monkeypatch.chdir(tmp_path)
    assert main(["oplist", "--from-library", str(library), "-o", "ops.pbtxt"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (f"{library}: error: OpList entry 1: Invalid DataType enum 77 for input 'x' "
                                    "of op 'OpgenLibBadType'")
    assert not (tmp_path / "ops.pbtxt").exists()


def test_arg_name_tf_loads_is_refused_where_it_reaches_python(tmp_path, monkeypatch, capsys):
    library = _library(
        tmp_path, "bad_name", "OpgenLibGoodB", _raw_op("OpgenLibBadName", "Bad-Name", "tensorflow::DT_FLOAT")
    )
    assert _tf_op_names(library, "OpgenLibBadName", "OpgenLibGoodB") == ["OpgenLibBadName", "OpgenLibGoodB"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.opgen]\n")
    assert main(["oplist", "--from-library", str(library), "-o", "ops.pbtxt"]) == 0
    assert [op.name for op in load_op_list_file("ops.pbtxt").op] == ["OpgenLibBadName", "OpgenLibGoodB"]
    capsys.readouterr()
    assert main(["build", "ops.pbtxt", "--out", "gen"]) == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        "ops.pbtxt:1:1: error: op OpgenLibBadName: input 'Bad-Name' is not a Python identifier")
    assert not (tmp_path / "gen").exists()


def test_valid_library_gives_tfs_oplist_and_builds(tmp_path, monkeypatch, capsys):
    library = _library(tmp_path, "good", "OpgenLibGood")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.opgen]\n")
    assert main(["oplist", "--from-library", str(library), "-o", "ops.pbtxt"]) == 0
    op_list = load_op_list_file("ops.pbtxt")
    assert [op.name for op in op_list.op] == _tf_op_names(library, "OpgenLibGood") == ["OpgenLibGood"]
    assert [(a.name, a.default_value.f) for a in op_list.op[0].attr] == [("scale", 2.0)]
    assert main(["build", "ops.pbtxt", "--out", "gen"]) == 0
    code = ("import inspect, sys; sys.path.insert(0, 'gen'); import gen_ops; "
            "print(inspect.signature(gen_ops.opgen_lib_good).parameters['scale'].default, gen_ops.__all__)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    # TF's python_op_gen writes scale=2; opgen a float (README "Deliberate differences ...")
    assert proc.stdout.split() == ["2.0", "['opgen_lib_good']"]


def test_a_library_tf_refuses_is_located_at_the_library(tmp_path, capsys):
    library = tmp_path / "not_a_library.so"
    library.write_bytes(b"not ELF")
    assert main(["oplist", "--from-library", str(library)]) == 2
    assert capsys.readouterr().err.startswith(f"{library}: error: cannot load op library {library}: ")


def test_several_libraries_are_read_together_and_sources_beside_them_refused(tmp_path, monkeypatch, capsys):
    """trial22 #3: `--from-library` given twice reads both (was: the last only); sources named
    beside it are a usage error (were ignored silently)."""
    first = _library(tmp_path, "first", "OpgenLibFirst")
    second = _library(tmp_path, "second", "OpgenLibSecond")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.opgen]\n")
    assert main(["oplist", "--from-library", str(second), "--from-library", str(first), "-o", "ops.pbtxt"]) == 0
    assert [op.name for op in load_op_list_file("ops.pbtxt").op] == ["OpgenLibFirst", "OpgenLibSecond"]
    capsys.readouterr()
    (tmp_path / "extra.cc").write_text(_GOOD.format(name="OpgenLibExtra"))
    assert main(["oplist", "--from-library", str(first), "extra.cc"]) == 2
    assert ("--from-library reads compiled ops instead of sources: give sources or --from-library, not both"
            in capsys.readouterr().err)


def test_tensorflows_native_logging_is_not_opgens_output(tmp_path):
    """trial22 #8: in a fresh process (TF imported by opgen, TF_CPP_MIN_LOG_LEVEL unset), absl's
    and oneDNN's start-up lines do not reach opgen's stderr."""
    library = _library(tmp_path, "quiet", "OpgenLibQuiet")
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    done = subprocess.run([sys.executable, "-m", "opgen", "oplist", "--from-library", str(library)], cwd=tmp_path,
                          capture_output=True, text=True, check=False, env={**env, "PYTHONPATH": str(REPO)})
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert 'name: "OpgenLibQuiet"' in done.stdout


def test_a_library_tensorflow_had_loaded_is_an_error_pointing_to_from_tensorflow(tmp_path, capsys):
    """trial24 #1: TensorFlow's own library gives TF_GetOpList nothing (its ops were registered
    when TF was imported): an error with the way to TF's ops, not an empty OpList and exit 0."""
    import tensorflow

    library = next(Path(tensorflow.__file__).parent.glob("python/_pywrap_tensorflow_internal.so"))
    assert main(["oplist", "--from-library", str(library), "-o", str(tmp_path / "tf.pbtxt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{library}: error: op library {library} registers no op of its own: ")
    assert "hint: for ops of TensorFlow's own registry: opgen oplist --from-tensorflow --allow FILE" in err
    assert not (tmp_path / "tf.pbtxt").exists()


def test_from_tensorflow_reads_tfs_registry_selected_by_allow(tmp_path, monkeypatch, capsys):
    """trial24 #1: a subset of TensorFlow's own ops, as the allow file names them (a close
    misspelling warned at its line), builds into wrappers whose signatures are TF's."""
    from oracle.tf_registry import tf_op_list

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.opgen]\n")
    (tmp_path / "allow.txt").write_text("MatMul\n# activations\nRelu\nRelu6x\nSomeOtherLibrarysOp\n")
    assert main(["oplist", "--from-tensorflow", "--allow", "allow.txt", "-o", "tf_ops.pbtxt"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("allow.txt:4:1: warning: --allow names op 'Relu6x', which TensorFlow does not register\n"
                          "  hint: did you mean Relu6, Relu")
    assert "SomeOtherLibrarysOp" not in err  # close to no op: another library's, quiet
    ops = load_op_list_file("tf_ops.pbtxt").op
    assert [op.name for op in ops] == ["MatMul", "Relu"]
    theirs = {op.name: op for op in tf_op_list().op}
    assert all(op == theirs[op.name] for op in ops)
    assert main(["build", "tf_ops.pbtxt", "--out", "gen"]) == 0
    code = ("import inspect, sys; sys.path.insert(0, 'gen'); import gen_tf_ops as g; "
            "from tensorflow.python.ops import gen_math_ops; "
            "ours, theirs = inspect.signature(g.mat_mul), inspect.signature(gen_math_ops.mat_mul); "
            "print(list(ours.parameters) == list(theirs.parameters), float(g.relu([-1.0, 2.0])[1]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert proc.stdout.split() == ["True", "2.0"], proc.stdout


def test_from_tensorflow_and_from_library_exclude_each_other(tmp_path, capsys):
    assert main(["oplist", "--from-tensorflow", "--from-library", str(tmp_path / "x.so")]) == 2
    assert "--from-library and --from-tensorflow exclude each other" in capsys.readouterr().err
