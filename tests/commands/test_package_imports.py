"""A package's own modules that import, from the generated modules beside them, a name the
build no longer defines (an op hidden or renamed by an override, or removed) get a located
warning from `opgen build` (and `--check`): `import package` would fail with ImportError on
every user's machine (trial37 #4; tests/commands/test_scaffold.py: the wheel build refuses it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.cli import main
from opgen.outputs.package_imports import missing_imports

OPS = """
REGISTER_OP("Small").Input("x: float").Output("y: float");
REGISTER_OP("Twice").Input("x: float").Output("y: float");
"""

INIT = """\
from .gen_ops import small, twice
from pkg.gen_ops import (
    small as s,
    gone,
)
from .gen_ops import *  # (a star import is not checked)
from other.gen_ops import twice_typo  # (another package's: not checked)
"""


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops.cc"]\nout = "pkg"\n')
    (tmp_path / "ops.cc").write_text(OPS)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(INIT)
    return tmp_path


def _build(capsys, *args: str) -> tuple[int, str]:
    code = main(["build", *args])
    return code, capsys.readouterr().err


def test_an_import_of_a_hidden_op_is_a_located_warning(project, capsys):
    code, err = _build(capsys)
    assert code == 0, err
    assert ("pkg/__init__.py:4:5: warning: __init__.py imports gone from generated module gen_ops, which does not "
            "define it: `import pkg` fails with ImportError") in err
    assert "drop gone from this import, or import what replaced it" in err
    assert err.count("warning:") == 1  # small, twice, s, the star and the other package's import are fine

    (project / "overrides").mkdir()
    (project / "overrides" / "ops.pbtxt").write_text('op { name: "Twice" hide: true }\n')
    code, err = _build(capsys, "--check")
    assert code == 1  # (the module changes)
    assert "pkg/__init__.py:1:29: warning: __init__.py imports twice from generated module gen_ops" in err
    assert "hint: an override hides the op: its function is _twice; import that, or drop twice" in err
    code, err = _build(capsys, "--check", "--warnings-as-errors")
    assert code == 2 and "imports twice from generated module gen_ops" in err


def test_split_modules_and_their_packages(tmp_path):
    """A split module (a package of parts) is checked through its `__init__.py`; a user's file
    that does not parse, a generated file, and other imports are left alone."""
    out = tmp_path / "out"
    (out / "gen_big").mkdir(parents=True)
    (out / "__init__.py").write_text("from .gen_big import a, b, c\nfrom .gen_small import d\n")
    (out / "broken.py").write_text("from .gen_big import (\n")
    generated = {
        "gen_big/__init__.py": b"from ._part_1 import a as a\nif TYPE_CHECKING:\n    def b(): ...\nelse:\n    b = 1\n",
        "gen_big/_part_1.py": b"def a(): ...\n",
        "gen_small.py": b"d: int = 0\n",
    }
    errors = missing_imports(out, generated, generated.__getitem__)
    assert [(e.location.line, e.location.col, e.message.split(":")[0]) for e in errors] == [
        (1, 28, "__init__.py imports c from generated module gen_big, which does not define it")]
