"""Golden tests of the scanner (lexer + preprocessor + chain extraction) over
tests/scanner_corpus/*.cc: each case's Registrations, with every location, must equal
<case>.golden.json. A first line `// defines: A B=2` gives -D options; `include/` is on
the include path. Regenerate after checking the change by hand:
  OPGEN_UPDATE_GOLDEN=1 pytest tests/gather/test_chains.py
"""

from __future__ import annotations

import json
import os

import pytest
from support.paths import TESTS

from opgen.errors import Location
from opgen.model import Registration
from opgen.spec.chains import extract_registrations
from opgen.spec.helpers import BUILTIN_HELPERS, helper_table
from opgen.spec.preprocessor import Preprocessor

CORPUS = TESTS / "scanner_corpus"
CASES = sorted(p.stem for p in CORPUS.glob("*.cc"))
USER_HELPERS = {"kUserConstant": "c: int = 0", "UserHelper": "h: float = 1.5"}


def _loc(loc: Location, case_file: str) -> str:
    where = f"{loc.line}:{loc.col}"
    return where if loc.path == case_file else f"{loc.path}:{where}"


def dump_registrations(regs: list[Registration], case_file: str) -> list[dict]:
    return [
        {
            "op": r.op_name,
            "loc": _loc(r.loc, case_file),
            **({"system": True} if r.system else {}),
            "calls": [
                {
                    "method": c.method,
                    "loc": _loc(c.loc, case_file),
                    "args": [{"kind": a.kind, "value": a.value, "loc": _loc(a.loc, case_file)} for a in c.args],
                }
                for c in r.calls
            ],
        }
        for r in regs
    ]


def scan_case(case: str) -> list[dict]:
    path = CORPUS / f"{case}.cc"
    first_line = path.read_text().split("\n", 1)[0]
    defines = first_line.split(":", 1)[1].split() if first_line.startswith("// defines:") else []
    cwd = os.getcwd()
    os.chdir(CORPUS)
    try:
        tokens = Preprocessor(defines, ["include"]).run(f"{case}.cc")
        regs, errors = extract_registrations(tokens, helper_table(USER_HELPERS))
    finally:
        os.chdir(cwd)
    assert errors == []
    return dump_registrations(regs, f"{case}.cc")


@pytest.mark.parametrize("case", CASES)
def test_golden(case):
    got = scan_case(case)
    golden = CORPUS / f"{case}.golden.json"
    if os.environ.get("OPGEN_UPDATE_GOLDEN") == "1":
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
    assert got == json.loads(golden.read_text())


def test_user_helper_overrides_builtin():
    table = helper_table({"GetPaddingAttrString": "padding: {'SAME'}"})
    assert table["GetPaddingAttrString"] == "padding: {'SAME'}"
    assert table["GetMirrorPadModeAttrString"] == BUILTIN_HELPERS["GetMirrorPadModeAttrString"]
