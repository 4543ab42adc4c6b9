"""`opgen build --depfile` in real build tools, driven by the snippets README.md shows: ninja,
make and CMake (Ninja and Unix Makefiles generators) rerun opgen once after a change to any file
it read (an included header, pyproject.toml, a template, an override, a new override file, the
formatter's installed metadata), and do nothing otherwise;
`--list-outputs` names exactly the files the build writes."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
OPGEN = f"env PYTHONPATH={REPO} {sys.executable} -m opgen build"  # stands for `opgen build` in the snippets
RAN = "opgen build: "  # opgen's summary line, printed by every build it runs
EDITS = ["specs/common_macros.h", "pyproject.toml", "tpl/function.py.j2", "ov/math_ops.pbtxt", "ov/new_override.pbtxt"]


def _readme_snippet(lang: str) -> str:
    """The ```lang block of README.md's "Using opgen in a build", with `opgen build` runnable here."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Using opgen in a build", 1)[1].split("\n### ", 1)[0]
    (block,) = re.findall(rf"^```{lang}\n(.*?)^```$", section, flags=re.S | re.M)
    return block.replace("opgen build", OPGEN)


def _project(root: Path) -> Path:
    (root / "specs").mkdir(parents=True)
    for name in ("math_ops.cc", "common_macros.h"):
        shutil.copy(REPO / "op_specs" / name, root / "specs" / name)
    shutil.copytree(REPO / "templates", root / "tpl")
    (root / "ov").mkdir()
    shutil.copy(REPO / "overrides" / "math_ops.pbtxt", root / "ov" / "math_ops.pbtxt")
    # the sources declare TF's own ops on purpose: keep them (docs/gathering.md, core ops)
    (root / "pyproject.toml").write_text('[tool.opgen]\ncore_ops = ["*"]\nsources = ["specs"]\noverrides = "ov"\n'
                                         'templates = "tpl"\napi = "generated/API.md"\n', encoding="utf-8")
    return root


def _opgen(root: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "opgen", "build", *argv], cwd=root, capture_output=True, text=True,
                          check=False, env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_list_outputs_is_what_build_writes(tmp_path):
    root = _project(tmp_path / "p")
    listed = _opgen(root, "--list-outputs").stdout.split()
    assert "generated/API.md" in listed and "generated/opgen_sourcemap.json" in listed
    assert _opgen(root).returncode == 0
    assert listed[-3:] == ["generated/opgen_sourcemap.json", "generated/API.md", "generated/.gitignore"]  # modules first
    written = sorted(p.relative_to(root).as_posix() for p in (root / "generated").rglob("*")
                     if p.is_file() and not p.name.startswith(".opgen-"))
    assert sorted(listed) == written


def test_gitignore_hides_opgens_internals_but_never_replaces_a_users(tmp_path):
    root = _project(tmp_path / "p")
    assert _opgen(root).returncode == 0
    ignore = (root / "generated" / ".gitignore").read_text().splitlines()
    assert {".opgen-lock", ".opgen-manifest.json", ".opgen-journal.json", ".opgen-staging/"} <= set(ignore)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "generated"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    assert ".opgen-" not in status and "generated/.gitignore" in status
    root2 = _project(tmp_path / "q")
    (root2 / "generated").mkdir()
    (root2 / "generated" / ".gitignore").write_text("*.pyc\n")
    assert _opgen(root2).returncode == 0
    assert (root2 / "generated" / ".gitignore").read_text() == "*.pyc\n"
    assert "generated/.gitignore" not in _opgen(root2, "--list-outputs").stdout.split()


def test_depfile_lists_everything_read_and_written(tmp_path):
    root = _project(tmp_path / "p")
    assert _opgen(root, "--depfile", "opgen.d").returncode == 0
    targets, deps = (root / "opgen.d").read_text().split(": ", 1)
    assert targets.split() == _opgen(root, "--list-outputs").stdout.split()
    deps_list = deps.split()
    for needed in ("specs/math_ops.cc", "specs/common_macros.h", "pyproject.toml", "ov", "ov/math_ops.pbtxt",
                   "tpl/function.py.j2", "tpl/module_header.py.j2", "tpl/module_registration.py.j2"):
        assert needed in deps_list, needed
    black = importlib.metadata.distribution("black")
    assert [d for d in deps_list if d.endswith("/METADATA")] == [
        str(black.locate_file(f"black-{black.version}.dist-info/METADATA"))]  # the formatter's identity


def test_depfile_relative_to_a_directory(tmp_path):
    """CMake reads a DEPFILE's paths relative to CMAKE_CURRENT_BINARY_DIR: below that directory
    they are relative to it, elsewhere absolute."""
    root = _project(tmp_path / "p")
    assert _opgen(root, "--depfile", "build/opgen.d", "--depfile-relative-to", "build").returncode == 0
    paths = (root / "build" / "opgen.d").read_text().replace(":", "").split()
    assert f"{root}/generated/API.md" in paths and f"{root}/specs/common_macros.h" in paths
    assert all(Path(p).is_absolute() for p in paths)
    assert _opgen(root, "--depfile", "opgen.d", "--depfile-relative-to", "..").returncode == 0
    paths = (root / "opgen.d").read_text().replace(":", "").split()
    assert "p/generated/API.md" in paths and "p/specs/common_macros.h" in paths
    unused = _opgen(root, "--depfile-relative-to", ".")
    assert unused.returncode == 2 and "--depfile-relative-to needs --depfile" in unused.stderr


def _edit(root: Path, rel: str) -> None:
    """Change the input `rel` (or create an empty override file) the way an edit does: every
    output dates from 10 s ago and the input from now, so a build that runs opgen (and, for
    make, touches the outputs) leaves the outputs no older than any input, whatever the file
    system's time granularity."""
    past = time.time() - 10
    for output in (root / "generated").iterdir():
        os.utime(output, (past, past))
    path = root / rel
    if path.exists():
        os.utime(path)
    else:
        path.write_text("", encoding="utf-8")  # the directory's mtime moves to now too


def _check_rebuilds(root: Path, build: Callable[[], str]) -> None:
    """The first build runs opgen, the next does nothing; after each edit (`EDITS`) one build
    runs opgen and the next does nothing again."""
    assert RAN in build()
    assert RAN not in build()
    for rel in EDITS:
        _edit(root, rel)
        assert RAN in build(), f"opgen did not rerun after an edit of {rel}"
        assert RAN not in build(), f"opgen reran twice after an edit of {rel}"


def _run(argv: list[str], cwd: Path) -> str:
    r = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    assert r.returncode == 0, r.stdout
    return r.stdout


@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja not installed (apt-get install ninja-build)")
def test_readme_ninja_rule_reruns_opgen_when_an_input_changes(tmp_path):
    root = _project(tmp_path / "p")
    snippet = _readme_snippet("ninja")
    edge = next(line for line in snippet.splitlines() if line.startswith("build "))
    assert edge == f"build {' '.join(_opgen(root, '--list-outputs').stdout.split())}: opgen"  # ninja checks the first
    (root / "build.ninja").write_text(snippet, encoding="utf-8")
    _check_rebuilds(root, lambda: _run(["ninja"], root))


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed (apt-get install make)")
def test_readme_make_rule_reruns_opgen_when_an_input_changes(tmp_path):
    root = _project(tmp_path / "p")
    (root / "Makefile").write_text(_readme_snippet("make"), encoding="utf-8")
    _check_rebuilds(root, lambda: _run(["make"], root))


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed (apt-get install cmake)")
@pytest.mark.parametrize("generator, tool", [("Ninja", "ninja"), ("Unix Makefiles", "make")])
def test_readme_cmake_command_reruns_opgen_when_an_input_changes(tmp_path, generator, tool):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed: CMake's {generator} generator needs it")
    root = _project(tmp_path / "p")
    first, rest = _readme_snippet("cmake").split("\n", 1)
    assert first.startswith("cmake_minimum_required(")
    (root / "CMakeLists.txt").write_text(f"{first}\nproject(opgen_test NONE)\n{rest}", encoding="utf-8")
    _run(["cmake", "-S", str(root), "-B", str(root / "build"), "-G", generator], root)
    _check_rebuilds(root, lambda: _run(["cmake", "--build", str(root / "build")], root))


@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja not installed (apt-get install ninja-build)")
def test_ninja_reruns_opgen_when_the_formatter_changes(tmp_path):
    """An upgrade (or reinstall) of the formatter rewrites its distribution's METADATA, which
    the depfile lists. Here a copy of black's dist-info, first on the path, stands for the
    installed one, so the shared environment is not touched."""
    root = _project(tmp_path / "p")
    black = importlib.metadata.distribution("black")
    site = tmp_path / "site"
    info = f"black-{black.version}.dist-info"
    shutil.copytree(black.locate_file(info), site / info)
    command = f"{sys.executable} -m opgen build --depfile opgen.d"
    outputs = _opgen(root, "--list-outputs").stdout.split()
    (root / "build.ninja").write_text(
        f"rule opgen\n  command = env PYTHONPATH={site}:{REPO} {command}\n  depfile = opgen.d\n  restat = 1\n"
        f"build {' '.join(outputs)}: opgen\n", encoding="utf-8")

    def ninja() -> str:
        return subprocess.run(["ninja"], cwd=root, capture_output=True, text=True, check=True).stdout

    assert "opgen build" in ninja()
    assert f"{site / info / 'METADATA'}" in (root / "opgen.d").read_text()
    assert "no work to do" in ninja()
    later = time.time() + 5
    os.utime(site / info / "METADATA", (later, later))
    assert "opgen build" in ninja()
    assert "no work to do" in ninja()
