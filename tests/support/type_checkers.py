"""mypy --strict and pyright over generated modules, as a user's checker sees them.

The runtime is read as an installed, typed package (`py.typed`): found on the checker's path
but its own code not reported (mypy `follow_imports = silent`, stubs included; pyright only
reports the files it is given), as for a user who installed opgen-runtime. One run of each
checker covers a whole corpus. Both return the diagnostics as (file name, line, message).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUNTIME = REPO / "runtime"

_MYPY_CONFIG = """\
[mypy]
strict = True
warn_unreachable = True
enable_error_code = deprecated
[mypy-opgen_runtime.*]
follow_imports = silent
follow_imports_for_stubs = True
[mypy-tensorflow.*]
ignore_missing_imports = True
"""


def pyright_missing() -> str | None:
    """Why pyright cannot run here, else None (the test extra installs it with Node.js)."""
    if importlib.util.find_spec("pyright") is None:
        return "pyright is not installed (pip install -e '.[test]' brings it)"
    return None


def run_mypy(files: list[Path], search_path: list[Path], work: Path,
             always_true: tuple[str, ...] = ()) -> list[tuple[str, int, str]]:
    """mypy --strict (and warn_unreachable) over `files`, modules also found in `search_path` and the runtime;
    names in `always_true` read as true constants (mypy's `always_true`)."""
    config = work / "mypy.ini"
    config.write_text(_MYPY_CONFIG.replace("[mypy]\n", f"[mypy]\nalways_true = {', '.join(always_true)}\n")
                      if always_true else _MYPY_CONFIG)
    env = dict(os.environ, MYPYPATH=os.pathsep.join(map(str, [*search_path, RUNTIME])))
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(work / "mypy-cache"),
         "--no-error-summary", "--show-error-codes", *map(str, files)],
        capture_output=True, text=True, check=False, env=env, cwd=work,
    )
    if proc.returncode not in (0, 1) or proc.stderr.strip():
        raise AssertionError(f"mypy failed to run ({proc.returncode}):\n{proc.stderr[-3000:]}{proc.stdout[-3000:]}")
    found = []
    for line in proc.stdout.splitlines():
        path, sep, rest = line.partition(": error: ")
        if sep:
            file, _, lineno = path.rpartition(":")
            found.append((Path(file).name, int(lineno), rest))
    if proc.returncode and not found:
        raise AssertionError(f"mypy failed without errors:\n{proc.stdout[-3000:]}")
    return found


def run_pyright(files: list[Path], search_path: list[Path], work: Path,
                define_constant: dict[str, bool] | None = None) -> list[tuple[str, int, str]]:
    """pyright (its default rules, and deprecated uses as errors) over `files`, modules also found in
    `search_path` and the runtime; `define_constant` as pyright's setting of that name."""
    config: dict[str, object] = {  # pyright reads paths relative to its config
        "include": [os.path.relpath(f, work) for f in files],
        "extraPaths": [os.path.relpath(p, work) for p in [*search_path, RUNTIME]],
        "pythonVersion": f"{sys.version_info.major}.{sys.version_info.minor}",
        "reportDeprecated": "error",  # as mypy's `deprecated` code: a deprecated alias's callers are flagged
        # two of strict mode's rules a package checking its own tree meets in the generated
        # modules (trial29 #2), as mypy's warn_unreachable above: their header turns them off
        "reportPrivateUsage": "error",
        "reportUnnecessaryComparison": "error",
        "defineConstant": define_constant or {},
    }
    (work / "pyrightconfig.json").write_text(json.dumps(config))
    proc = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable, "-p", str(work)],
        capture_output=True, text=True, check=False, cwd=work,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise AssertionError(
            f"pyright failed to run ({proc.returncode}):\n{proc.stderr[-3000:]}{proc.stdout[-3000:]}"
        ) from None
    assert report["summary"]["filesAnalyzed"] >= len(files), report["summary"]
    return [
        (Path(d["file"]).name, d["range"]["start"]["line"] + 1, d["message"])
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
