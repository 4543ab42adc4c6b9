"""Golden corpus: tests/golden/render/<case>/{specs,overrides?,expected}.

Each case is built with `opgen build` (C++ specs through the real front end, override
files through opgen.overrides.load) and compared byte for byte with `expected/`. Cases cover
the naming, signature, default-rendering, docstring and override rules; regenerate after
a deliberate change with OPGEN_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import os
import shutil

import pytest
from support.paths import TESTS

from opgen.cli import main

GOLDEN = TESTS / "golden" / "render"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "specs").is_dir())


@pytest.mark.parametrize("case", CASES)
def test_golden_case(case, tmp_path, monkeypatch, capsys):
    src = GOLDEN / case
    root = tmp_path / case
    shutil.copytree(src / "specs", root / "specs")
    has_overrides = (src / "overrides").is_dir()
    if has_overrides:
        shutil.copytree(src / "overrides", root / "overrides")
    # the sources declare TF's own ops on purpose: keep them (docs/gathering.md, core ops)
    (root / "pyproject.toml").write_text(
        '[tool.opgen]\ncore_ops = ["*"]\nsources = ["specs"]\nout = "out"\n'
        + ('overrides = "overrides"\n' if has_overrides else 'overrides = ""\n'),
        encoding="utf-8",
    )
    monkeypatch.chdir(root)
    assert main(["build"]) == 0, capsys.readouterr().err
    produced = {p.relative_to(root / "out").as_posix(): p.read_bytes() for p in sorted((root / "out").rglob("*"))
                if p.is_file() and not p.name.startswith(".opgen-")}
    expected_dir = src / "expected"
    if os.environ.get("OPGEN_UPDATE_GOLDEN") == "1":
        shutil.rmtree(expected_dir, ignore_errors=True)
        shutil.copytree(root / "out", expected_dir, ignore=shutil.ignore_patterns(".opgen-*"))
    expected = {
        p.relative_to(expected_dir).as_posix(): p.read_bytes() for p in sorted(expected_dir.rglob("*")) if p.is_file()
    }
    assert sorted(produced) == sorted(expected)
    for name, data in produced.items():
        assert data.decode() == expected[name].decode(), name


def test_every_rule_family_has_a_case():
    assert {"naming", "signature", "defaults", "docstrings", "overrides"} <= set(CASES)
