"""Gathering sources into an OpList: source expansion, determinism, selective
registration, error collection, OpList files, the `opgen oplist` command, and the
differential test of a macro-heavy op library against TensorFlow itself."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.paths import TESTS

from opgen.cli import main
from opgen.errors import OpgenError, OpgenErrors
from opgen.spec.gather import GatherErrors, expand_sources, gather
from opgen.spec.oplist_io import dump_op_list, load_op_list_file
from opgen_runtime.proto import op_def_pb2

LIBRARY = TESTS / "gather_corpus" / "macro_library"
LIBRARY_DEFINES = ["MY_OPS_VERSION=2", "MY_WITH_EXPERIMENTAL"]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def names(op_list) -> list[str]:
    return [op.name for op in op_list.op]


def gather_library(**kw):
    return gather([str(LIBRARY / "ops")], defines=LIBRARY_DEFINES, include_dirs=[str(LIBRARY / "include")], **kw)


def test_library_ops_sorted_by_name():
    result = gather_library()
    assert names(result.op_list) == [
        "MyAdd", "MyAddN", "MyAssign", "MyAssignVariable", "MyConv2D", "MyExperimental", "MyHelperFormats",
        "MyHelperMirrorPad", "MyHelperPadding", "MyHelperPaddingExplicit", "MyIdentityN", "MyNeg", "MyReadVariable",
        "MyShapeAttrs", "MySquare", "MyStrCatAttrs",
    ]
    neg = result.sources["MyNeg"]
    assert (Path(neg.location.path).name, neg.location.line, neg.location.col) == ("math_ops.cc", 11, 1)
    assert neg.shape_fn == "::tensorflow::shape_inference::UnchangedShape"
    assert result.sources["MyAdd"].shape_fn is None  # a lambda


def test_inputs_list_every_file_read(tmp_path):
    write(tmp_path, {"a.cc": '#include "m.h"\n#include "tensorflow/core/framework/op.h"\nREGISTER_OP("A");',
                     "m.h": "#define M 1\n", "ops.pbtxt": 'op { name: "B" }', "allow.txt": "A\nB\n"})
    result = gather([str(tmp_path / "a.cc"), str(tmp_path / "ops.pbtxt")], allow_file=str(tmp_path / "allow.txt"))
    assert [Path(p).name for p in result.inputs] == ["a.cc", "allow.txt", "m.h", "ops.pbtxt"]


def test_include_internal_and_defines():
    result = gather_library(include_internal=True)
    assert "_MyInternal" in names(result.op_list)
    without = gather([str(LIBRARY / "ops")], include_dirs=[str(LIBRARY / "include")])
    assert "MyNotExperimental" in names(without.op_list)
    assert "MyExperimental" not in names(without.op_list)


def test_directories_scan_translation_units_only(tmp_path):
    write(tmp_path, {
        "a/x.cc": 'REGISTER_OP("X");', "a/b/y.cpp": 'REGISTER_OP("Y");', "a/h.h": 'REGISTER_OP("H");',
        "a/ops.pbtxt": 'op { name: "P" }', "a/.hidden/z.cc": 'REGISTER_OP("Z");', "a/notes.txt": "REGISTER_OP",
    })
    files = expand_sources([str(tmp_path / "a")])
    assert [Path(p).name for p in files.cpp] == ["y.cpp", "x.cc"]
    assert files.oplists == []
    assert names(gather([str(tmp_path / "a"), str(tmp_path / "a/h.h"), str(tmp_path / "a/*.pbtxt")]).op_list) == [
        "H", "P", "X", "Y",
    ]


def test_exclude_leaves_out_files_and_directories_of_directory_and_glob_sources(tmp_path):
    """`--exclude`: a data table too big for the token limit, a directory of generated files and
    a glob's match are not read; a file named on its own is; a pattern matching nothing warns."""
    from opgen.limits import MAX_TRANSLATION_UNIT_TOKENS

    table = "static const int kTable[] = {" + ",".join("1" * (MAX_TRANSLATION_UNIT_TOKENS // 2 + 1)) + "};\n"
    write(tmp_path, {
        "ops/x.cc": 'REGISTER_OP("MyX");', "ops/table.cc": table, "ops/gen/g.cc": 'REGISTER_OP("MyGen");',
        "ops/y_test.cc": 'REGISTER_OP("MyTest");', "ops/keep.cc": 'REGISTER_OP("MyKeep");',
    })
    ops = str(tmp_path / "ops")
    with pytest.raises(GatherErrors, match="tokens in this translation unit"):
        gather([ops])
    warnings: list[str] = []
    result = gather([ops, f"{ops}/keep.cc"], exclude=[f"{ops}/table.cc", f"{ops}/gen", f"{ops}/*_test.cc",
                                                      f"{ops}/keep.cc", f"{ops}/nothing*.cc"],
                    warn=warnings.append)
    assert names(result.op_list) == ["MyKeep", "MyX"]
    assert warnings == [f"warning: --exclude '{ops}/nothing*.cc' matches no file"]
    assert names(gather([f"{ops}/*.cc"], exclude=[f"{ops}/table.cc"], warn=warnings.append).op_list) == [
        "MyKeep", "MyTest", "MyX"]


def test_same_file_named_twice_is_read_once(tmp_path):
    write(tmp_path, {"ops/x.cc": 'REGISTER_OP("X");'})
    result = gather([str(tmp_path / "ops"), str(tmp_path / "ops/x.cc"), str(tmp_path / "ops/../ops/*.cc")])
    assert names(result.op_list) == ["X"]


def test_result_and_errors_do_not_depend_on_source_order(tmp_path):
    write(tmp_path, {
        "a.cc": 'REGISTER_OP("A").Input("x: float");\nREGISTER_OP("Dup");',
        "b.cc": 'REGISTER_OP("B").Output("y: int32");\nREGISTER_OP("Dup");',
    })
    a, b = str(tmp_path / "a.cc"), str(tmp_path / "b.cc")
    errors = []
    for order in ([a, b], [b, a]):
        with pytest.raises(OpgenErrors) as e:
            gather(order)
        errors.append(e.value.format())
    assert errors[0] == errors[1]
    assert "b.cc:2:1: error: Op with name Dup" in errors[0]
    write(tmp_path, {"b.cc": 'REGISTER_OP("B").Output("y: int32");'})
    assert dump_op_list(gather([a, b]).op_list, "pb") == dump_op_list(gather([b, a]).op_list, "pb")


def test_all_errors_of_all_files_are_collected(tmp_path):
    write(tmp_path, {
        "a.cc": 'REGISTER_OP("A").Input("x: floaty");\nREGISTER_OP("B").Attr(Unknown());\nREGISTER_OP("C");',
        "b.cc": '#if 1\nREGISTER_OP("D");',
        "c.cc": 'REGISTER_OP("E").Output("y: float").Output("y: float");',
    })
    with pytest.raises(OpgenErrors) as e:
        gather([str(tmp_path)])
    *lines, summary = e.value.format().splitlines()
    assert lines[1] == '  hint: did you mean the type \'float\'? (or declare the type attr: .Attr("floaty: type"))'
    lines = [line for line in lines if not line.startswith("  hint: ")]
    assert [line.split(": error: ")[0].replace(str(tmp_path) + os.sep, "") for line in lines] == [
        "a.cc:1:28", "a.cc:2:23", "b.cc:1:2", "c.cc:1:45"]  # (at `floaty`, at the second `y`)
    assert summary == "4 errors in 3 files"


def test_missing_sources_are_reported_with_the_other_errors(tmp_path):
    write(tmp_path, {"a.cc": 'REGISTER_OP("A").Input("x: floaty");'})
    with pytest.raises(OpgenErrors) as e:
        gather([str(tmp_path / "nope.cc"), str(tmp_path / "a.cc"), str(tmp_path / "*.pbtxt")])
    *lines, summary = e.value.format().splitlines()
    lines = [line for line in lines if not line.startswith("  hint: ")]
    assert [line.split(": error: ")[1][:24] for line in lines] == [
        "no such file or director", "glob matches no files", "Reference to unknown att",
    ]
    assert summary == "3 errors in 3 files"


def test_selective_registration(tmp_path):
    write(tmp_path, {
        "ops.cc": 'REGISTER_OP("Keep");\nREGISTER_OP("Drop");\nREGISTER_SYSTEM_OP("System");\n'
                  'REGISTER_OP("Bad").Input("x: nonsense");',
        "allow.txt": "# ops to keep\nKeep\n\n  OnlyInOpList  # trailing comment\n",
        "more.pbtxt": 'op { name: "OnlyInOpList" }\nop { name: "NotAllowed" }\n',
    })
    result = gather([str(tmp_path / "ops.cc"), str(tmp_path / "more.pbtxt")], allow_file=str(tmp_path / "allow.txt"))
    assert names(result.op_list) == ["Keep", "OnlyInOpList", "System"]


def test_oplist_file_sources_are_located_at_their_entries(tmp_path):
    write(tmp_path, {"ops.pbtxt": '# header\nop {\n  name: "B"\n}\nop { name: "A" attr { name: "op" type: "int" } }\n'})
    result = gather([str(tmp_path / "ops.pbtxt")])
    assert names(result.op_list) == ["A", "B"]
    assert (result.sources["A"].location.line, result.sources["B"].location.line) == (5, 2)


def test_oplist_formats_round_trip(tmp_path):
    op_list = gather_library(include_internal=True).op_list
    for fmt, suffix in (("pbtxt", ".pbtxt"), ("pb", ".pb"), ("json", ".json")):
        data = dump_op_list(op_list, fmt)
        assert data == dump_op_list(op_list, fmt)
        path = tmp_path / f"ops{suffix}"
        path.write_bytes(data)
        assert load_op_list_file(path) == op_list
    assert json.loads(dump_op_list(op_list, "json"))["op"][0]["name"] == "MyAdd"


def test_load_op_list_errors_are_located(tmp_path):
    bad = tmp_path / "bad.pbtxt"
    bad.write_text('op {\n  name: "A"\n  is_stateful: maybe\n}\n')
    with pytest.raises(OpgenError) as e:
        load_op_list_file(bad)
    assert e.value.format().startswith(f"{bad}:3:16: error: cannot parse text OpList")


def test_cli_oplist_formats_and_default_sources(tmp_path, monkeypatch, capsys):
    write(tmp_path, {
        # "A" and "B" are ops of TF's registry too: kept with core_ops
        "pyproject.toml": '[tool.opgen]\nsources = ["specs"]\ndefines = ["WITH_B"]\ninclude_dirs = ["inc"]\n'
                          'core_ops = ["A", "B"]\n'
                          '[tool.opgen.helpers]\nMySpec = "x: float"\n',
        "inc/m.h": '#define B_OP REGISTER_OP("B").Input(MySpec());\n',
        "specs/ops.cc": '#include "m.h"\nREGISTER_OP("A").Output("y: int32");\n#ifdef WITH_B\nB_OP\n#endif\n',
    })
    monkeypatch.chdir(tmp_path)
    assert main(["oplist", "-o", "out.pbtxt"]) == 0
    op_list = load_op_list_file(tmp_path / "out.pbtxt")
    assert names(op_list) == ["A", "B"]
    assert op_list.op[1].input_arg[0].name == "x"
    assert main(["oplist", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["op"][1]["input_arg"][0]["type"] == "DT_FLOAT"
    assert main(["oplist", "specs", "--format", "pb", "-o", "out.pb"]) == 0
    assert op_def_pb2.OpList.FromString((tmp_path / "out.pb").read_bytes()) == op_list
    assert main(["oplist", "specs", "-D", "NOTHING", "-o", "out2.pbtxt"]) == 0  # -D replaces the config's
    assert names(load_op_list_file(tmp_path / "out2.pbtxt")) == ["A"]


@pytest.mark.oracle
def test_macro_library_matches_tensorflow():
    """The whole library compiled by g++ against TF 2.21 and loaded with TF_LoadLibrary
    gives exactly our OpDefs (docs included); ops/helper_ops.cc checks every built-in
    helper string against TF's own function."""
    from oracle.tf_library import library_op_list

    ours = gather_library(include_internal=True).op_list
    theirs = library_op_list(sorted(LIBRARY.glob("ops/*.cc")), defines=LIBRARY_DEFINES,
                             include_dirs=[LIBRARY / "include"])
    theirs_sorted = op_def_pb2.OpList()
    theirs_sorted.op.extend(sorted(theirs.op, key=lambda op: op.name.encode()))
    assert names(ours) == names(theirs_sorted)
    for mine, tf_op in zip(ours.op, theirs_sorted.op):
        assert mine == tf_op, mine.name


_GENERATED_MACROS = r"""// Macros of the generated library (tests/gather/test_gather.py).
#ifndef GEN_MACROS_H_
#define GEN_MACROS_H_
#define GEN_STR(x) #x
#define GEN_XSTR(x) GEN_STR(x)
#define GEN_CAT(a, b) a##b
#define GEN_IN(name, type) Input(GEN_XSTR(name) ": " #type)
#define GEN_OUT(name, type) Output(GEN_XSTR(name) ": " #type)
#define GEN_INT_ATTR(name, def) Attr(#name ": int = " #def)
#define GEN_TYPE_ATTR(name) \
  Attr(#name ": {float, double, int32} = DT_FLOAT")
#define GEN_LIST_IN(name, n, t) Input(#name ": " #n " * " #t).Attr(#n ": int >= 1").Attr(#t ": type")
#define GEN_DOC(...) Doc(#__VA_ARGS__)
#define GEN_CALLS(...) __VA_ARGS__
#define GEN_REGISTER(name) REGISTER_OP(GEN_XSTR(GEN_CAT(Gen, name)))
#endif
"""


def _generated_op(rng, k: int) -> str:
    """One macro-heavy REGISTER_OP chain whose OpDef is valid."""
    calls = []
    typed = rng.random() < 0.5
    if typed:
        calls.append("GEN_TYPE_ATTR(T)")
    for j in range(rng.randint(0, 3)):
        calls.append(f"GEN_IN(GEN_CAT(in, {j}), {rng.choice(['float', 'int32', 'string'] + (['T'] if typed else []))})")
    for j in range(rng.randint(0, 2)):
        calls.append(f"GEN_OUT(GEN_CAT(out, {j}), {rng.choice(['float', 'int64'] + (['T'] if typed else []))})")
    for j in range(rng.randint(0, 2)):
        calls.append(f"GEN_INT_ATTR(a{j}, {rng.choice(['-3', '0', '7'])})")
    if rng.random() < 0.3:
        calls.append("GEN_LIST_IN(items, N, TL)")
    if rng.random() < 0.3:
        calls.append(
            rng.choice(["GEN_CALLS(SetIsStateful())", "GEN_CALLS(SetIsCommutative().SetAllowsUninitializedInput())"])
        )
    if rng.random() < 0.3:
        calls.append('Attr("level: int = " GEN_XSTR(GEN_LEVEL))')
    doc = rng.choice([
        None, f"GEN_DOC(Generated op {k}, with a comma.)",
        f'Doc(R"doc(\nSummary of op {k}.\n\n# A heading in the description.\n)doc")',
        f'Doc("Summary of op {k}.\\n\\nMore \\"text\\" \\\ncontinued.")',
    ])
    if doc:
        calls.append(doc)
    rng.shuffle(calls)
    sep = rng.choice(["\n    .", " .", "  /* c */\n    .", " \\\n    ."])
    chain = "".join(sep + c for c in calls)
    head = rng.choice([f"GEN_REGISTER(Op{k})", f'REGISTER_OP("GenOp{k}")'])
    if rng.random() < 0.25:
        return (f"#if GEN_LEVEL >= {rng.randint(1, 3)}\n{head}{chain};\n#else\n"
                f'REGISTER_OP("GenElse{k}").Output("y: float");\n#endif\n')
    return f"{head}{chain};\n"


@pytest.mark.oracle
def test_generated_macro_library_matches_tensorflow(tmp_path):
    """Sixty generated macro-heavy ops (fixed seed, so the compiled library is cached):
    g++ + TF_LoadLibrary and opgen give the same OpDefs."""
    import random

    from oracle.tf_library import library_op_list

    rng = random.Random(20261122)
    write(tmp_path, {"include/gen_macros.h": _GENERATED_MACROS})
    sources = []
    for f in range(2):
        body = "".join(_generated_op(rng, 30 * f + k) for k in range(30))
        name = f"gen_ops_{f}.cc"
        write(tmp_path, {name: f'#include "tensorflow/core/framework/op.h"\n#include "gen_macros.h"\n\n{body}'})
        sources.append(tmp_path / name)
    defines = ["GEN_LEVEL=2"]
    ours = gather([str(p) for p in sources], defines=defines, include_dirs=[str(tmp_path / "include")]).op_list
    theirs = library_op_list(sources, defines=defines, include_dirs=[tmp_path / "include"])
    theirs_sorted = op_def_pb2.OpList()
    theirs_sorted.op.extend(sorted(theirs.op, key=lambda op: op.name.encode()))
    assert len(ours.op) == 60
    assert names(ours) == names(theirs_sorted)
    for mine, tf_op in zip(ours.op, theirs_sorted.op):
        assert mine == tf_op, mine.name


def test_bytes_that_are_not_utf8_are_ignored_where_opgen_does_not_read_them(tmp_path):
    """g++ takes any bytes in comments and string literals: a Latin-1 author's name in a
    comment, a skipped group or a kernel's log message changes nothing; inside a registration
    it is the located error of tests/malformed/source_not_utf8*."""
    utf8 = ('// Author: J{u}rgen\nREGISTER_OP("A").Output("y: float").SetShapeFn([](InferenceContext* c) {{\n'
            '  // M{u}ller\n  return shape_inference::UnchangedShape(c);\n}});\n#if 0\nREGISTER_OP("{u}");\n#endif\n'
            'void Log() {{ LOG(INFO) << "gr{u}n"; }}\n')
    (tmp_path / "latin1.cc").write_bytes(utf8.format(u="\xfc").encode("latin-1"))
    (tmp_path / "utf8.cc").write_text(utf8.format(u="\xfc"), encoding="utf-8")
    latin1, utf8_result = gather([str(tmp_path / "latin1.cc")]), gather([str(tmp_path / "utf8.cc")])
    assert latin1.op_list == utf8_result.op_list
    assert names(latin1.op_list) == ["A"]
    # the lambda is read without its comment, and translates as from the UTF-8 file
    assert latin1.sources["A"].shape_fn_python == utf8_result.sources["A"].shape_fn_python
    assert latin1.sources["A"].shape_fn_kind == "lambda, translated"


def test_parenthesised_op_names_read_in_linear_time(tmp_path):
    """`REGISTER_OP((("Name")))` names the op like `REGISTER_OP("Name")`, whatever the depth,
    and `("A") ("B")` is no parenthesised name; 20,000 parentheses read at once, not in
    quadratic time."""
    deep = "(" * 20000 + '"Deep"' + ")" * 20000
    (tmp_path / "ops.cc").write_text(f'REGISTER_OP({deep}).Output("y: float");\n'
                                     'REGISTER_OP(("Shallow")).Output("y: float");\n')
    assert [op.name for op in gather([str(tmp_path / "ops.cc")]).op_list.op] == ["Deep", "Shallow"]
    (tmp_path / "ops.cc").write_text('REGISTER_OP(("A") ("B")).Output("y: float");\n')
    with pytest.raises(OpgenError):
        gather([str(tmp_path / "ops.cc")])


def test_parenthesised_builder_arguments_read_as_their_operand(tmp_path):
    """trial31 #8: `.Input(("x: float"))` is valid C++ with the literal's value (it was an
    error: 'takes a string, got an expression'); so are a parenthesised constant and number."""
    (tmp_path / "ops.cc").write_text('constexpr char kAttr[] = "n: int = 2";\n'
                                     'REGISTER_OP("Paren").Input(("x: float")).Output(((("y: float"))))'
                                     '.Attr((kAttr)).Attr(("m: int >= 1"));\n')
    [op] = gather([str(tmp_path / "ops.cc")]).op_list.op
    assert [(a.name, a.type) for a in op.input_arg] == [("x", 1)] and op.output_arg[0].name == "y"
    assert [(a.name, a.default_value.i, a.minimum) for a in op.attr] == [("n", 2, 0), ("m", 0, 1)]


def test_recursive_globs_match_like_glob_but_never_follow_a_link_cycle(tmp_path, monkeypatch):
    """`**` matches what `glob.glob(recursive=True)` matches (hidden names only when asked
    for), but does not descend into symbolic links to directories, as a directory source does
    not: two `-> .` links made glob's walk run without end."""
    import glob

    from opgen.fsutil import glob_paths

    monkeypatch.chdir(tmp_path)
    for path in ("ops/x.cc", "ops/a/y.cc", "ops/a/b/z.cc", "ops/.hid/h.cc", "ops/.dot.cc", "ops/c/w.h"):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(f'REGISTER_OP("Op{len(path)}").Output("y: float");\n')
    patterns = ["ops/**/*.cc", "ops/**", "**/*.cc", "ops/**/b/*.h", "**", "ops/**/.hid/*.cc", "o[p]s/**/*.cc",
                f"{glob.escape(str(tmp_path))}/ops/**/*.cc", "ops/*/y.cc"]
    for pattern in patterns:
        assert sorted(glob_paths(pattern)) == sorted(p.rstrip("/") for p in glob.glob(pattern, recursive=True))
    os.symlink(".", "ops/a/l1")
    os.symlink(".", "ops/a/l2")
    assert sorted(glob_paths("ops/**/*.cc")) == ["ops/a/b/z.cc", "ops/a/y.cc", "ops/x.cc"]
    assert sorted(op.name for op in gather(["ops/**/*.cc"]).op_list.op) == ["Op10", "Op12", "Op8"]


@pytest.mark.oracle
def test_a_nul_in_a_literal_ends_its_text_as_in_cpp(tmp_path, capsys):
    """TF's builder methods take `std::string`s made from C strings: a literal's text ends at
    its first NUL (g++ + TF_LoadLibrary agree), and opgen says what it drops, where."""
    from oracle.tf_library import library_op_list

    source = tmp_path / "nul_ops.cc"
    source.write_text('#include "tensorflow/core/framework/op.h"\n'
                      'REGISTER_OP("NulText\\0Ignored")\n'
                      '    .Input("x: float\\0 junk")\n'
                      '    .Output("y: float")\n'
                      '    .Attr("s: string = \'a\\\\0b\'")\n'  # an escaped NUL inside the default: kept
                      '    .Doc("Summary.\\0hidden" " too");\n')
    gathered = gather([str(source)])
    assert gathered.op_list == library_op_list([source])
    assert gathered.op_list.op[0].summary == "Summary."
    assert gathered.op_list.op[0].attr[0].default_value.s == b"a\0b"
    err = capsys.readouterr().err
    assert f"{source}:6:10: warning: the string literal in Doc() holds a NUL character" in err
    assert f"{source}:2:13: warning: the string literal in REGISTER_OP() holds a NUL character" in err
    assert "and 11 characters after it are dropped" in err  # `\0hidden too`
    assert "hint: remove the \\0 from the literal (write \\\\0 for a backslash and a 0)" in err


def test_a_nul_byte_in_a_literal_is_told_apart_from_the_escape(tmp_path, capsys):
    """A literal holding a real NUL byte (not the escape `\\0`) ends its text there the same way,
    but the warning says it is a byte, located at it, with a hint that fits (trial31 #3)."""
    source = tmp_path / "nul.cc"
    source.write_bytes(b'REGISTER_OP("Nul\0Op").Output("y: float");\n')
    gathered = gather([str(source)])
    assert names(gathered.op_list) == ["Nul"]
    err = capsys.readouterr().err
    assert err == (f"{source}:1:17: warning: the string literal in REGISTER_OP() holds a NUL byte (0x00, not the "
                   "escape \\0): TensorFlow reads it as a C string, so its text ends there ('Nul') and 3 characters "
                   "after it are dropped\n"
                   "  hint: delete the NUL byte from the file (editors may show it as ^@ or \\0, or not at all; "
                   "`tr -d '\\000'` deletes every NUL byte of a file)\n"), err


def test_an_allow_file_name_close_to_a_registered_op_warns_at_its_line(tmp_path, capsys):
    """trial24 #10: a misspelt name in the allow file silently dropped its op; one close to no
    op's name (another library's, in a shared list) stays quiet."""
    ops = 'REGISTER_OP("FwScale").Output("y: float");\nREGISTER_OP("FwOther").Output("y: float");\n'
    write(tmp_path, {"ops.cc": ops,
                     "allow.txt": "FwOther\n# scaling\nFwScal\nConv2D\n"})
    gathered = gather([str(tmp_path / "ops.cc")], allow_file=str(tmp_path / "allow.txt"))
    assert names(gathered.op_list) == ["FwOther"]
    err = capsys.readouterr().err
    assert err == (f"{tmp_path / 'allow.txt'}:3:1: warning: --allow names op 'FwScal', which no source registers\n"
                   "  hint: did you mean FwScale? (without it, that op is left out)\n")


def test_a_registration_in_a_function_body_is_read_with_a_warning(tmp_path):
    """trial31 #9: REGISTER_OP in a function, lambda or class method body declares a static
    local, which registers only when that code runs (a library whose function is never called
    lacks the op); opgen reads it and says so at each; file scope inside namespaces is fine."""
    (tmp_path / "ops.cc").write_text(
        'namespace tensorflow {\n'
        'void NeverCalled() {\n  REGISTER_OP("InFunction").Output("y: float");\n}\n'
        'struct S { static void f() { REGISTER_OP("InMethod").Output("y: float"); } };\n'
        'auto lam = []() { REGISTER_OP("InLambda").Output("y: float"); return 0; };\n'
        'REGISTER_OP("TopLevel").Output("y: float");\n'
        '}\n')
    result = gather([str(tmp_path / "ops.cc")])
    assert [op.name for op in result.op_list.op] == ["InFunction", "InLambda", "InMethod", "TopLevel"]
    source = tmp_path / "ops.cc"
    assert [w.split(": warning: ")[0] for w in result.warnings] == [f"{source}:3:3", f"{source}:5:30",
                                                                   f"{source}:6:19"]
    assert all("registers its op only when that code runs" in w for w in result.warnings)


def test_file_scope_is_told_by_the_brace_not_the_statement_start(tmp_path):
    """An inline namespace and a namespace after a call of an undefined macro with no `;` (the
    statement then starts at the macro) are file scope, as an `extern "C"` block is; an `extern "C"` function
    body is not. (File scope read at the start of the statement had them the other way round.)"""
    source = tmp_path / "ops.cc"
    source.write_text(
        'namespace tensorflow {\ninline namespace v1 {\nREGISTER_OP("InInline").Output("y: float");\n}\n}\n'
        'SETUP(1)\nnamespace tensorflow {\nREGISTER_OP("AfterMacro").Output("y: float");\n}\n'
        'extern "C" {\nREGISTER_OP("InExternC").Output("y: float");\n}\n'
        'extern "C" void Init() {\n  REGISTER_OP("InExternFunction").Output("y: float");\n}\n')
    result = gather([str(source)])
    assert [op.name for op in result.op_list.op] == ["AfterMacro", "InExternC", "InExternFunction", "InInline"]
    assert [w.split(": warning: ")[0] for w in result.warnings] == [f"{source}:14:3"]
