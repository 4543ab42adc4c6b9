"""`opgen init`: the scaffold of a custom-op package. What it writes is tests/data/op_package
byte for byte, which tests/commands/test_op_package.py builds into a wheel and runs end to end."""

from __future__ import annotations

import importlib
import importlib.metadata
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from support import fresh_venv
from support.call_wrappers import isolated_registry, record_build_dir
from support.paths import REPO
from support.type_checkers import pyright_missing, run_mypy, run_pyright

from opgen.cli import main

EXAMPLE = REPO / "tests" / "data" / "op_package"


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_init_writes_the_example_package(tmp_path, capsys):
    assert main(["init", str(tmp_path / "example_ops")]) == 0
    assert _files(tmp_path / "example_ops") == _files(EXAMPLE)
    err = capsys.readouterr().err
    assert "opgen init: wrote 6 files into" in err and "`opgen build` writes example_ops/gen_example_ops.py" in err


def test_init_names_everything_after_the_package(tmp_path, capsys):
    assert main(["init", "--quiet", "--package", "tf_blur", str(tmp_path / "blur-project")]) == 0
    assert capsys.readouterr().err == ""
    files = _files(tmp_path / "blur-project")
    assert set(files) == {".gitignore", "pyproject.toml", "setup.py", "ops/tf_blur.cc", "tf_blur/__init__.py",
                          "tf_blur/py.typed"}
    assert b'REGISTER_OP("TfBlurScale")' in files["ops/tf_blur.cc"]
    assert b'name = "tf-blur"' in files["pyproject.toml"] and b'library = "_tf_blur.so"' in files["pyproject.toml"]
    assert b'OpLibrary("tf_blur/_tf_blur.so", ["ops/tf_blur.cc"])' in files["setup.py"]


def test_init_warns_when_the_folder_would_shadow_the_package(tmp_path, capsys, monkeypatch):
    """A project folder named like its package, in a directory on sys.path (opgen's clone after
    the README's compat editable install): `import example_ops` would find the folder as an
    empty namespace package. A folder named otherwise, or elsewhere, gets no warning."""
    monkeypatch.setattr(sys, "path", [sys.path[0], str(tmp_path), *sys.path[1:]])
    assert main(["init", "-q", str(tmp_path / "example_ops")]) == 0
    assert capsys.readouterr().err == (
        f"{tmp_path}/example_ops: warning: {tmp_path} is on Python's path (sys.path), so `import example_ops` finds "
        f"the folder {tmp_path}/example_ops (a namespace package without its modules) before the package an "
        f"editable install of it provides\n  hint: create the project outside {tmp_path}, or give the folder "
        "another name than the package (opgen init DIR --package example_ops)\n")
    assert main(["init", "-q", "--package", "tf_blur", str(tmp_path / "blur-project")]) == 0
    assert main(["init", "-q", str(tmp_path / "deeper" / "example_ops")]) == 0
    assert capsys.readouterr().err == ""


