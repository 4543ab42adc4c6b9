"""Wrapper modules for an OpList from both generators: `opgen build` and TF's own.

`opgen_module` renders the OpList with `opgen build` (cached by content under
${XDG_CACHE_HOME:-~/.cache}/opgen_runtime-wrappers/, keyed by the OpList and the
generator's sources) and imports it; `tf_module` is what `tf.load_op_library` builds:
TF's `GetPythonWrappers` on the same OpList, executed as a module.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import types
from pathlib import Path

from support.paths import REPO


def _cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "opgen" / "runtime-wrappers"


def _generator_sources() -> bytes:
    """Everything `opgen build` output depends on besides its input: the generator's sources."""
    parts = []
    for folder in (REPO / "opgen", REPO / "templates"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in (".py", ".j2") and "runtime" not in path.parts:
                parts.append(path.read_bytes())
    return b"\0".join(parts)


def opgen_module(op_list_bytes: bytes, package: str) -> tuple[types.ModuleType, dict[str, str]]:
    """The generated module `<package>.gen_tf_ops` and its function name per op name."""
    key = hashlib.sha256(op_list_bytes + _generator_sources()).hexdigest()[:20]
    out = _cache_root() / key
    module_path = out / "gen" / "gen_tf_ops.py"
    if not module_path.exists():
        (out / "overrides").mkdir(parents=True, exist_ok=True)
        (out / "tf_ops.pb").write_bytes(op_list_bytes)
        subprocess.run(
            [sys.executable, "-m", "opgen", "build", "tf_ops.pb", "--overrides", "overrides", "--out", "gen"],
            cwd=out,
            check=True,
            capture_output=True,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
        )
    from support.call_wrappers import record_build_dir

    record_build_dir(out / "gen")  # every wrapper gets called (support/call_wrappers.py)
    name = f"{package}.gen_tf_ops"
    spec = importlib.util.spec_from_file_location(name, module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # registration marks the module's functions (see registry.py)
    spec.loader.exec_module(module)
    source_map = json.loads((out / "gen" / "opgen_sourcemap.json").read_text())["modules"]["gen_tf_ops.py"]
    functions = {entry["op"]: fn for fn, entry in source_map.items() if hasattr(module, fn)}
    return module, functions


def tf_module(op_list_bytes: bytes) -> types.ModuleType:
    """TF's generated wrappers for the OpList, as `tf.load_op_library` makes them."""
    from tensorflow.python.framework import _pywrap_python_op_gen

    source = _pywrap_python_op_gen.GetPythonWrappers(op_list_bytes)
    module = types.ModuleType("tf_wrappers_" + hashlib.sha1(source).hexdigest()[:12])
    exec(source, module.__dict__)
    return module
