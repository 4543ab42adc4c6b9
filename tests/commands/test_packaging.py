"""The two distributions built from this repository: opgen (the generator: templates, the
scaffold, its own protos) and opgen-runtime (runtime/: what generated modules import, with
protobuf as its only dependency). `pip install ./runtime` in a fresh venv installs protobuf and
opgen-runtime and nothing else, and the committed generated modules import and run with it."""

from __future__ import annotations

import re
import shutil
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from support import fresh_venv
from support.paths import REPO


def _requires(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(archive.read(metadata).decode()).get_all("Requires-Dist") or []


def test_opgen_wheel_ships_templates_scaffold_and_its_protos(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(
        REPO,
        src,
        symlinks=True,  # opgen/_templates and opgen_runtime are symlinks
        ignore=shutil.ignore_patterns(".git", "tests", "generated", "build", "*.egg-info", "__pycache__"),
    )
    wheel = fresh_venv.build_wheel(src, tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {p.name for p in (REPO / "templates").glob("*.j2")}
    assert templates, "no templates in templates/"
    assert {f"opgen/_templates/{t}" for t in templates} <= names
    assert {f"opgen/_scaffold/{p.name}" for p in (REPO / "opgen" / "_scaffold").glob("*.j2")} <= names
    assert "opgen/proto/api_def.proto" in names and "opgen/proto/api_def_pb2.py" in names
    assert not [n for n in names if n.startswith("opgen_runtime/")], "the runtime ships in opgen-runtime"
    assert "opgen-runtime==0.1.0" in _requires(wheel)


def test_runtime_wheel_holds_the_runtime_and_its_protos_and_needs_protobuf_only(tmp_path):
    wheel = fresh_venv.build_wheel(REPO / "runtime", tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"opgen_runtime/__init__.py", "opgen_runtime/version.py", "opgen_runtime/atypes.pyi",
            "opgen_runtime/py.typed",
            "opgen_runtime/shapes/fns/__init__.py", "opgen_runtime/proto/datatypes.py",
            "opgen_runtime/proto/op_def.proto", "opgen_runtime/proto/op_def_pb2.py"} <= names
    assert {n.split("/")[0] for n in names} == {"opgen_runtime", wheel.name.split("-")[0] + "-0.1.0.dist-info"}
    assert [re.split(r"[<>=!~;\s]", r)[0] for r in _requires(wheel)] == ["protobuf"]


@pytest.fixture(scope="module")
def runtime_venv(tmp_path_factory) -> Path:
    """A fresh venv after `pip install ./runtime` (of a copy: pip builds in the source tree)."""
    root = tmp_path_factory.mktemp("runtime-venv")
    python = fresh_venv.create(root / "venv")
    before = fresh_venv.distributions(python)
    # (not __pycache__: another test's process may be writing a .pyc there, which copytree would race)
    shutil.copytree(REPO / "runtime", root / "runtime",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    fresh_venv.run(python, "-m", "pip", "install", "-q", root / "runtime")
    assert fresh_venv.distributions(python) - before == {"opgen-runtime", "protobuf"}
    return python


_EMBEDDED = """
import sys
import gen_array_ops, gen_custom_ops, gen_functional_ops, gen_list_ops, gen_math_ops, gen_nn_ops, gen_state_ops
from opgen_runtime import Graph, dtypes

g = Graph()
with g.as_default():
    y = gen_math_ops.add([[1.0, 2.0]], 3.0)
    z = gen_custom_ops.opgen_example_clamp(y, lo=0.0, hi=3.5)
    parts = gen_array_ops.split(value=z, split_dim=1, num_split=2)
    v = gen_state_ops.variable_v2(shape=[2], dtype=dtypes.float32)
nodes = [(n.name, n.op) for n in g.as_graph_def().node]
assert ("Add", "Add") in nodes and ("OpgenExampleClamp", "OpgenExampleClamp") in nodes, nodes
assert [str(p.shape) for p in parts] == ["(1, 1)", "(1, 1)"], parts
assert str(v.shape) == "(2,)" and v.dtype == dtypes.float32_ref, v
for name in ("opgen", "jinja2", "click", "black", "tensorflow", "numpy"):
    try:
        __import__(name)
    except ImportError:
        continue
    raise AssertionError(f"{name} is importable in the runtime-only venv")
print("ok")
"""


def test_generated_modules_run_on_the_runtime_alone(runtime_venv, tmp_path):
    shutil.copytree(REPO / "generated", tmp_path / "generated")
    assert fresh_venv.run(runtime_venv, "-c", _EMBEDDED, cwd=tmp_path / "generated").strip() == "ok"
