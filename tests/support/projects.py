"""Building a copy of a test project as its author would (`opgen build` from its root)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from opgen.cli import main


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
