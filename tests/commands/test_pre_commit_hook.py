"""The hooks of `.pre-commit-hooks.yaml`, run by pre-commit itself (`pre-commit try-repo`,
which installs opgen from this repository into its own environment) in a test repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO

PRE_COMMIT = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")

pytestmark = pytest.mark.skipif(PRE_COMMIT is None or not (REPO / ".git").exists(),
                                reason="pre-commit not installed (pip install -e '.[test]') or not a git checkout")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=cwd, check=True,
                   capture_output=True)


def _try_repo(cwd: Path, home: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([PRE_COMMIT, "try-repo", str(REPO), "--all-files", *extra], cwd=cwd,
                          capture_output=True, text=True, check=False, timeout=600,
                          env=dict(os.environ, PRE_COMMIT_HOME=str(home), PYTHONPATH=""))


def test_hooks_pass_then_fail_on_stale_output_and_breaking_change(tmp_path):
    home = tmp_path / "pre-commit-home"
    origin = tmp_path / "origin.git"
    work = tmp_path / "work"
    (work / "specs").mkdir(parents=True)
    for name in ("math_ops.cc", "common_macros.h"):
        shutil.copy(REPO / "op_specs" / name, work / "specs" / name)
    # the sources declare TF's own ops on purpose: keep them (docs/gathering.md, core ops)
    (work / "pyproject.toml").write_text(
        '[tool.opgen]\ncore_ops = ["*"]\nsources = ["specs"]\nout = "gen"\noverrides = ""\napi = "gen/API.md"\n'
    )
    subprocess.run([sys.executable, "-m", "opgen", "build"], cwd=work, check=True, capture_output=True,
                   env=dict(os.environ, PYTHONPATH=str(REPO)))
    _git(tmp_path, "init", "-q", "--bare", str(origin))
    _git(work, "init", "-q", "-b", "main")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "v1")
    _git(work, "remote", "add", "origin", str(origin))
    _git(work, "push", "-q", "origin", "main")

    # `--hook-stage manual` runs both hooks (opgen-build-check has no `stages`: every stage) in one
    # environment install: each `try-repo` clones and installs opgen anew.
    r = _try_repo(work, home, "--hook-stage", "manual")
    assert r.returncode == 0, r.stdout + r.stderr
    assert _results(r.stdout) == {"opgen build --check": "Passed", "opgen diff --git origin/main": "Passed"}, r.stdout

    spec = work / "specs" / "math_ops.cc"
    spec.write_text(spec.read_text().replace('REGISTER_OP("Add")', 'REGISTER_OP("AddRenamed")'))
    r = _try_repo(work, home, "--hook-stage", "manual")
    assert r.returncode == 1, r.stdout + r.stderr
    assert _results(r.stdout) == {"opgen build --check": "Failed", "opgen diff --git origin/main": "Failed"}, r.stdout
    assert "would rewrite gen/gen_math_ops.py" in r.stdout and "BREAKING" in r.stdout, r.stdout


def _results(stdout: str) -> dict[str, str]:
    """pre-commit's verdict line per hook: `<name>....Passed`."""
    return {m[1]: m[2] for m in re.finditer(r"^(opgen [^.\n]*?)\.{3,}(Passed|Failed)$", stdout, re.M)}
