"""The override golden corpus tests/golden/overrides/<case>/ (`overrides/` in, expected
outputs beside it): its folder and its case names."""

from __future__ import annotations

from support.paths import TESTS

GOLDEN = TESTS / "golden" / "overrides"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
