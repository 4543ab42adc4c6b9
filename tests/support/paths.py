"""The repository and tests/ folders, so a test's folder depth does not matter."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
