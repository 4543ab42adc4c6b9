"""ruff and mypy over the repository, as configured in pyproject.toml ([tool.ruff], [tool.mypy]):
a finding fails the suite with the tool's own report."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from support.paths import REPO

from opgen.fsutil import cache_root


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, check=False)


def test_ruff_is_clean():
    result = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean():
    # A warm cache makes a run take seconds; one per clone, so two clones never share one.
    cache = cache_root() / f"mypy-{hashlib.sha256(str(REPO).encode()).hexdigest()[:16]}"
    result = _run("mypy", "--cache-dir", str(cache))
    assert result.returncode == 0, result.stdout + result.stderr
