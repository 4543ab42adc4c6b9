"""Malformed inputs: `opgen oplist` exits 2 with exactly the expected located error lines,
no traceback, and writes nothing.

Corpus format (tests/malformed/<case>/):
  input.cc       the source (any other files the case needs sit next to it: headers,
                 OpList files, ...);
  args.txt       optional: the `opgen oplist` arguments, one per line (default: input.cc);
  expected.txt   the exact stderr: `path:line:col: warning: message` lines (missing include
                 files), then one `path:line:col: error: message` line per error (a
                 4-space indented continuation of TF's message, then 2-space indented
                 `note: ...` (where in a macro's #define) and `hint: ...` lines may follow
                 one), then the summary line
                 (`3 errors in 2 files`); paths relative to the case folder (the test runs there).
Regenerate an expected.txt only after checking the new message by hand:
  OPGEN_UPDATE_GOLDEN=1 pytest tests/gather/test_malformed.py
"""

from __future__ import annotations

import os
import re

import pytest
from support.paths import TESTS

from opgen.cli import main

CORPUS = TESTS / "malformed"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.txt").exists())


def test_corpus_is_large_enough():
    assert len(CASES) >= 90


@pytest.mark.parametrize("case", CASES)
def test_malformed(case, tmp_path, monkeypatch, capsys):
    folder = CORPUS / case
    args_file = folder / "args.txt"
    args = args_file.read_text().split("\n")[:-1] if args_file.exists() else ["input.cc"]
    out = tmp_path / "out.pbtxt"
    monkeypatch.chdir(folder)

    rc = main(["oplist", *args, "-o", str(out)])

    captured = capsys.readouterr()
    if os.environ.get("OPGEN_UPDATE_GOLDEN") == "1":
        (folder / "expected.txt").write_text(captured.err)
    expected = (folder / "expected.txt").read_text()
    assert rc == 2
    assert captured.err == expected
    assert "Traceback" not in captured.err
    assert captured.out == ""
    assert not out.exists()
    *lines, summary = captured.err.splitlines()
    assert re.fullmatch(r"\d+ errors?( in \d+ files?)?(, \d+ warnings?)?", summary), summary
    for line in lines:
        assert ": error: " in line or ": warning: " in line or line.startswith(("  note: ", "  hint: ", "    ")), line