def test_init_never_overwrites(tmp_path, capsys):
    target = tmp_path / "example_ops"
    (target / "example_ops").mkdir(parents=True)
    (target / "example_ops" / "__init__.py").write_text("mine\n")
    assert main(["init", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"{target}/example_ops/__init__.py: error: 1 of the files opgen init writes already exist: " in err
    assert "hint: choose an empty or new directory; opgen init never overwrites a file" in err
    assert _files(target) == {"example_ops/__init__.py": b"mine\n"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--package", "MyOps"], "package name 'MyOps' (from --package) is not a lower-case identifier"),
        (["--package", "json"], "package name 'json' (from --package) would shadow the package of that name"),
        (["--package", "class"], "package name 'class' (from --package) is a Python keyword"),
        (["--package", "_ops"], "package name '_ops' (from --package) is not a lower-case identifier"),
        (["--package", "x" * 300], f"package name '{'x' * 300}' (from --package) is 300 characters long (at most 64)"),
    ],
)
def test_init_rejects_package_names(tmp_path, capsys, args, message):
    assert main(["init", *args, str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"--package: error: {message}") and "hint: pass --package with a lower-case Python" in err
    assert not (tmp_path / "p").exists()


def test_init_that_cannot_write_a_file_leaves_nothing(tmp_path, capsys, monkeypatch):
    """All or nothing: a write that fails (a full disk, here the third file) removes the files
    and directories written before it, so a rerun does not find them in its way."""
    real = Path.write_text
    calls = []

    def failing(self, *args, **kwargs):
        calls.append(self)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", failing)
    assert main(["init", str(tmp_path / "p")]) == 2
    assert "error: cannot write" in capsys.readouterr().err and not (tmp_path / "p").exists()
    monkeypatch.undo()
    assert main(["init", str(tmp_path / "p")]) == 0


def test_init_rejects_a_directory_name_that_is_no_package(tmp_path, capsys):
    assert main(["init", str(tmp_path / "2ops")]) == 2
    assert capsys.readouterr().err.startswith(
        f"{tmp_path / '2ops'}: error: package name '2ops' (from the directory name '2ops') is not a Python identifier")


def test_scaffold_builds_and_its_wrapper_runs_on_the_embedded_runtime(tmp_path, monkeypatch):
    """The wrapper `opgen build` writes for the scaffold's op, called (TF-backed runs: test_op_package)."""
    project = tmp_path / "scaffolded"
    assert main(["init", "--quiet", "--package", "scaffolded_ops", str(project)]) == 0
    monkeypatch.chdir(project)
    assert main(["build", "--quiet"]) == 0
    # the module alone: the package's __init__ would register its gradient with a TensorFlow another test imported
    monkeypatch.syspath_prepend(str(project / "scaffolded_ops"))
    # Its library is not compiled here: an isolated registry keeps it pending, even when another
    # test of this process imported TensorFlow, and forgets it afterwards.
    with isolated_registry():
        _run_scaffolded_module(monkeypatch)


def test_scaffold_package_passes_mypy_strict_and_pyright(tmp_path, monkeypatch):
    """The package `opgen init` writes ships `py.typed`: its own code checks clean, with its
    wrappers, under mypy --strict and pyright, as a user's checker reads it."""
    project = tmp_path / "scaffolded"
    assert main(["init", "--quiet", "--package", "scaffolded_ops", str(project)]) == 0
    monkeypatch.chdir(project)
    assert main(["build", "--quiet"]) == 0
    files = sorted((project / "scaffolded_ops").glob("*.py"))
    work = tmp_path / "check"
    work.mkdir()
    assert run_mypy(files, [project], work) == []
    if pyright_missing() is None:
        assert run_pyright(files, [project], work) == []


def _run_scaffolded_module(monkeypatch):
    module = importlib.import_module("gen_scaffolded_ops")
    assert module.__all__ == ["scaffolded_ops_scale"]
    from opgen_runtime import Graph
    from opgen_runtime.values import dtypes

    with Graph().as_default() as graph:
        y = module.scaffolded_ops_scale([[1.0, 2.0]])
        z = module.scaffolded_ops_scale([3.0], factor=0.5)
    assert (y.dtype, str(y.shape), str(z.shape)) == (dtypes.float32, "(1, 2)", "(1,)")
    nodes = {n.name: n for n in graph.as_graph_def().node}
    assert nodes["ScaffoldedOpsScale"].attr["factor"].f == 2.0
    assert nodes["ScaffoldedOpsScale_1"].attr["factor"].f == 0.5
    monkeypatch.delitem(sys.modules, "gen_scaffolded_ops")


# Stands in for g++ as `$CXX`: writes the object or library it is asked for (-o PATH) and the
# source's depfile (-MF PATH, naming the source alone), so that a test of what setup.py builds
# where needs neither g++ nor the compile's time; each run appends its -o to $FAKE_CXX_LOG.
_FAKE_CXX = """#!/bin/sh
out= depfile= source=
while [ $# -gt 0 ]; do
  case "$1" in -o) out=$2; shift;; -MF) depfile=$2; shift;; *.cc) source=$1;; esac
  shift
done
echo compiled > "$out"
if [ -n "$depfile" ]; then echo "object: $source" > "$depfile"; fi
if [ -n "$FAKE_CXX_LOG" ]; then echo "$out" >> "$FAKE_CXX_LOG"; fi
"""


def _scaffold(root: Path, *, fake_cxx: bool = False) -> tuple[Path, dict[str, str]]:
    """`opgen init my_ops` in `root`, then `opgen build`, in the author's environment (opgen
    importable from this clone), by subprocesses; the project and that environment (with
    `fake_cxx`, its `$CXX` is `_FAKE_CXX`)."""
    project = root / "my_ops"
    env = fresh_venv.clean_env(PYTHONPATH=str(REPO))
    if fake_cxx:
        (root / "fake-cxx").write_text(_FAKE_CXX)
        (root / "fake-cxx").chmod(0o755)
        env["CXX"] = str(root / "fake-cxx")
        env["OPGEN_SKIP_LIBRARY_CHECK"] = "1"  # its libraries are no ELF files: TensorFlow cannot load them
    fresh_venv.run(sys.executable, "-m", "opgen", "init", "--quiet", project, env=env)
    fresh_venv.run(sys.executable, "-m", "opgen", "build", "--quiet", cwd=project, env=env)
    return project, env


def _refused_wheel(project: Path, env: dict[str, str]) -> str:
    """The documented `pip wheel --no-build-isolation` of the project, which must fail: its output
    (whitespace collapsed: pip wraps lines)."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", "dist", "."]
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, check=False)
    assert done.returncode != 0 and not list(project.glob("dist/*.whl")), done.stdout
    return " ".join((done.stdout + done.stderr).split())


def _wheel_names(project: Path, env: dict[str, str]) -> set[str]:
    """The files of the project's wheel, built as the page says (`pip wheel --no-build-isolation`)."""
    fresh_venv.run(sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", "dist", ".",
                   cwd=project, env=env)
    (wheel,) = project.glob("dist/*.whl")
    return set(zipfile.ZipFile(wheel).namelist())


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new))


