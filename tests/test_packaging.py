"""The wheel carries what an installed opgen needs: the Jinja templates and the .proto files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_wheel_ships_templates_and_protos(tmp_path):
    # Build from a copy: an in-tree build would leave build/ and *.egg-info in the checkout.
    src = tmp_path / "src"
    shutil.copytree(
        REPO,
        src,
        symlinks=True,  # opgen/_templates is a symlink to templates/
        ignore=shutil.ignore_patterns(".git", "tests", "generated", "build", "*.egg-info", "__pycache__"),
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(src)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("opgen-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {p.name for p in (REPO / "templates").glob("*.j2")}
    assert templates, "no templates in templates/"
    assert {f"opgen/_templates/{t}" for t in templates} <= names
    assert "opgen/proto/op_def.proto" in names and "opgen/proto/op_def_pb2.py" in names
    assert "opgen/runtime/__init__.py" in names
