"""`opgen build --depfile` in a real build tool: ninja reruns opgen after a change to any file
it read (an included header, pyproject.toml, a template, an override, the formatter's
installed metadata), and nothing else;
`--list-outputs` names exactly the files the build writes."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _project(root: Path) -> Path:
    (root / "specs").mkdir(parents=True)
    for name in ("math_ops.cc", "common_macros.h"):
        shutil.copy(REPO / "op_specs" / name, root / "specs" / name)
    shutil.copytree(REPO / "templates", root / "tpl")
    (root / "ov").mkdir()
    shutil.copy(REPO / "overrides" / "math_ops.pbtxt", root / "ov" / "math_ops.pbtxt")
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs"]\nout = "gen"\noverrides = "ov"\n'
                                         'templates = "tpl"\napi = "gen/API.md"\n', encoding="utf-8")
    return root


def _opgen(root: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "opgen", "build", *argv], cwd=root, capture_output=True, text=True,
                          check=False, env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_list_outputs_is_what_build_writes(tmp_path):
    root = _project(tmp_path / "p")
    listed = _opgen(root, "--list-outputs").stdout.split()
    assert "gen/API.md" in listed and "gen/opgen_sourcemap.json" in listed
    assert _opgen(root).returncode == 0
    assert listed[-3:] == ["gen/opgen_sourcemap.json", "gen/API.md", "gen/.gitignore"]  # modules first
    written = sorted(p.relative_to(root).as_posix() for p in (root / "gen").rglob("*")
                     if p.is_file() and not p.name.startswith(".opgen-"))
    assert sorted(listed) == written


def test_gitignore_hides_opgens_internals_but_never_replaces_a_users(tmp_path):
    root = _project(tmp_path / "p")
    assert _opgen(root).returncode == 0
    ignore = (root / "gen" / ".gitignore").read_text().splitlines()
    assert {".opgen-lock", ".opgen-manifest.json", ".opgen-journal.json", ".opgen-staging/"} <= set(ignore)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "gen"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    assert ".opgen-" not in status and "gen/.gitignore" in status
    root2 = _project(tmp_path / "q")
    (root2 / "gen").mkdir()
    (root2 / "gen" / ".gitignore").write_text("*.pyc\n")
    assert _opgen(root2).returncode == 0
    assert (root2 / "gen" / ".gitignore").read_text() == "*.pyc\n"
    assert "gen/.gitignore" not in _opgen(root2, "--list-outputs").stdout.split()


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


@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja not installed (apt-get install ninja-build)")
@pytest.mark.parametrize("touched", ["specs/common_macros.h", "pyproject.toml", "tpl/function.py.j2",
                                     "ov/math_ops.pbtxt", "ov/new_override.pbtxt"])
def test_ninja_reruns_opgen_when_an_input_changes(tmp_path, touched):
    root = _project(tmp_path / "p")
    command = f"{sys.executable} -m opgen build --depfile opgen.d"
    outputs = _opgen(root, "--list-outputs").stdout.split()  # the edge's outputs, in this order
    (root / "build.ninja").write_text(
        f"rule opgen\n  command = env PYTHONPATH={REPO} {command}\n  depfile = opgen.d\n  restat = 1\n"
        f"build {' '.join(outputs)}: opgen\n", encoding="utf-8")

    def ninja() -> str:
        r = subprocess.run(["ninja"], cwd=root, capture_output=True, text=True, check=True)
        return r.stdout

    assert "opgen build" in ninja()
    assert "no work to do" in ninja()
    path = root / touched
    later = time.time() + 5  # newer than the outputs, whatever the file system's granularity
    if not path.exists():
        path.write_text("", encoding="utf-8")  # a new (empty) override file
        os.utime(path.parent, (later, later))
    os.utime(path, (later, later))
    assert "opgen build" in ninja()
    assert "no work to do" in ninja()



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
