"""Test projects: a project of this repo's op_specs, and building a copy of a project as its
author would (`opgen build` from its root)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from opgen.cli import main
from support.paths import REPO


def op_specs_project(tmp_path: Path, specs: tuple[str, ...], extra: str = "") -> Path:
    """`tmp_path/proj`: the `specs` files of op_specs/ in specs/, and a pyproject.toml building them
    into gen/ (plus `extra` [tool.opgen] lines). The sources declare TF's own ops on purpose:
    `core_ops = ["*"]` keeps them (docs/gathering.md, core ops)."""
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    for name in specs:
        shutil.copy(REPO / "op_specs" / name, root / "specs" / name)
    (root / "pyproject.toml").write_text(
        f'[tool.opgen]\ncore_ops = ["*"]\nsources = ["specs"]\nout = "gen"\noverrides = ""\n{extra}', encoding="utf-8"
    )
    return root


def build_copy(project: Path, root: Path, *argv: str) -> Path:
    """`project` copied to `root` and built there with `opgen build *argv` (exit 0); `root`."""
    shutil.copytree(project, root, dirs_exist_ok=True)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(["build", *argv]) == 0
    finally:
        os.chdir(cwd)
    return root


def user_tools(tmp_path: Path) -> Path:
    """`tmp_path/bin` holding `opgen` and `python` as a user's venv provides them (this
    interpreter, this checkout's opgen): put it first on PATH to run a doc's shell commands."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "opgen").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m opgen "$@"\n', encoding="utf-8")
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return bin_dir
