"""The preprocessor: unit tests, and differential tests against real g++.

Differential method: `g++ -E` preprocesses a macro-heavy source (no TensorFlow headers, so
REGISTER_OP stays a plain identifier); scanning g++'s output (which has no directives or
macros left) must give the same chains as scanning the original source with our
preprocessor. Compared: op names, methods, argument kinds and values (expressions as
token lists); locations are ours only.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import TESTS

from opgen.errors import OpgenError
from opgen.spec.chains import extract_registrations
from opgen.spec.cpp_lexer import SourceFile, tokenize
from opgen.spec.preprocessor import Preprocessor, parse_define_option

CORPUS = TESTS / "scanner_corpus"
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")


def texts(path: Path, defines=(), include_dirs=()) -> list[str]:
    return [t[1] for t in Preprocessor(defines, include_dirs).run(str(path))]


def write(tmp_path: Path, text: str, name: str = "t.cc") -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


# (source, -D options, the tokens it expands to)
EXPANSIONS = [
    pytest.param("#define A 1 + B\n#define B 2\n#define F(x, y) x * y\nA; F(A, (3, 4));\n", [],
                 ["1", "+", "2", ";", "1", "+", "2", "*", "(", "3", ",", "4", ")", ";"],
                 id="object_and_function_macros"),
    pytest.param("#define F(x) x\nint F; F (1);\n", [], ["int", "F", ";", "1", ";"],
                 id="function_macro_name_without_parens_is_not_invoked"),
    pytest.param('#define S(x) #x\n#define C(a, b) a ## b\n#define XS(x) S(x)\n'
                 'S( a  "b\\n"  c ); C(x, 1); XS(C(y, z));\n', [],
                 ['"a \\"b\\\\n\\" c"', ";", "x1", ";", '"yz"', ";"], id="stringize_and_paste"),
    pytest.param("#define V(a, ...) a: __VA_ARGS__\n#define G(x...) x\nV(1, 2, 3) V(4) G(5, 6)\n", [],
                 ["1", ":", "2", ",", "3", "4", ":", "5", ",", "6"], id="variadic"),
    pytest.param("#define foo foo + 1\n#define f(x) x f(x)\nfoo; f(2);\n", [],
                 ["foo", "+", "1", ";", "2", "f", "(", "2", ")", ";"], id="self_reference_is_not_expanded_again"),
    pytest.param("#define A 1\nA\n#undef A\nA\n#define A 2\nA\n", [], ["1", "A", "2"], id="undef_and_redefine"),
    pytest.param("#if 0\na\n#elif 1\nb\n#elif 1\nc\n#else\nd\n#endif\n#ifdef X\ne\n#elifndef X\nf\n#endif\n", [],
                 ["b", "f"], id="elif_chain_takes_first_true_branch_only"),
    pytest.param("#if 0\n#frobnicate\ndon't\n#error no\n#if garbage (\n#endif\n#endif\nok\n", [], ["ok"],
                 id="skipped_groups_ignore_unknown_directives_and_bad_literals"),
    pytest.param("SQ(3) A\n", ["SQ(x)=((x) * (x))", "A="], ["(", "(", "3", ")", "*", "(", "3", ")", ")"],
                 id="function_like_define_option"),
]


@pytest.mark.parametrize(("source", "defines", "tokens"), EXPANSIONS)
def test_expansion(tmp_path, source, defines, tokens):
    assert texts(write(tmp_path, source), defines) == tokens


@pytest.mark.parametrize("expr,value", [
    ("1 + 2 * 3 == 7", True), ("(1 + 2) * 3 == 9", True), ("-7 / 2 == -3 && -7 % 2 == -1", True),
    ("1 ? 0 : 1", False), ("0 || 2 && 3", True), ("!defined(NOPE) && defined X", True),
    ("X == 5 && Y == 1", True), ("UNDEFINED_NAME == 0", True), ("true && !false", True),
    ("(1 << 4) - (32 >> 1) | 2 ^ 3 & 1", True), ("0x10 == 020 && 'a' == 97", True),
])
def test_if_expressions(tmp_path, expr, value):
    p = write(tmp_path, f"#if {expr}\nyes\n#else\nno\n#endif\n")
    assert texts(p, ["X=5", "Y"]) == (["yes"] if value else ["no"])


@needs_gxx
def test_unsigned_if_arithmetic_keeps_what_gxx_keeps(tmp_path):
    """`#if` operands with `u`, or too big for intmax_t, make the operation unsigned (trial31
    #1: only the first three groups were kept); tests/gather/test_pp_expr_gxx.py checks
    thousands of expressions."""
    conditions = ["0x10 == 16", "010 == 8", "(1 ? 2 : 3) == 2", "(-1 < 0u) == 0", "-1 > 0u", "(0u - 1) > 0",
                  "-1 / 2u > 0", "0xFFFFFFFFFFFFFFFF > 0", "(1 ? -1 : 0u) > 0", "-1u == 0xFFFFFFFFFFFFFFFF",
                  "(0 && 1 / 0) == 0", "(1u << 63 >> 63) == 1", "(-1 >> 63) == -1", "1 << -1 == 0", "(1, 2) == 2",
                  "'\\xff' < 0", "u'a' - 98 > 0", "'ab' == 24930"]
    p = write(tmp_path, "".join(f"#if {c}\nyes{k}\n#endif\n" for k, c in enumerate(conditions)))
    gxx = subprocess.run(["g++", "-E", "-P", "-x", "c++", "-std=c++17", str(p)], capture_output=True, text=True,
                         check=True)
    assert texts(p) == gxx.stdout.split() == [f"yes{k}" for k in range(len(conditions))]


@needs_gxx
def test_defined_from_a_macro_expansion_is_evaluated_as_gxx_does(tmp_path):
    """`#define HAS_YES defined(YES)` then `#if HAS_YES` (trial31 #2): `defined` is read where
    it stands after expansion, its operand unexpanded; a macro's argument is expanded first,
    so `F(ZERO)` for `F(x) defined(x)` is `defined(0)`, an error in both."""
    good = ("#define YES\n#define ZERO 0\n#define HAS_YES defined(YES)\n#define HAS_ZERO defined ZERO\n"
            "#define D defined\n#define F(x) defined(x)\n#define HASN defined(NOPE) || 0\n"
            "#if HAS_YES\na1\n#endif\n#if HAS_ZERO\na2\n#endif\n#if D YES\na3\n#endif\n#if D(ZERO)\na4\n#endif\n"
            "#if F(NOPE)\na5\n#else\nb5\n#endif\n#if HASN\na6\n#else\nb6\n#endif\n")
    p = write(tmp_path, good)
    gxx = subprocess.run(["g++", "-E", "-P", "-x", "c++", str(p)], capture_output=True, text=True, check=True)
    assert texts(p) == gxx.stdout.split() == ["a1", "a2", "a3", "a4", "b5", "b6"]
    bad = write(tmp_path, good + "#if F(ZERO)\n#endif\n#define E(x) x\n#if E(defined(ZERO))\n#endif\n"
                "#define DD defined\n#if DD\n#endif\n", "bad.cc")
    gxx = subprocess.run(["g++", "-E", "-P", "-x", "c++", str(bad)], capture_output=True, text=True, check=False)
    assert sorted({int(line) for line in re.findall(r"^[^:]+:(\d+):\d+: error", gxx.stderr, re.M)}) == [30, 33, 36]
    with pytest.raises(OpgenError) as e:
        Preprocessor().run(str(bad))
    errors = e.value.errors  # type: ignore[attr-defined]
    assert [(err.location.line, err.message) for err in errors] == [(n, 'operator "defined" requires an identifier')
                                                                   for n in (30, 33, 36)]
    assert errors[0].location.expanded_from[0] == "expansion of macro 'F'"


def test_include_search_order_and_guards(tmp_path):
    write(tmp_path, "#define WHERE local\n", "src/m.h")
    write(tmp_path, "#define WHERE idir\n#define ONLY_IDIR 1\n", "inc/m.h")
    write(tmp_path, "#pragma once\n#define ONCE_COUNT ONCE_COUNT + 1\nonce\n", "inc/once.h")
    p = write(tmp_path, '#include "m.h"\n#include "once.h"\n#include "once.h"\n#include <vector>\n'
              '#include "tensorflow/core/framework/op.h"\nWHERE\n', "src/t.cc")
    assert texts(p, include_dirs=[str(tmp_path / "inc")]) == ["once", "local"]


def test_include_search_walks_up_to_the_project_root(tmp_path):
    """The including file's directory, each directory above it up to the nearest
    pyproject.toml or .git, then -I; never above the root."""
    write(tmp_path, "#define ABOVE_ROOT 1\n", "outer/above.h")
    write(tmp_path, "", "outer/proj/.git")  # a worktree's .git is a file
    write(tmp_path, "#define UTIL util\n", "outer/proj/proj/ops/util.h")
    write(tmp_path, "#define SHARED shared\n", "outer/proj/proj/shared.h")
    write(tmp_path, "#define SHARED idir\n#define ONLY_IDIR only_idir\n", "inc/shared.h")
    write(tmp_path, "#define ONLY_IDIR only_idir\n", "inc/idir.h")
    p = write(tmp_path, '#include "proj/ops/util.h"\n#include "shared.h"\n#include "idir.h"\n'
              '#include "above.h"\n#include <proj/shared.h>\nUTIL SHARED ONLY_IDIR ABOVE_ROOT\n',
              "outer/proj/proj/ops/deep/a.cc")
    pp = Preprocessor((), [str(tmp_path / "inc")])
    assert [t[1] for t in pp.run(str(p))] == ["util", "shared", "only_idir", "ABOVE_ROOT"]
    [missing] = pp.missing_includes
    assert (missing.target, missing.location.line, missing.location.col) == ("above.h", 4, 10)
    ops = tmp_path / "outer/proj/proj/ops"
    assert missing.searched == (str(ops / "deep"), str(ops), str(ops.parent), str(ops.parent.parent),
                                str(tmp_path / "inc"))


def test_include_search_without_a_project_marker_stops_at_the_working_directory(tmp_path, monkeypatch):
    write(tmp_path, "#define TOP top\n", "work/top.h")
    p = write(tmp_path, '#include "top.h"\nTOP\n', "work/src/a.cc")
    monkeypatch.chdir(tmp_path / "work")
    assert texts(Path("src/a.cc")) == ["top"]
    monkeypatch.chdir(tmp_path / "work" / "src")  # the working directory is below top.h
    pp = Preprocessor()
    assert [t[1] for t in pp.run(str(p))] == ["TOP"]
    assert pp.missing_includes[0].searched == (str(p.parent),)


def test_define_options():
    assert parse_define_option("F(a, b)=a") == ("F(a, b)", "a")
    assert parse_define_option("A") == ("A", "1")
    assert parse_define_option("A=") == ("A", "")
    assert parse_define_option("A=x=y") == ("A", "x=y")
    with pytest.raises(OpgenError, match="macro names must be identifiers"):
        parse_define_option("1A")


def test_macro_locations_point_at_use_site(tmp_path):
    p = write(tmp_path, '#define UNARY() Input("x: T")\n\nREGISTER_OP("A")\n   .UNARY();\n')
    regs, errors = extract_registrations(Preprocessor().run(str(p)), {})
    assert not errors
    call = regs[0].calls[0]
    assert (call.loc.line, call.loc.col, call.args[0].loc.line, call.args[0].loc.col) == (4, 5, 4, 5)


def test_pcpp_pitfall_hash_lines_in_raw_docs(tmp_path):
    p = write(tmp_path, 'REGISTER_OP("A").Doc(R"doc(\n#include "nope.h"\n# Heading\n#endif\n)doc");\n')
    regs, errors = extract_registrations(Preprocessor().run(str(p)), {})
    assert not errors
    assert regs[0].calls[0].args[0].value == '\n#include "nope.h"\n# Heading\n#endif\n'


# ------------------------------------------------------------------ g++ differential


def _normalize(regs):
    out = []
    for r in regs:
        calls = []
        for c in r.calls:
            args = [(a.kind, _tokens(a.value) if a.kind == "expr" else a.value) for a in c.args]
            calls.append((c.method, args))
        out.append((r.op_name, r.system, calls))
    return out


def _tokens(expr: str) -> list[str]:
    """An expression's tokens: g++ drops comments and respaces, we keep the source text."""
    return [t[1] for t in tokenize(SourceFile("expr", expr))]


def _gxx_scan(path: Path, defines, include_dirs, tmp_dir: Path):
    cmd = ["g++", "-E", "-P", "-x", "c++", "-std=c++17", *[f"-D{d}" for d in defines],
           *[f"-I{d}" for d in include_dirs], str(path)]
    result = subprocess.run(cmd, capture_output=True, text=True, check=True)
    out = tmp_dir / "gxx_output.cc"
    out.write_text(result.stdout)
    regs, errors = extract_registrations(Preprocessor().run(str(out)), {"UserHelper": "h: int = 1"})
    assert not errors
    return _normalize(regs)


def _our_scan(path: Path, defines, include_dirs):
    regs, errors = extract_registrations(Preprocessor(defines, include_dirs).run(str(path)),
                                         {"UserHelper": "h: int = 1"})
    assert not errors
    return _normalize(regs)


def _without_external_includes(text: str) -> str:
    return re.sub(r'^\s*#\s*include\s*(<[^>]*>|"tensorflow/[^"]*")', "", text, flags=re.MULTILINE)


@needs_gxx
@pytest.mark.parametrize("case", ["macros", "conditionals", "continuations", "raw_strings", "includes",
                                  "comments_and_strings", "basic", "variadics"])
def test_corpus_matches_gxx(case, tmp_path):
    for f in [*CORPUS.glob("*.cc"), *CORPUS.glob("include/*.h")]:
        write(tmp_path, _without_external_includes(f.read_text()), str(f.relative_to(CORPUS)))
    src = tmp_path / f"{case}.cc"
    first = src.read_text().split("\n", 1)[0]
    defines = first.split(":", 1)[1].split() if first.startswith("// defines:") else []
    include_dirs = [str(tmp_path / "include")]
    ours = _our_scan(src, defines, include_dirs)
    assert ours
    assert ours == _gxx_scan(src, defines, include_dirs, tmp_path)


_WORDS = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True)


@st.composite
def macro_sources(draw):
    """Random macro libraries (each macro may use the earlier ones) and chains using them."""
    lines = [
        "#define STR(x) #x",
        "#define XSTR(x) STR(x)",
        "#define CAT(a, b) a##b",
        "#define STR_ALL(...) #__VA_ARGS__",
        "#define EMPTY_MACRO",
    ]
    uses: list[str] = []  # chain fragments (after the dot) that expand to builder calls
    values: list[str] = ["1", "2", "3"]  # object-like integer macros for #if
    registrations = ['REGISTER_OP("Op{k}"){chain};']  # templates of registration statements
    for i in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["call0", "object", "stringize", "passthrough", "paste", "nested",
                                     "variadic", "string_macro", "int_macro", "stringize_literal",
                                     "paren_arg", "empty_arg", "whole_registration", "gnu_comma", "va_opt",
                                     "va_opt_string",
                                     "paren_name"]))
        name = f"M{i}"
        word = draw(_WORDS)
        if kind == "call0":
            lines.append(f'#define {name}() Input("{word}: float").Output("o{i}: float")')
            uses.append(f"{name}()")
        elif kind == "object":
            lines.append(f'#define {name} Attr("{word}: int = {i}")')
            uses.append(name)
        elif kind == "stringize":
            lines.append(f'#define {name}(a, b) Input(#a ": " #b)')
            uses.append(f"{name}({word}, float)")
        elif kind == "passthrough":
            lines.append(f"#define {name}(call) call")
            uses.append(f'{name}(Doc("{word}  (x, y)"))')
        elif kind == "paste":
            lines.append(f'#define {name}(a, b) Input(XSTR(CAT(a, b)) ": int32")')
            uses.append(f"{name}({word}, _{i})")
        elif kind == "nested" and uses:
            inner = draw(st.sampled_from(uses))
            lines.append(f'#define {name}() {inner}.Output("n{i}: int32")')
            uses.append(f"{name}()")
        elif kind == "variadic":
            lines.append(f"#define {name}(...) Doc(#__VA_ARGS__)")
            uses.append(f"{name}({word},   {word}  x,y)")
        elif kind == "string_macro":
            lines.append(f'#define {name} "{word}: " "string"')
            uses.append(f"Attr({name})")
        elif kind == "stringize_literal":
            lines.append(f"#define {name}(x) Doc(#x)")
            uses.append(f'{name}("{word} \\"q\\" \\\\ \\n" \'c\')')
        elif kind == "paren_arg":
            lines.append(f"#define {name}(x, y) Doc(#x #y)")
            uses.append(f"{name}((a, {word}), [b]  /* c */ (c,d))")
        elif kind == "empty_arg":
            lines.append(f'#define {name}(a, b) Input(#a "{word}: " #b)')
            uses.append(f"{name}(, float)")
        elif kind == "whole_registration":
            lines.append(f'#define {name}(n) REGISTER_OP(#n).Input("w: float")')
            registrations.append(f"{name}(Whole{i}){{chain}};")
        elif kind == "gnu_comma":  # the comma goes only when the variadic argument is left out
            lines.append(f"#define {name}(a, ...) Doc(STR_ALL(a, ## __VA_ARGS__))")
            extra = draw(st.sampled_from(["", ",", ", x", ",const y", ", (p, q)", ", EMPTY_MACRO"]))
            uses.append(f"{name}({word}{extra})")
        elif kind == "va_opt":  # __VA_OPT__'s content only when the variadic argument expands to tokens
            lines.append(f'#define {name}(a, ...) Attr(#a ": int" __VA_OPT__(" = " #__VA_ARGS__))')
            extra = draw(st.sampled_from(["", ",", ", 3", ", EMPTY_MACRO", ", 4 EMPTY_MACRO"]))
            uses.append(f"{name}({word}{extra})")
        elif kind == "va_opt_string":  # `#__VA_OPT__(...)`: the substituted content as a string, else ""
            lines.append(f"#define {name}(a, ...) Doc(#a #__VA_OPT__(a: __VA_ARGS__ #a))")
            extra = draw(st.sampled_from(["", ",", ", 3", ", EMPTY_MACRO", ", 4 EMPTY_MACRO", ', "q\\n" x  y']))
            uses.append(f"{name}({word}{extra})")
        elif kind == "paren_name":
            lines.append(f'#define {name}(n) ("Prefix" ">" #n)')
            registrations.append(f"REGISTER_OP({name}(Paren{i}{{k}})){{chain}};")
        elif kind == "int_macro":
            lines.append(f"#define {name} ({i} + {draw(st.integers(0, 9))})")
            values.append(name)
    body = []
    for k in range(draw(st.integers(1, 4))):
        chain = draw(st.lists(st.sampled_from(uses), max_size=4)) if uses else []
        a, b = draw(st.sampled_from(values)), draw(st.sampled_from(values))
        op = draw(st.sampled_from(["+", "-", "*", "==", "!=", "<", ">=", "&&", "||", "&", "|", "^", "<<", "%", "/"]))
        guard = f"({a}) {op} (({b}) + 20)"
        call = ("." + ".".join(chain)) if chain else ""
        reg = draw(st.sampled_from(registrations)).format(k=k, chain=call)
        body += [f"#if {guard}", reg, "#else", f'REGISTER_OP("Else{k}"){call};', "#endif"]
    return "\n".join(lines + body) + "\n"


