"""The C++ lexer: tokens, literal decoding, locations through line continuations, and a
hypothesis test that random mixes of comments, strings, raw strings, continuations and
decoys around REGISTER_OP chains scan to exactly the chains that were written."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opgen.errors import OpgenError
from opgen.spec.chains import extract_registrations
from opgen.spec.cpp_lexer import (
    SourceFile,
    char_literal_units,
    decode_escapes,
    parse_int_literal,
    token_location,
    tokenize,
)
from opgen.spec.preprocessor import Preprocessor


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t[0], t[1]) for t in tokenize(SourceFile("t.cc", text))]


def test_tokens_and_comments():
    assert kinds('a /* REGISTER_OP("X") */ b // c "d\n"e" \'f\' 1.5e+3 0x1fULL ->* <<= ## ...') == [
        ("id", "a"), ("id", "b"), ("str", '"e"'), ("chr", "'f'"), ("num", "1.5e+3"), ("num", "0x1fULL"),
        ("op", "->*"), ("op", "<<="), ("op", "##"), ("op", "..."),
    ]


def test_prefixed_and_raw_literals():
    assert kinds('u8"a" L"b" R"x(a)" )x" u8R"(c)" LR"(d)"') == [
        ("str", 'u8"a"'), ("str", 'L"b"'), ("raw", 'R"x(a)" )x"'), ("raw", 'u8R"(c)"'), ("raw", 'LR"(d)"'),
    ]


def test_directive_hash_is_first_on_its_line():
    toks = tokenize(SourceFile("t.cc", '#define A 1\n  # if A\nx # y\n/* c */ #endif\n/* a\n b */ #pragma'))
    assert [(t[1], t[5]) for t in toks if t[1] == "#"] == [("#", True), ("#", True), ("#", False), ("#", True),
                                                           ("#", True)]


def test_block_comment_spanning_lines_keeps_directive_line():
    toks = tokenize(SourceFile("t.cc", "#define A 1 /* x\n y */ + 2\nB"))
    assert [(t[1], t[5]) for t in toks] == [("#", True), ("define", False), ("A", False), ("1", False),
                                            ("+", False), ("2", False), ("B", True)]


def test_locations_through_continuations():
    text = 'int a = 1; \\\n  int b\\\n = "x\\\ny";\nc'
    src = SourceFile("t.cc", text)
    toks = tokenize(src)
    got = {t[1]: str(token_location(t)) for t in toks}
    assert got["b"] == "t.cc:2:7"
    assert got['"xy"'] == "t.cc:3:4"
    assert got["c"] == "t.cc:5:1"


def test_escapes():
    tok = tokenize(SourceFile("t.cc", '"x"'))[0]
    assert decode_escapes(r"\x41\101\u00e9\U0001F600\n\t\\\"\'\?\0", tok) == "AAé😀\n\t\\\"'?\0".encode()
    with pytest.raises(OpgenError, match="unknown escape sequence"):
        decode_escapes(r"\q", tok)
    with pytest.raises(OpgenError, match="out of range"):
        decode_escapes(r"\x100", tok)


def test_character_literal_units():
    def units(text):
        return char_literal_units(tokenize(SourceFile("t.cc", text))[0])

    assert units(r"'a\n'") == [97, 10]
    assert units("'é'") == units(r"u8'\u00e9'") == [0xC3, 0xA9]
    assert units(r"u'\U0001F600'") == [0xD83D, 0xDE00]  # UTF-16; too long for one u'' (pp_expr's error)
    assert units(r"u'\xd800'") == [0xD800]  # a numeric escape is a code unit as it is, even a surrogate's
    assert units(r"U'\U0001F600\x41é'") == units(r"L'\U0001F600\101\u00e9'") == [0x1F600, 0x41, 0xE9]
    assert units(r"L'\U00110000'") == [0x110000]  # beyond Unicode: g++ -std=c++17 keeps it in 32 bits


@pytest.mark.parametrize("text,message", [
    # g++ -fsyntax-only: "1:9: error: \ud800 is not a valid universal character", in every literal
    (r"int a = L'\ud800';", r"t.cc:1:9: error: \ud800 is not a valid universal character"),
    (r"int a = u'\U0000d800';", r"t.cc:1:9: error: \U0000d800 is not a valid universal character"),
    (r"int a = U'\uDFFF';", r"t.cc:1:9: error: \uDFFF is not a valid universal character"),
    (r"int a = L'\U80000000';", r"t.cc:1:9: error: \U80000000 is not a valid universal character"),
    (r"int a = u8'\ud800';", r"t.cc:1:9: error: \ud800 is not a valid universal character"),
    (r"int a = '\ud800';", r"t.cc:1:9: error: \ud800 is not a valid universal character"),
    # g++: "converting UCN to execution character set" (no UTF-16 for it)
    (r"int a = u'\U00110000';", r"t.cc:1:9: error: \U00110000 is not a valid universal character: Unicode ends"),
    (r"int a = u'\x10000';", r"t.cc:1:9: error: escape sequence \x10000 out of range"),
    # g++: "converting to execution character set: Invalid or incomplete multibyte or wide character"
    ("int a = L'\udcff';", "t.cc:1:11: error: source file is not UTF-8 text"),
])
def test_character_literal_errors(text, message):
    tok = tokenize(SourceFile("t.cc", text))[3]
    with pytest.raises(OpgenError) as e:
        char_literal_units(tok)
    assert e.value.format().startswith(message)


def test_u8_string_surrogate_is_located_error(tmp_path):
    path = tmp_path / "ops.cc"
    path.write_text('REGISTER_OP("A")\n    .Doc(u8"x \\ud800");\n', encoding="utf-8")
    regs, errors = extract_registrations(Preprocessor().run(str(path)), {})
    assert regs == []
    # where g++ gives it (as in `auto s = u8"x \ud800";`): "\ud800 is not a valid universal character"
    assert [e.format() for e in errors] == [f"{path}:2:10: error: \\ud800 is not a valid universal character"]


@pytest.mark.parametrize("text,value", [("12", 12), ("012", 10), ("0", 0), ("0x1F", 31), ("0b101", 5),
                                        ("1'000", 1000), ("7ULL", 7), ("10l", 10), ("1.5", None), ("1e3", None)])
def test_int_literals(text, value):
    assert parse_int_literal(text) == value


@pytest.mark.parametrize("text,message", [
    ('x = "abc', None),  # unterminated "..." is reported only where used (g++ tolerates it in #if 0)
    ("/* abc", "t.cc:1:1: error: unterminated comment"),
    ('R"d(abc)e"', 't.cc:1:1: error: unterminated raw string literal: no )d" after R"d('),
    ('a R"d e(x)d e"', "t.cc:1:3: error: invalid raw string delimiter"),
])
def test_lexer_errors(text, message):
    if message is None:
        assert kinds(text)[-1][0] == "bad"
        return
    with pytest.raises(OpgenError) as e:
        tokenize(SourceFile("t.cc", text))
    assert e.value.format().startswith(message)


# ------------------------------------------------------------------ hypothesis

_TEXT = st.lists(
    st.sampled_from([*list("abcXYZ019 _:,{}=<>'\"\\()#/*\n\t"), "é", "✓", ')"', "*/", "//", "\n#if 0\n"]),
    max_size=16,
).map("".join)
_METHODS = st.sampled_from(["Input", "Output", "Attr", "Doc", "ControlOutput"])
_OP_NAME = st.from_regex(r"[A-Z][A-Za-z0-9]{0,8}", fullmatch=True)


def _plain_literal(draw, value: str) -> str:
    out = []
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append(draw(st.sampled_from(["\\t", "\\011", "\t"])))
        elif ch.isascii() and ch.isalpha() and draw(st.booleans()):
            out.append(f"\\{ord(ch):03o}")  # three octal digits never swallow what follows
        else:
            out.append(ch)
    body = "".join(out)
    if body and draw(st.booleans()):  # a line continuation anywhere inside the literal
        cut = draw(st.integers(0, len(body)))
        body = body[:cut] + "\\\n" + body[cut:]
    return '"' + body + '"'


def _raw_literal(draw, value: str) -> str:
    delim = draw(st.sampled_from(["", "doc", "x", "abcdefghijklmnop"]))
    while f"){delim}\"" in value + ")" or (delim == "" and ')"' in value):
        delim += "q"
    return f'R"{delim}({value}){delim}"'


def _literal(draw, value: str) -> str:
    """`value` as one or more adjacent literals, with noise between them."""
    pieces = []
    rest = value
    while True:
        if rest and len(pieces) < 3 and draw(st.booleans()):
            cut = draw(st.integers(0, len(rest)))
            part, rest = rest[:cut], rest[cut:]
        else:
            part, rest = rest, ""
        use_raw = draw(st.booleans()) and "\\" not in part[-1:]
        pieces.append(_raw_literal(draw, part) if use_raw else _plain_literal(draw, part))
        if not rest:
            break
        pieces.append(_noise(draw))
    return "".join(pieces)


_NOISE = [
    " ", "\n", "\t", "  \n    ", "/* REGISTER_OP(\"InComment\") */", "/* a\n * \" ' ( \n */", "// REGISTER_OP(\"X\")\n",
    "// a comment\n", " \\\n ", "/**/",
]


def _noise(draw) -> str:
    return "".join(draw(st.lists(st.sampled_from(_NOISE), max_size=3))) or " "


_DECOYS = [
    'static const char* k = "REGISTER_OP(\\"InString\\")";\n',
    'static const char* r = R"(REGISTER_OP("InRaw");)";\n',
    "static const char c = '\"';\n",
    '#if 0\nREGISTER_OP("InIfZero");\ndon\'t "care\n#endif\n',
    '// continued comment \\\nREGISTER_OP("Swallowed");\n',
    '/* REGISTER_OP("InBlock"); */\n',
    '#define DECOY REGISTER_OP("NeverExpanded")\n',
]


@st.composite
def sources(draw):
    ops = draw(st.lists(st.tuples(_OP_NAME, st.lists(st.tuples(_METHODS, _TEXT), max_size=4)), max_size=4))
    parts = ['#include "tensorflow/core/framework/op.h"\n']
    for name, calls in ops:
        parts.append(draw(st.sampled_from([*_DECOYS, "", "\n"])))
        chain = ["REGISTER_OP", _noise(draw) if draw(st.booleans()) else "", "(", _literal(draw, name), ")"]
        for method, value in calls:
            chain += [_noise(draw), ".", method, "(", _noise(draw), _literal(draw, value), _noise(draw), ")"]
        parts.append("".join(chain) + _noise(draw) + ";\n")
    return ops, "".join(parts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sources())
def test_random_chains_scan_exactly(tmp_path_factory, case):
    ops, text = case
    path = tmp_path_factory.mktemp("hyp") / "ops.cc"
    path.write_text(text, encoding="utf-8")
    regs, errors = extract_registrations(Preprocessor().run(str(path)), {})
    assert errors == []
    assert [(r.op_name, [(c.method, c.args[0].value) for c in r.calls]) for r in regs] == [
        (name, list(calls)) for name, calls in ops
    ]
    lines = text.split("\n")
    for r in regs:
        assert lines[r.loc.line - 1][r.loc.col - 1 :].startswith("REGISTER_OP")
        for c in r.calls:
            assert lines[c.loc.line - 1][c.loc.col - 1 :].startswith(c.method)