def _build_output(project: Path, env: dict[str, str], *command: str) -> str:
    """The output, both streams, of a build that must succeed (pip -v shows the backend's on stderr)."""
    done = subprocess.run([sys.executable, *command], cwd=project, env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_wheel_build_refuses_wrappers_stale_against_the_sources(tmp_path):
    """The documented `pip wheel --no-build-isolation` of a scaffolded project whose op was edited
    after `opgen build`: setup.py's build_ext refuses before compiling (so neither g++ nor
    TensorFlow is needed here), names the stale module and says to run `opgen build`; no wheel."""
    project, env = _scaffold(tmp_path)
    _replace(project / "ops" / "my_ops.cc", "factor: float = 2.0", "factor: float = 3.0")
    output = _refused_wheel(project, env)
    assert f"error: the generated wrappers in {project} are stale: `opgen build --check` reports " in output
    assert " would rewrite my_ops/gen_my_ops.py " in output
    assert ("A wheel of them would install and import, but with an OpLibraryWarning (the op library does not "
            "match the module), and each op of that library would raise OpLibraryError when run.") in output
    assert "Run `opgen build` in the project (and commit the wrappers), then build the wheel again." in output
    assert "running build_ext" in output and "g++" not in output


def test_wheel_builds_from_the_sdist(tmp_path):
    """trial34 #1: the sdist held the wrappers but not the source map, API snapshot and
    `.gitignore` that `opgen build --check` compares, and the wheel built from it (what `pip
    install` of the sdist and `python -m build` build) was refused as "not generated yet".
    build_ext gives setuptools' sdist every file `opgen build` reads and writes in the project
    (a header the op includes too, which g++ needs): `--check` passes in the unpacked sdist and
    `pip wheel` of the sdist builds, a wheel without those files (the scaffold's
    exclude-package-data). A wheel from an sdist that lacks them (an older opgen's) is built
    with a warning that names them: its modules are up to date."""
    project, env = _scaffold(tmp_path, fake_cxx=True)
    (project / "ops" / "my_ops_util.h").write_text("#pragma once\n")
    _replace(project / "ops" / "my_ops.cc", '#include "tensorflow/core/framework/op.h"\n',
             '#include "tensorflow/core/framework/op.h"\n#include "ops/my_ops_util.h"\n')
    fresh_venv.run(sys.executable, "-m", "opgen", "build", "--quiet", cwd=project, env=env)
    # setuptools' PEP 517 hook, which `python -m build --sdist --no-isolation` calls
    fresh_venv.run(sys.executable, "-c", "from setuptools import build_meta; build_meta.build_sdist('dist')",
                   cwd=project, env=env)
    (sdist,) = project.glob("dist/*.tar.gz")  # my-ops-0.1.0, or my_ops-0.1.0 as newer setuptools name it
    unpacked = tmp_path / "unpacked"
    with tarfile.open(sdist) as tar:
        tar.extractall(unpacked, filter="data")
    (tree,) = unpacked.iterdir()
    assert {"my_ops/gen_my_ops.py", "my_ops/API.md", "my_ops/opgen_sourcemap.json", "my_ops/.gitignore",
            "ops/my_ops.cc", "ops/my_ops_util.h", "pyproject.toml", "setup.py"} <= set(_files(tree))
    fresh_venv.run(sys.executable, "-m", "opgen", "build", "--check", "--quiet", cwd=tree, env=env)

    # the archive, as `pip install` of it builds it (unpacked in a temporary folder)
    command = ["-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-cache-dir", "-w", "wheels"]
    _build_output(tmp_path, env, *command, str(sdist))
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    assert {name for name in zipfile.ZipFile(wheel).namelist() if name.startswith("my_ops/")} == {
        "my_ops/__init__.py", "my_ops/gen_my_ops.py", "my_ops/py.typed", "my_ops/_my_ops.so"}

    for name in ("API.md", "opgen_sourcemap.json", ".gitignore"):  # an older opgen's sdist
        (tree / "my_ops" / name).unlink()
    output = " ".join(_build_output(tree, env, *command[:3], "-v", *command[3:], ".").split())
    assert (f"warning: the generated wrappers in {tree} are up to date, but `opgen build --check` reports other "
            "files of the build missing or stale: would create my_ops/.gitignore would create my_ops/API.md would "
            "create my_ops/opgen_sourcemap.json The wheel holds none of them, so it is built. In the project, run "
            "`opgen build` (and commit them); an sdist made with an older opgen, whose build_ext did not list them "
            "for it, lacks them.") in output
    assert list((tree / "wheels").glob("*.whl"))


def test_wheel_build_before_the_first_opgen_build_says_to_run_it(tmp_path):
    """`pip wheel --no-build-isolation` right after `opgen init`: no wrappers yet, which the
    refusal says (not that a wheel would import with stale ones)."""
    project = tmp_path / "my_ops"
    env = fresh_venv.clean_env(PYTHONPATH=str(REPO))
    fresh_venv.run(sys.executable, "-m", "opgen", "init", "--quiet", project, env=env)
    output = _refused_wheel(project, env)
    assert f"error: generated modules of {project} are missing: `opgen build --check` reports " in output
    assert "would create my_ops/gen_my_ops.py" in output and "OpLibraryWarning" not in output
    assert ("The wheel would lack them, and importing them would fail. Run `opgen build` in the project (and commit "
            "the wrappers), then build the wheel again.") in output


def test_wheel_build_without_opgen_says_to_install_it(tmp_path):
    """The documented `pip wheel --no-build-isolation` where opgen is not installed (an `opgen`
    package without setup helpers shadows any installed one): setup.py says what is missing
    and how to fix it, not a traceback; no wheel."""
    project, env = _scaffold(tmp_path)
    (tmp_path / "shadow" / "opgen").mkdir(parents=True)
    (tmp_path / "shadow" / "opgen" / "__init__.py").write_text("")
    output = _refused_wheel(project, {**env, "PYTHONPATH": str(tmp_path / "shadow")})
    assert ("No module named 'opgen.setup_helpers': building my_ops compiles its op library with opgen's setup "
            "helpers; install opgen here (pip install ./runtime . in an opgen clone) and build with pip wheel "
            "--no-build-isolation") in output
    assert "Traceback" not in output


@pytest.mark.parametrize("command", [
    ["setup.py", "build_ext", "--inplace"],
    # what `pip install --no-build-isolation -e .` runs: PEP 660's hook, here without installing
    ["-c", "from setuptools import build_meta; build_meta.build_editable('dist')"],
], ids=["inplace", "editable"])
def test_in_place_and_editable_builds_put_the_library_beside_the_wrappers(tmp_path, command):
    """setuptools builds an extension under build/, then copies it into the package: under the
    library's own name, which the wrappers load (not a Python extension's `.cpython-311-...so`).
    A second in-place build of the unchanged project compiles nothing, and says so (a user's
    report: it compiled every library again); an editable build's build folders are temporary."""
    project, env = _scaffold(tmp_path, fake_cxx=True)
    log = tmp_path / "compiled.log"
    env["FAKE_CXX_LOG"] = str(log)
    fresh_venv.run(sys.executable, *command, cwd=project, env=env)
    assert (project / "my_ops" / "_my_ops.so").read_text() == "compiled\n"
    assert not list((project / "my_ops").glob("*.cpython-*"))
    assert [Path(line).name for line in log.read_text().splitlines()] == ["0-my_ops.o", "_my_ops.so"]
    if command[0] == "setup.py":
        log.unlink()
        (project / "my_ops" / "_my_ops.so").unlink()
        second = _build_output(project, env, *command)
        assert "skipping 'my_ops/_my_ops.so' op library (up-to-date)" in second and "building '" not in second
        assert not log.exists() and (project / "my_ops" / "_my_ops.so").read_text() == "compiled\n"


def test_second_wheel_build_of_an_unchanged_project_compiles_nothing(tmp_path):
    """A user's report: a second `pip wheel --no-build-isolation` of an unchanged project (as a
    second `setup.py build_ext --inplace`, tested above) compiled every op library again. pip
    builds in the project's build/, where the library's state is recorded: the second build
    says the library is up to date and runs no compiler (tests/commands/test_setup_build.py
    tests what makes a library stale)."""
    project, env = _scaffold(tmp_path, fake_cxx=True)
    log = tmp_path / "compiled.log"
    env["FAKE_CXX_LOG"] = str(log)
    command = ["-m", "pip", "wheel", "-v", "--no-build-isolation", "--no-deps", "-w", "dist", "."]
    first = _build_output(project, env, *command)
    assert "building 'my_ops/_my_ops.so' op library (no earlier build recorded)" in first
    assert [Path(line).name for line in log.read_text().splitlines()] == ["0-my_ops.o", "_my_ops.so"]
    log.unlink()
    second = _build_output(project, env, *command)
    assert "skipping 'my_ops/_my_ops.so' op library (up-to-date)" in second and "building '" not in second
    assert not log.exists()


def test_wheel_of_split_modules_holds_their_packages(tmp_path):
    """With `max_ops_per_module`, a module is a package of parts (my_ops/gen_my_ops/): the
    scaffold's pyproject.toml packs the package's subpackages, and build_ext refuses a setup
    that would leave them out (an import of them would fail on the users' machines)."""
    project, env = _scaffold(tmp_path, fake_cxx=True)
    with (project / "ops" / "my_ops.cc").open("a") as source:
        source.write('REGISTER_OP("MyOpsNegate").Input("x: float").Output("y: float");\n')
    _replace(project / "pyproject.toml", "docstring_kernels = true", "docstring_kernels = true\nmax_ops_per_module = 1")
    fresh_venv.run(sys.executable, "-m", "opgen", "build", "--quiet", cwd=project, env=env)
    assert {"my_ops/gen_my_ops/__init__.py", "my_ops/gen_my_ops/_part1.py", "my_ops/gen_my_ops/_part2.py",
            "my_ops/_my_ops.so", "my_ops/py.typed"} <= _wheel_names(project, env)

    # what the scaffold wrote before: the package alone
    _replace(project / "pyproject.toml",
             '[tool.setuptools.packages.find]\ninclude = ["my_ops", "my_ops.*"]\nnamespaces = false',
             '[tool.setuptools]\npackages = ["my_ops"]')
    (project / "dist").rename(tmp_path / "dist")
    output = _refused_wheel(project, env)
    assert ("error: generated modules would not be in the wheel: gen_my_ops (my_ops/gen_my_ops/): no package "
            "setuptools packs holds their files (packages: ['my_ops']), and their users' import would fail with "
            "ModuleNotFoundError. To fix, have setuptools pack my_ops.gen_my_ops too: in pyproject.toml replace "
            '[tool.setuptools] packages with [tool.setuptools.packages.find] include = ["my_ops", "my_ops.*"] '
            "(what `opgen init` writes), or add them to the packages of setup().") in output
    assert "g++" not in output and "fake-cxx" not in output


def test_wheel_build_refuses_an_op_library_the_setup_does_not_build(tmp_path):
    """A module's op library ([tool.opgen] library, libraries) that no OpLibrary of setup.py
    builds and no package data ships: build_ext names the module and the library and says how
    to fix it; shipped as package data instead, the library is in the wheel."""
    project, env = _scaffold(tmp_path, fake_cxx=True)
    with (project / "pyproject.toml").open("a") as pyproject:
        pyproject.write('\n[tool.opgen.libraries]\n"gen_my_*" = "_prebuilt.so"\n')
    fresh_venv.run(sys.executable, "-m", "opgen", "build", "--quiet", cwd=project, env=env)
    output = _refused_wheel(project, env)
    assert ("error: generated module gen_my_ops loads op library '_prebuilt.so' (my_ops/_prebuilt.so), which the "
            "wheel would lack: no OpLibrary of the setup builds it and no package data ships it. Its users would "
            "get an OpLibraryWarning at import and an OpLibraryError from each of its ops. To fix, add "
            'OpLibrary("my_ops/_prebuilt.so", [<its C++ sources>]) to the ext_modules of setup.py, or correct the '
            "module's library in [tool.opgen] (library, libraries) and run `opgen build`.") in output
    assert "fake-cxx" not in output

    (project / "my_ops" / "_prebuilt.so").write_text("prebuilt\n")
    _replace(project / "pyproject.toml", '"my_ops" = ["py.typed"]', '"my_ops" = ["py.typed", "_prebuilt.so"]')
    assert {"my_ops/gen_my_ops.py", "my_ops/_prebuilt.so", "my_ops/_my_ops.so"} <= _wheel_names(project, env)


def test_wheel_build_refuses_a_package_importing_a_hidden_op(tmp_path):
    """trial37 #4: the scaffold's `__init__.py` re-exports the op's function; hidden by an
    override, the wheel build refuses, naming the line, before compiling anything (the library
    check loads the generated modules alone, so `import my_ops` was never tried)."""
    project, env = _scaffold(tmp_path, fake_cxx=True)
    (project / "overrides").mkdir(exist_ok=True)
    (project / "overrides" / "hide.pbtxt").write_text('op { name: "MyOpsScale" hide: true }\n')
    fresh_venv.run(sys.executable, "-m", "opgen", "build", "--quiet", cwd=project, env=env)
    output = _refused_wheel(project, env)
    assert ("error: the package's own modules import names its generated modules do not define, so importing it "
            "would fail on every user's machine:") in output
    assert (" my_ops/__init__.py:14:25: error: __init__.py imports my_ops_scale from generated module gen_my_ops, "
            "which does not define it") in output
    assert "fake-cxx" not in output


@pytest.mark.oracle
def test_in_place_build_compiles_a_library_tensorflow_runs(tmp_path):
    """`python setup.py build_ext --inplace` of a scaffolded project, with g++ and TensorFlow's
    flags (cached by what it depends on: the scaffold, setup_helpers, setuptools, TensorFlow):
    the op runs on TensorFlow from the source tree, its library loaded by the wrappers. Its
    source includes a header from the project root (`#include "ops/my_ops_util.h"`), which
    gathering finds there and g++ too: build_ext passes `-I` the project root (trial9 #6)."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not available: setup.py compiles the op library with it")
    from oracle.cxx_build import cached_build, content_hash

    depends = [*sorted((REPO / "opgen" / "_scaffold").glob("*.j2")), REPO / "opgen" / "setup_helpers.py"]
    key = content_hash([*(p.read_bytes() for p in depends), importlib.metadata.version("setuptools"),
                        b"a header included from the project root"])

    def build(root: Path) -> None:
        project, env = _scaffold(root)
        (project / "ops" / "my_ops_util.h").write_text("#pragma once\ninline float MyOpsTwice(float x) { return x; }\n")
        _replace(project / "ops" / "my_ops.cc", '#include "tensorflow/core/framework/op.h"\n',
                 '#include "tensorflow/core/framework/op.h"\n#include "ops/my_ops_util.h"\n')
        fresh_venv.run(sys.executable, "-m", "opgen", "build", "--quiet", cwd=project, env=env)
        fresh_venv.run(sys.executable, "setup.py", "build_ext", "--inplace", cwd=project, env=env)

    project = cached_build("scaffold-inplace", key, build) / "my_ops"
    record_build_dir(project / "my_ops")
    run = "import tensorflow as tf, my_ops; print(my_ops.my_ops_scale(tf.constant([1.0, 2.0])).numpy().tolist())"
    printed = fresh_venv.run(sys.executable, "-c", run, cwd=project, env=fresh_venv.clean_env(PYTHONPATH=str(REPO)))
    assert printed.splitlines()[-1] == "[2.0, 4.0]"


@pytest.mark.oracle
def test_wheel_build_refuses_a_library_that_lacks_its_modules_ops(tmp_path):
    """Two source files added, their modules falling to the default library: ops/extra.cc compiled
    into a library of its own that no `[tool.opgen.libraries]` entry names, ops/more.cc compiled
    into none. The wheel would install, and their ops fail on TensorFlow. build_ext loads the
    built modules and libraries as the users would and refuses, naming for one the library that
    does register its ops and the entry to add (trial19 #1), for the other the source to add to
    the library's OpLibrary (trial20 #4); so fixed, the wheel builds. gen_extra is split into
    parts (each registers its library), and the default library is a `package:resource`
    (found in the built package). Real g++ and TensorFlow: ~60 s."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not available: setup.py compiles the op libraries with it")
    project, env = _scaffold(tmp_path)
    header = '#include "tensorflow/core/framework/op.h"\n\n'
    (project / "ops" / "extra.cc").write_text(
        header + 'REGISTER_OP("MyExtra").Input("x: float").Output("y: float");\n'
        'REGISTER_OP("MyExtraToo").Output("y: float");\n')
    (project / "ops" / "more.cc").write_text(header + 'REGISTER_OP("MyMore").Output("y: int32");\n')
    _replace(project / "setup.py", '["ops/my_ops.cc"])]',
             '["ops/my_ops.cc"]), OpLibrary("my_ops/_extra.so", ["ops/extra.cc"])]')
    _replace(project / "pyproject.toml", 'library = "_my_ops.so"',
             'library = "my_ops:_my_ops.so"\nmax_ops_per_module = 1')
    fresh_venv.run(sys.executable, "-m", "opgen", "build", "--quiet", cwd=project, env=env)
    output = _refused_wheel(project, env)
    assert "error: the wheel's op libraries would fail on TensorFlow: 3 op libraries cannot be registered: " in output
    for module, op in (("gen_extra._part1", "MyExtra"), ("gen_extra._part2", "MyExtraToo"), ("gen_more", "MyMore")):
        assert (f"/my_ops/_my_ops.so of module 'my_ops.{module}' registers no op {op}; rebuild the library or "
                "the wrappers, or, if another library registers them, fix `library` (or the module's entry of "
                "[tool.opgen.libraries]) in [tool.opgen], or `opgen build --library`, and regenerate") in output
    assert ("Its users would get an OpLibraryWarning at import and an OpLibraryError from each op of that library. "
            "To fix, map module gen_extra to my_ops/_extra.so, which registers MyExtra, MyExtraToo: "
            '[tool.opgen.libraries] "gen_extra" = "_extra.so", then run `opgen build`; add ops/more.cc to the '
            'sources of OpLibrary("my_ops/_my_ops.so", ...) in setup.py: it declares MyMore, which no source of '
            "that library registers, and build the wheel again.") in output

    with (project / "pyproject.toml").open("a") as pyproject:
        pyproject.write('\n[tool.opgen.libraries]\n"gen_extra" = "_extra.so"\n')
    _replace(project / "setup.py", '["ops/my_ops.cc"])', '["ops/my_ops.cc", "ops/more.cc"])')
    fresh_venv.run(sys.executable, "-m", "opgen", "build", "--quiet", cwd=project, env=env)
    assert {"my_ops/gen_my_ops.py", "my_ops/gen_more.py", "my_ops/gen_extra/_part1.py", "my_ops/gen_extra/_part2.py",
            "my_ops/_my_ops.so", "my_ops/_extra.so"} <= _wheel_names(project, env)


@pytest.mark.oracle
def test_wheel_build_refuses_a_library_tensorflow_cannot_load(tmp_path):
    """A compiled library TensorFlow cannot load (here `$CXX` writes text, not ELF; in life an
    undefined symbol): build_ext refuses with TensorFlow's reason and says how to skip the
    check when building for other machines; with OPGEN_SKIP_LIBRARY_CHECK the wheel builds."""
    project, env = _scaffold(tmp_path, fake_cxx=True)
    del env["OPGEN_SKIP_LIBRARY_CHECK"]
    output = _refused_wheel(project, env)
    assert ("error: the wheel's op libraries would fail on TensorFlow: TensorFlow cannot load op library " in output
            and "/my_ops/_my_ops.so of module 'my_ops.gen_my_ops' (ops MyOpsScale): " in output)
    assert ("Fix what the error names, and build the wheel again. (To build for machines this one cannot stand in "
            "for, such as a GPU library where CUDA is missing, set OPGEN_SKIP_LIBRARY_CHECK=1.)") in output
    assert "my_ops/_my_ops.so" in _wheel_names(project, {**env, "OPGEN_SKIP_LIBRARY_CHECK": "1"})


def test_wheel_build_without_tensorflow_says_to_install_it(tmp_path, monkeypatch):
    """setup.py's OpLibrary build asks the building Python for TF's flags: without TensorFlow
    there, the error names that Python and says to install TensorFlow in it."""
    from opgen.setup_helpers import tensorflow_flags

    python = tmp_path / "python"  # a Python that cannot import tensorflow
    python.write_text(f"#!/bin/sh\nexec {sys.executable} -S -I \"$@\"\n")
    python.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(python))
    with pytest.raises(RuntimeError) as e:
        tensorflow_flags()
    assert f"needs TensorFlow importable by {python}: install it there (pip install tensorflow-cpu)" in str(e.value)
    assert "ModuleNotFoundError: No module named 'tensorflow'" in str(e.value)