@needs_gxx
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(macro_sources())
def test_random_macros_match_gxx(tmp_path_factory, source):
    tmp = tmp_path_factory.mktemp("gxx")
    src = write(tmp, source)
    assert _our_scan(src, (), ()) == _gxx_scan(src, (), (), tmp)


def test_has_include_bom_and_stray_backslash_in_dead_code(tmp_path):
    write(tmp_path, "", "x.h")
    p = tmp_path / "t.cc"
    p.write_bytes(b'\xef\xbb\xbf#if __has_include("x.h") && !__has_include("nope.h") && __has_include(<vector>)\n'
                  b"yes\n#endif\n#if 0\nC:\\path\n#endif\n")
    assert texts(p) == ["yes"]


def test_tensorflow_framework_headers_are_never_read(tmp_path):
    write(tmp_path, "#error TF's own headers are not preprocessed\n", "inc/tensorflow/core/framework/op.h")
    write(tmp_path, "#define FROM_TF_CHECKOUT ok\n", "inc/tensorflow/my_ops/macros.h")
    p = write(tmp_path, '#include "tensorflow/core/framework/op.h"\n#include "tensorflow/my_ops/macros.h"\n'
              '#include "tensorflow/not/found.h"\nFROM_TF_CHECKOUT\n')
    assert texts(p, include_dirs=[str(tmp_path / "inc")]) == ["ok"]


