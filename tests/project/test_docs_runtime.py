"""docs/runtime.md's "Public surface" list is `opgen_runtime.__all__`: each exported name once,
nothing else (a name added to `__all__` needs its line on the page)."""

from __future__ import annotations

import re

from support.paths import REPO

import opgen_runtime


def test_runtime_doc_public_surface_lists_exactly_all():
    text = (REPO / "docs" / "runtime.md").read_text(encoding="utf-8")
    section = text.split("\nPublic surface: `opgen_runtime.__all__`", 1)[1].split("\n\n", 2)[1]
    lines = section.splitlines()
    assert lines and all(line.startswith("- `") for line in lines), section
    # the names of a line: the code spans before its first ": "
    listed = [name for line in lines for name in re.findall(r"`(\w+)`", line[2:].split(": ", 1)[0])]
    assert sorted(listed) == sorted(opgen_runtime.__all__)
    assert len(listed) == len(set(listed)), "a name listed twice"
