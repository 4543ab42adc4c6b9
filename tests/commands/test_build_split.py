"""`[tool.opgen] max_ops_per_module` / `--max-ops-per-module`: a module with more ops is written
as a package of parts whose `__init__.py` re-exports them, so it imports, exports and builds
graphs as the one-file module does; off by default, deterministic, and `--check` clean."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO
from support.projects import op_specs_project

from opgen.cli import main
from opgen.module_groups import BIG_MODULE_OPS

SPECS = ("math_ops.cc", "common_macros.h")  # 20 ops, all in gen_math_ops


def _project(tmp_path: Path, extra: str = "") -> Path:
    return op_specs_project(tmp_path, SPECS, extra)


def _build(root: Path, monkeypatch, *argv: str) -> int:
    monkeypatch.chdir(root)
    return main(["build", "--quiet", *argv])


def _modules(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*.py"))


# Imports the one-file module and the split one in a fresh process: their public names,
# wrappers (not the translated shape functions each part registers), registered ops, and the
# GraphDef one wrapper builds in each.
_COMPARE = """
import importlib, json, sys, types
from opgen_runtime import Graph
from opgen_runtime.ops import registry
result = {}
for name in sys.argv[1:]:
    sys.path.insert(0, name)
    module = importlib.import_module("gen_math_ops")
    functions = sorted(n for n, v in vars(module).items() if not n.startswith("_shape_fn_")  # the parts' own
                       and isinstance(v, types.FunctionType) and v.__module__.startswith("gen_math_ops"))
    with Graph().as_default() as g:
        module.add(1.0, 2.0)
    result[name] = {"all": module.__all__, "functions": functions, "file": module.__file__,
                    "ops": sorted(op for m in registry._modules for op in registry.op_defs_of(m)),
                    "graph": g.as_graph_def().SerializeToString(deterministic=True).hex()}
    for loaded in [m for m in sys.modules if m.startswith("gen_math_ops")]:
        del sys.modules[loaded]
    sys.path.remove(name)
    registry._entries.clear()
    registry._modules.clear()
print(json.dumps(result))
"""


def test_split_module_imports_exports_and_builds_as_one_module(tmp_path, monkeypatch):
    root = _project(tmp_path, "max_ops_per_module = 8\n")
    assert _build(root, monkeypatch, "--out", "whole", "--max-ops-per-module", "21") == 0  # the option wins
    assert _build(root, monkeypatch) == 0
    out = root / "gen"
    assert _modules(root / "whole") == ["gen_math_ops.py"]
    assert _modules(out) == ["gen_math_ops/__init__.py", "gen_math_ops/_part1.py", "gen_math_ops/_part2.py",
                             "gen_math_ops/_part3.py"]
    source_map = json.loads((out / "opgen_sourcemap.json").read_text())["modules"]
    assert source_map["gen_math_ops/__init__.py"] == {}
    whole_map = json.loads((root / "whole" / "opgen_sourcemap.json").read_text())["modules"]["gen_math_ops.py"]
    parts = [source_map[f"gen_math_ops/_part{i}.py"] for i in (1, 2, 3)]
    assert all(len(p) <= 8 for p in parts) and {k: v for p in parts for k, v in p.items()} == whole_map
    init = (out / "gen_math_ops" / "__init__.py").read_text()
    assert init.startswith((root / "whole" / "gen_math_ops.py").read_text().split("\n\n", 2)[0])  # same docstring
    assert "from ._part1 import add as add\n" in init
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", _COMPARE, str(root / "whole"), str(out)], cwd=root, env=env,
                          capture_output=True, text=True, check=True)
    whole, split = json.loads(proc.stdout).values()
    assert split["file"].endswith(os.path.join("gen_math_ops", "__init__.py"))
    assert split["all"] == whole["all"] and split["functions"] == whole["functions"]
    assert split["ops"] == whole["ops"] and len(whole["ops"]) == 20
    assert split["graph"] == whole["graph"]


def test_split_build_is_deterministic_check_clean_and_undone(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, 'max_ops_per_module = 10\nlibrary = "_math.so"\n')
    assert _build(root, monkeypatch) == 0
    out = root / "gen"
    first = {p: (out / p).read_bytes() for p in _modules(out)}
    assert 'library="../_math.so"' in first["gen_math_ops/_part1.py"].decode()  # the part is one folder down
    assert _build(root, monkeypatch, "--out", "again") == 0
    assert {p: (root / "again" / p).read_bytes() for p in _modules(root / "again")} == first
    assert _build(root, monkeypatch, "--check") == 0
    capsys.readouterr()
    assert _build(root, monkeypatch, "--list-outputs") == 0
    listed = capsys.readouterr().out.split()
    assert [p for p in listed if p.endswith(".py")] == [f"gen/{p}" for p in sorted(first)]
    # without a manifest (a fresh clone), the source map still makes the parts opgen's
    (out / ".opgen-manifest.json").unlink()
    assert _build(root, monkeypatch, "--max-ops-per-module", "100") == 0
    assert _modules(out) == ["gen_math_ops.py"] and not (out / "gen_math_ops").exists()


@pytest.mark.parametrize("value", ["0", '"8"', "true"])
def test_max_ops_per_module_must_be_a_positive_integer(tmp_path, monkeypatch, capsys, value):
    root = _project(tmp_path, f"\nmax_ops_per_module = {value}\n")
    assert _build(root, monkeypatch) == 2
    err = capsys.readouterr().err
    assert err.startswith("pyproject.toml:7:1: error: [tool.opgen] max_ops_per_module must be a "
                          "positive integer")
    assert "hint: " in err


def test_a_module_too_big_for_one_file_hints_max_ops_per_module(tmp_path, monkeypatch, capsys):
    """A module of more than BIG_MODULE_OPS ops, written as one file because max_ops_per_module
    is unset, gets one warning at its first op hinting the setting; one of BIG_MODULE_OPS ops
    does not, nor any once the setting is given (a value above the module's size keeps one file)."""
    root = tmp_path / "p"
    (root / "specs").mkdir(parents=True)
    for name, op, count in (("at_ops", "AtOp", BIG_MODULE_OPS), ("over_ops", "OverOp", BIG_MODULE_OPS + 1)):
        (root / "specs" / f"{name}.cc").write_text("".join(f'REGISTER_OP("{op}{i}");\n' for i in range(count)))
    config = '[tool.opgen]\nsources = ["specs"]\nout = "gen"\n'
    (root / "pyproject.toml").write_text(config)
    assert _build(root, monkeypatch) == 0
    assert capsys.readouterr().err.splitlines() == [
        ("specs/over_ops.cc:1:1: warning: module gen_over_ops has 5,001 ops, written as one file: its first "
         "import compiles them all at once, about 0.6 s and 100 MB of memory per 1,000 ops (docs/rendering.md, "
         '"Big modules")'),
        ("  hint: set [tool.opgen] max_ops_per_module (e.g. max_ops_per_module = 1000) to write it as a package of "
         "parts, each compiled on its own; a value of 5001 or more keeps one file and this warning away"),
    ]
    (root / "pyproject.toml").write_text(config + f"max_ops_per_module = {BIG_MODULE_OPS + 1}\n")
    assert _build(root, monkeypatch, "--check") == 0 and capsys.readouterr().err == ""