def test_directives_between_macro_arguments(tmp_path):
    p = write(tmp_path, "#define ID(x, y) x y\nID(\n#ifdef GPU\n  gpu,\n#else\n  cpu,\n#endif\n  end)\n")
    assert texts(p) == ["cpu", "end"]
    assert texts(p, ["GPU"]) == ["gpu", "end"]


@st.composite
def if_expressions(draw, depth=3):
    """Random #if expressions (bounded, so no 64-bit overflow, no division by zero)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(["0", "1", "7", "0x1F", "010", "'A'", "NUM", "(NUM + 1)", "UNDEFINED",
                                     "defined(NUM)", "defined UNDEFINED", "true", "false"]))
    kind = draw(st.sampled_from(["unary", "binary", "binary", "ternary"]))
    a = draw(if_expressions(depth - 1))
    if kind == "unary":
        return f"{draw(st.sampled_from(['-', '!', '~', '+']))}({a})"
    b = draw(if_expressions(depth - 1))
    if kind == "ternary":
        return f"({a}) ? ({b}) : ({draw(if_expressions(depth - 1))})"
    op = draw(st.sampled_from(["+", "-", "*", "/", "%", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "|", "^",
                               "&&", "||"]))
    if op in ("/", "%"):
        b = f"(({b}) | 1)"
    elif op in ("<<", ">>"):
        b = f"(({b}) & 7)"
    return f"({a}) {op} {b}"


@needs_gxx
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(if_expressions(), min_size=1, max_size=12))
def test_random_if_expressions_match_gxx(tmp_path_factory, exprs):
    tmp = tmp_path_factory.mktemp("ifexpr")
    body = "".join(f"#if {e}\nT{k}\n#else\nF{k}\n#endif\n" for k, e in enumerate(exprs))
    src = write(tmp, "#define NUM 5\n" + body)
    gxx = subprocess.run(["g++", "-E", "-P", "-x", "c++", "-std=c++17", str(src)], capture_output=True, text=True,
                         check=True).stdout.split()
    assert texts(src) == gxx


def test_crlf_line_endings(tmp_path):
    p = tmp_path / "t.cc"
    p.write_bytes(b'#define UNARY() \\\r\n  Input("x: float")\r\nREGISTER_OP("A")\r\n  .UNARY();\r\n')
    regs, errors = extract_registrations(Preprocessor().run(str(p)), {})
    assert not errors
    assert [(c.method, c.args[0].value, c.loc.line, c.loc.col) for c in regs[0].calls] == [("Input", "x: float", 4, 4)]


@needs_gxx
def test_hide_sets_follow_prossers_rule(tmp_path):
    """The C standard's own example: the `)` of an invocation decides what stays hidden."""
    p = write(tmp_path, "#define f(a) a*g\n#define g(a) f(a)\nf(2)(9);\n#define h(x) x\n#define q h(q\nq));\n")
    gxx = subprocess.run(["g++", "-E", "-P", "-x", "c++", str(p)], capture_output=True, text=True, check=True)
    assert texts(p) == ["2", "*", "9", "*", "g", ";", "q", ")", ";"]
    assert "".join(texts(p)) == "".join(gxx.stdout.split())


