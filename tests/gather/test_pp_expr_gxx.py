"""`#if` arithmetic against g++ -E (differential): thousands of small expressions over
literals at the edges of intmax_t/uintmax_t (signed and unsigned, decimal, hex, octal,
character literals) and every operator, written into one file that g++ preprocesses once.

For each expression E that g++ accepts, opgen's value must give the same verdict as g++ for
`#if E`, for `#if ((E) * 0 - 1) < 0` (E's type: signed or unsigned) and for `#if (E) == V`
with V opgen's value (so the value itself, not only its truth). Where g++ rejects E (an
error such as division by zero, or the warnings opgen makes errors: signed overflow and a
literal beyond 64 bits), opgen must raise a located error.
"""

from __future__ import annotations

import itertools
import random
import re
import shutil
import subprocess

import pytest

from opgen.errors import OpgenError
from opgen.spec.cpp_lexer import SourceFile, tokenize
from opgen.spec.pp_expr import evaluate_if_expression

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")

LITERALS = ["0", "1", "-1", "2", "0u", "1u", "-1u", "0xFFFFFFFFFFFFFFFF", "0x7FFFFFFFFFFFFFFF",
            "(-9223372036854775807-1)", "9223372036854775808", "63", "64", "-65", "3ull", "07", "1'000",
            "0b101", "'\\xff'", "'a'", "'ab'", "'\\377\\377\\377\\377'", "'é'",
            "u'a'", "u'\\U0001F600'", "L'ab'", "L'\\xff'", "U'\\x80000000'", "1z", "5uz"]
BINARY = ["+", "-", "*", "/", "%", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "|", "^", "&&", "||", ","]
UNARY = ["-", "+", "~", "!"]
CORE = ["0", "1", "-1", "2", "0u", "1u", "0xFFFFFFFFFFFFFFFF", "0x7FFFFFFFFFFFFFFF", "(-9223372036854775807-1)",
        "64", "-65", "'\\xff'", "u'a'"]
# g++ warnings that opgen makes errors; any other warning leaves the expression accepted
REJECTING_WARNINGS = ("integer overflow in preprocessor expression", "integer constant is too large for its type")