def _opgen_build_stderr(project: Path, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-m", "opgen", "build", "--quiet"], cwd=project, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_out_subfolder_without_init_is_diagnosed(tmp_path):
    """`out` a folder of the package without `__init__.py`: `opgen build` warns, and build_ext
    names the missing `__init__.py` (the scaffold's packages.find already includes the
    subpackages, so telling the author to switch to it would be wrong), each module and the
    package once; with the `__init__.py` the wheel holds the modules."""
    project, env = _scaffold(tmp_path, fake_cxx=True)
    (project / "ops" / "more_ops.cc").write_text(
        (project / "ops" / "my_ops.cc").read_text().replace("MyOpsScale", "MyOpsScale2"))
    _replace(project / "pyproject.toml", 'out = "my_ops"', 'out = "my_ops/gen"')
    _replace(project / "pyproject.toml", 'api = "my_ops/API.md"', 'api = "my_ops/gen/API.md"')
    _replace(project / "pyproject.toml", 'library = "_my_ops.so"', 'library = "my_ops:_my_ops.so"')
    (project / "my_ops" / "gen_my_ops.py").unlink()
    warning = " ".join(_opgen_build_stderr(project, env).split())
    assert ("warning: [tool.opgen] out my_ops/gen is a folder of package my_ops but has no __init__.py: "
            "setuptools' packages.find (namespaces = false) and find_packages() skip it") in warning, warning
    assert "hint: create my_ops/gen/__init__.py" in warning
    output = _refused_wheel(project, env)
    assert ("error: generated modules would not be in the wheel: gen_more_ops, gen_my_ops (my_ops/gen/): no package "
            "setuptools packs holds their files (packages: ['my_ops']), and their users' import would fail with "
            "ModuleNotFoundError. To fix, create my_ops/gen/__init__.py (empty will do; `opgen build` leaves files "
            "it did not write alone): without one, setuptools takes no folder for a package (packages.find with "
            "namespaces = false, find_packages).") in output
    assert "packages.find] include" not in output and "fake-cxx" not in output

    (project / "my_ops" / "gen" / "__init__.py").write_text("")
    assert "warning" not in _opgen_build_stderr(project, env)
    (project / "dist").rename(tmp_path / "dist")
    assert {"my_ops/gen/__init__.py", "my_ops/gen/gen_my_ops.py", "my_ops/gen/gen_more_ops.py",
            "my_ops/_my_ops.so"} <= _wheel_names(project, env)