_VA_OPT_STRING_CASES = """#define S(a, ...) #__VA_OPT__(a __VA_ARGS__)
#define T(x, ...) x #__VA_OPT__( x   ,  "q\\n" __VA_ARGS__ ) end
#define E(...) #__VA_OPT__()
#define G(a, ...) #__VA_OPT__(a ## __VA_ARGS__ #a)
#define H(a, ...) # __VA_OPT__ (ONE a)
#define K(a, ...) [#__VA_OPT__(a)|a]
#define ONE 1
#define F(x) fx
#define EMPTY
S(1, 2 3) S(1) S(1,) S(1, EMPTY) S(ONE, ONE F(2)) S( a  b , c   d )
T(y, 'c' "s") T(y)
E(1) E()
G(x, y) G(x)
H(2, 3) K(ONE, 1)
"""


@needs_gxx
@pytest.mark.parametrize("std", ["c++17", "c++20"])
def test_stringized_va_opt_matches_gxx(tmp_path, std):
    """`#__VA_OPT__(content)`: the content after substitution and pasting (arguments
    macro-expanded, the body's own macros not), stringized; `""` when the variadic argument
    is empty."""
    p = write(tmp_path, _VA_OPT_STRING_CASES)
    gxx = subprocess.run(["g++", "-E", "-P", "-x", "c++", f"-std={std}", str(p)], capture_output=True, text=True,
                         check=True)
    assert texts(p) == _tokens(gxx.stdout)
    assert '"y , \\"q\\\\n\\" \'c\' \\"s\\""' in texts(p)


@needs_gxx
@pytest.mark.parametrize(("body", "message", "col"), [
    ("#define L(a, ...) #__VA_OPT__(__VA_OPT__(a))", "__VA_OPT__ may not appear in a __VA_OPT__", 31),
    ("#define X(a) #__VA_OPT__(a)", "'#' is not followed by a macro parameter", 14),
    ("#define X(a, ...) #__VA_OPT__", "unterminated __VA_OPT__", 20),
])
def test_bad_stringized_va_opt_fails_like_gxx(tmp_path, body, message, col):
    p = write(tmp_path, body + "\nX(1)\n")
    gxx = subprocess.run(["g++", "-E", "-P", "-x", "c++", "-std=c++20", str(p)], capture_output=True, text=True,
                         check=False)
    assert gxx.returncode != 0 and message in gxx.stderr
    with pytest.raises(OpgenError) as e:
        Preprocessor().run(str(p))
    assert e.value.location.line == 1 and e.value.location.col == col and message in e.value.message