def _random_expression(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(LITERALS)
    kind = rng.random()
    if kind < 0.15:
        return f"{rng.choice(UNARY)}({_random_expression(rng, depth - 1)})"
    if kind < 0.3:
        a, b, c = (_random_expression(rng, depth - 1) for _ in range(3))
        return f"({a}) ? ({b}) : ({c})"
    a, b = _random_expression(rng, depth - 1), _random_expression(rng, depth - 1)
    return f"({a}) {rng.choice(BINARY)} ({b})"


def expressions() -> list[str]:
    cases = [f"{a} {op} {b}" for a, b in itertools.product(CORE, CORE) for op in BINARY]
    cases += [f"{op}{a}" for op in UNARY for a in LITERALS]
    cases += [f"{op}({a})" for op in UNARY for a in CORE]
    cases += [f"({a} {op} {b}) < 0" for a, b in itertools.product(LITERALS, ["1", "1u", "-1"]) for op in "+-*/%"]
    cases += [f"{c} ? {a} : {b}" for c in ("0", "1") for a, b in itertools.product(CORE, CORE)]
    # operands not evaluated: no division by zero, no overflow
    cases += ["0 && 1 / 0", "1 || 1 % 0", "0 ? 1 / 0 : 2", "1 ? 2 : 1 / 0", "0 && (0x7FFFFFFFFFFFFFFF + 1)",
              "1 || -(-9223372036854775807-1)", "0 && 1 << 64", "(0 ? 1 / 0 : -1) < 0", "(1 ? -1 : 1 / 0u) > 0",
              "(0 && 1 / 0) + 1", "1, 0", "(1, 2) == 2", "0 ? 1 : 2, 3", "1 ? 1, 0 : 1"]
    rng = random.Random(20240531)
    cases += [_random_expression(rng, 3) for _ in range(1500)]
    return cases


def _opgen(expr: str) -> tuple[int, bool] | None:
    """(value, unsigned) of `#if expr` by opgen, None when it is an error."""
    toks = tokenize(SourceFile("<test>", f"#if {expr}\n"))
    try:
        value = evaluate_if_expression(toks[2:], toks[1])
        # the type: `((E) * 0 - 1) < 0` holds only for a signed E
        kind = evaluate_if_expression(tokenize(SourceFile("<test>", f"#if (({expr}) * 0 - 1) < 0\n"))[2:], toks[1])
    except OpgenError:
        return None
    return value, not kind


def _literal(value: int) -> str:
    if value == -(1 << 63):
        return "(-9223372036854775807-1)"
    return str(value) if value < 0 else f"{value:#x}" + ("u" if value >> 63 else "")


def test_if_arithmetic_matches_gxx():
    cases = expressions()
    ours = [_opgen(e) for e in cases]
    conditions: list[tuple[int, str, bool | None]] = []  # (case, condition, opgen's verdict)
    for k, (expr, got) in enumerate(zip(cases, ours, strict=True)):
        conditions.append((k, expr, None if got is None else got[0] != 0))
        if got is not None:
            value, unsigned = got
            signed_value = value - (1 << 64) if unsigned and value >> 63 else value
            conditions.append((k, f"(({expr}) * 0 - 1) < 0", not unsigned))
            conditions.append((k, f"({expr}) == {_literal(value if unsigned else signed_value)}", True))
    source = "".join(f"#if {c}\nT{n}\n#else\nF{n}\n#endif\n" for n, (_, c, _) in enumerate(conditions))
    gxx = subprocess.run(["g++", "-E", "-P", "-x", "c++", "-std=c++17", "-"], input=source, capture_output=True,
                         text=True, check=False)
    rejected: set[int] = set()  # conditions g++ rejects (by the line of their #if)
    for m in re.finditer(r"^<stdin>:(\d+):\d+: (warning|error): (.*)$", gxx.stderr, re.MULTILINE):
        if m.group(2) == "error" or m.group(3).startswith(REJECTING_WARNINGS):
            rejected.add((int(m.group(1)) - 1) // 5)
    verdicts = {int(w[1:]): w[0] == "T" for w in gxx.stdout.split()}
    mismatches = []
    for n, (k, condition, verdict) in enumerate(conditions):
        if n in rejected:
            if verdict is not None:
                mismatches.append(f"#if {condition}: g++ rejects it, opgen reads {verdict}")
        elif verdict is None:
            mismatches.append(f"#if {condition}: opgen rejects it, g++ reads {verdicts.get(n)}")
        elif verdicts.get(n) != verdict:
            mismatches.append(f"#if {condition}: g++ reads {verdicts.get(n)}, opgen {verdict} (value {ours[k]})")
    assert not mismatches, f"{len(mismatches)} of {len(conditions)} differ:\n" + "\n".join(mismatches[:30])
    assert len(conditions) > 6000 and len(rejected) > 100  # both kinds are really exercised


# Character literals whose universal character names or source bytes g++ may refuse: a
# surrogate or a value beyond 0x7FFFFFFF in any literal, a value beyond Unicode in u'' (kept
# in U'' and L''), bytes that are not UTF-8 in a wide literal ("\udcff" is the byte 0xFF, as
# the preprocessor decodes a file that is not UTF-8)
CHAR_LITERALS = ["L'\\ud800'", "u'\\U0000d800'", "U'\\udfff'", "'\\ud800'", "u8'\\uDBFF'", "L'\\U0000DC00'",
                 "U'\\U00110000'", "L'\\U00110000'", "u'\\U00110000'", "L'\\U7FFFFFFF'", "L'\\U80000000'",
                 "U'\\UFFFFFFFF'", "u'\\xd800'", "L'\\xdfff'", "u'\\ud7ff'", "u'\\ue000'", "U'\\U0010FFFF'",
                 "u'\\U0001F600'", "L'é'", "u'é'", "U'é'", "'\\u00e9'", "u8'\\u00e9'", "'\\udcff'",
                 "'\udcff'", "u8'\udcff'", "L'\udcff'", "u'\udcff'", "U'\udcff'"]


def test_character_literals_match_gxx():
    ours = [_opgen(c) for c in CHAR_LITERALS]
    conditions = [c if v is None else f"{c} == {_literal(v[0])}" for c, v in zip(CHAR_LITERALS, ours, strict=True)]
    source = "".join(f"#if {c}\nT{n}\n#else\nF{n}\n#endif\n" for n, c in enumerate(conditions))
    gxx = subprocess.run(["g++", "-E", "-P", "-x", "c++", "-std=c++17", "-"],
                         input=source.encode("utf-8", "surrogateescape"), capture_output=True, check=False)
    stderr = gxx.stderr.decode("utf-8", "replace")
    rejected = {(int(m.group(1)) - 1) // 5 for m in re.finditer(r"^<stdin>:(\d+):\d+: error: ", stderr, re.MULTILINE)}
    verdicts = {int(w[1:]): w[0] == "T" for w in gxx.stdout.decode().split()}
    got = {c: "rejected" if n in rejected else "accepted" if verdicts.get(n) else f"differs ({v})"
           for n, (c, v) in enumerate(zip(CHAR_LITERALS, ours, strict=True))}
    assert got == {c: "accepted" if v is not None else "rejected" for c, v in zip(CHAR_LITERALS, ours, strict=True)}
    assert list(got.values()).count("rejected") > 10
