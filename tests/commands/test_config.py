"""`[tool.opgen]` errors: located at the offending key (or array entry) of pyproject.toml,
and a configured path that does not exist is an error, not a silently dropped setting."""

from __future__ import annotations

import pytest

from opgen.cli import main
from opgen.toml_positions import key_positions

OP = '#include "tensorflow/core/framework/op.h"\nREGISTER_OP("OpA").Output("y: float");\n'


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    """Runs `opgen ARGV` in a project with cc/a.cc and the given pyproject.toml: (status, stderr)."""
    (tmp_path / "cc").mkdir()
    (tmp_path / "cc" / "a.cc").write_text(OP)
    monkeypatch.chdir(tmp_path)

    def run(toml: str, *argv: str) -> tuple[int, str]:
        (tmp_path / "pyproject.toml").write_text(toml)
        code = main(list(argv))
        return code, capsys.readouterr().err

    return run


def test_key_positions_follow_toml_lexing():
    text = ('[project]\ndesc = """\n[tool.opgen]\nout = 3\n"""\n[ tool . opgen ]\nout = 1  # [x]\n'
            'sources = ["a",\n  # a, comment\n  \'b\', "c,d"\n]\n[tool.opgen.modules]\n"N*" = "m"\n[[t]]\nout = 2\n')
    positions = key_positions(text)
    assert positions[("tool", "opgen")] == (6, 1)
    assert positions[("tool", "opgen", "out")] == (7, 1)
    assert positions[("tool", "opgen", "sources", 0)] == (8, 12)
    assert positions[("tool", "opgen", "sources", 1)] == (10, 3)
    assert positions[("tool", "opgen", "sources", 2)] == (10, 8)
    assert positions[("tool", "opgen", "modules", "N*")] == (13, 1)
    assert ("t", "out") not in positions and ("out",) not in positions
    # keys of inline tables, nested ones and their arrays too (trial20 #6)
    text = ('[tool.opgen]\nmodules = {"A*" = "gen_a",\n  \'B\' = "gen_b", c.d = {e = [1, "x"]} }\n'
            'x = [{f = 1}]\nlibraries = {}\n')
    positions = key_positions(text)
    assert positions[("tool", "opgen", "modules", "A*")] == (2, 12)
    assert positions[("tool", "opgen", "modules", "B")] == (3, 3)
    assert positions[("tool", "opgen", "modules", "c", "d")] == (3, 18)
    assert positions[("tool", "opgen", "modules", "c", "d", "e")] == (3, 25)
    assert positions[("tool", "opgen", "modules", "c", "d", "e", 1)] == (3, 33)
    assert positions[("tool", "opgen", "libraries")] == (5, 1) and ("tool", "opgen", "x", 0, "f") not in positions


def test_type_error_is_located_at_the_key(run, tmp_path):
    code, err = run('[tool.opgen]\nsources = ["cc"]\n\nout = 3\n', "oplist")
    assert code == 2 and err.startswith("pyproject.toml:4:1: error: [tool.opgen] out must be a string")


def test_unknown_key_and_parse_error_are_located(run, tmp_path):
    code, err = run('[tool.opgen]\nsources = ["cc"]\noutt = "x"\n', "oplist")
    assert code == 2 and "pyproject.toml:3:1: error: unknown [tool.opgen] key(s): outt" in err
    assert "hint: did you mean 'out'? known keys: allow, api," in err
    code, err = run('[tool.opgen]\nout = "x\n', "oplist")
    assert code == 2 and "pyproject.toml:2:9: error: cannot parse pyproject.toml: Illegal character" in err
    code, err = run('[tool.opgen]\nsources = ["ops"]\nexclude = [', "oplist")  # tomllib: "at end of document"
    # (at the last character, the `[`, not past it: trial37 #9)
    assert code == 2 and err.startswith("pyproject.toml:3:11: error: cannot parse pyproject.toml: Invalid value where "
                                        "the file ends\n  hint: an array, inline table or string there is not closed")
    code, err = run('[tool.opgen]\nsources = ["ops"]\nlibrary = ["x.so"]\n', "oplist")
    assert code == 2 and err.startswith('pyproject.toml:3:1: error: [tool.opgen] library must be a string\n'
                                        '  hint: write library = "x.so": one string, not a list; modules that load '
                                        'different libraries: [tool.opgen.libraries] maps module globs to them\n')


def test_bad_define_is_located_in_pyproject(run):
    code, err = run('[tool.opgen]\nsources = ["cc"]\ndefines = ["A",\n  "=2"]\n', "oplist")
    assert code == 2 and "pyproject.toml:4:3: error: [tool.opgen] defines entry '=2'" in err
    assert "<command-line>" not in err


def test_missing_configured_paths_are_located_errors(run, tmp_path):
    code, err = run('[tool.opgen]\nsources = ["cc", "c"]\noverrides = "overides"\ninclude_dirs = ["inc"]\n'
                    'templates = "tpl"\n', "build")
    assert code == 2
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert lines == [
        "pyproject.toml:2:18: error: [tool.opgen] sources entry 'c' does not exist",
        "pyproject.toml:3:1: error: [tool.opgen] overrides 'overides' does not exist",
        "pyproject.toml:4:17: error: [tool.opgen] include_dirs entry 'inc' does not exist",
        "pyproject.toml:5:1: error: [tool.opgen] templates 'tpl' does not exist",
    ]
    assert not (tmp_path / "generated").exists()


def test_paths_are_shown_relative_to_the_working_directory_when_below_it(run, tmp_path, monkeypatch, capsys):
    """As the command line would name them: from the project directory its relative paths, from
    a directory below it (where the project's files are not) the absolute ones."""
    (tmp_path / "cc" / "a.cc").write_text('REGISTER_OP("OpA").Output("y: flaot");\n')
    code, err = run('[tool.opgen]\nsources = ["cc", "c"]\n', "build")
    assert code == 2 and err.startswith("pyproject.toml:2:18: error: [tool.opgen] sources entry 'c' does not exist\n")
    code, err = run('[tool.opgen]\nsources = ["cc"]\n', "build")
    assert code == 2 and err.startswith("cc/a.cc:1:31: error: ")
    monkeypatch.chdir(tmp_path / "cc")
    assert main(["build"]) == 2
    assert capsys.readouterr().err.startswith("a.cc:1:31: error: ")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["cc", "c"]\n')
    assert main(["build"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{tmp_path / 'pyproject.toml'}:2:18: error: [tool.opgen] sources entry 'c' does not exist "
                          f"({tmp_path / 'c'})")


def test_written_default_overrides_must_exist_but_the_default_is_optional(run, tmp_path):
    code, err = run('[tool.opgen]\nsources = ["cc"]\noverrides = "overrides"\n', "build", "--quiet")
    assert code == 2 and "[tool.opgen] overrides 'overrides' does not exist" in err
    code, err = run('[tool.opgen]\nsources = ["cc"]\n', "build", "--quiet")
    assert code == 0 and err == ""


def test_an_option_replacing_the_key_skips_its_check(run, tmp_path):
    (tmp_path / "ov").mkdir()
    code, err = run('[tool.opgen]\nsources = ["nope"]\noverrides = "overides"\n', "build", "--quiet",
                    "--overrides", "ov", "cc")
    assert code == 0, err


def test_glob_source_matching_nothing(run):
    code, err = run('[tool.opgen]\nsources = ["cc/*.cpp"]\n', "oplist")
    assert code == 2 and "pyproject.toml:2:12: error: [tool.opgen] sources entry 'cc/*.cpp' matches no files" in err


def test_external_includes_skip_other_libraries_headers_without_a_warning(run, tmp_path):
    (tmp_path / "cc" / "a.cc").write_text('#include "re2/re2.h"\n#include "gen/flags.h"\n' + OP)
    code, err = run('[tool.opgen]\nsources = ["cc"]\n', "oplist", "-q")
    assert code == 0 and 're2/*' in err and 'gen/*' in err
    code, err = run('[tool.opgen]\nsources = ["cc"]\nexternal_includes = ["re2/*"]\n', "oplist", "-q")
    assert code == 0 and 're2' not in err and '"gen/flags.h"' in err
    code, err = run('[tool.opgen]\nexternal_includes = "re2/*"\nsources = ["cc"]\n', "oplist", "-q")
    assert code == 0 and err.count("warning:") == 1


def test_include_internal_key_keeps_underscore_ops_for_build_and_diff(run, tmp_path):
    (tmp_path / "cc" / "a.cc").write_text(OP + 'REGISTER_OP("_OpInternal").Output("y: float");\n')
    (tmp_path / "overrides").mkdir()
    (tmp_path / "overrides" / "o.pbtxt").write_text('op { name: "_OpInternal" rename_to: "OpInternal" }\n')
    toml = '[tool.opgen]\nsources = ["cc"]\nout = "gen"\napi = "gen/API.md"\n'
    code, err = run(toml, "build", "-q")
    assert code == 2 and "set include_internal = true in [tool.opgen] (or pass --include-internal)" in err
    toml += "include_internal = true\n"
    assert run(toml, "build", "-q") == (0, "")
    assert "def op_internal(" in (tmp_path / "gen" / "gen_a.py").read_text()
    assert run(toml, "build", "--check", "-q") == (0, "")
    assert run(toml, "diff", "gen/API.md", "-q")[0] == 0  # the project's side keeps the op too
    # without the rename, TF's name for it, `__op_internal`: private by its `_`, so not in __all__ (trial28 #7)
    (tmp_path / "overrides" / "o.pbtxt").unlink()
    assert run(toml, "build", "-q") == (0, "")
    module = (tmp_path / "gen" / "gen_a.py").read_text()
    assert "def __op_internal(" in module and '__all__ = ["op_a"]' in module


def test_exclude_entries_are_relative_to_the_project_and_one_matching_nothing_warns(run, tmp_path):
    (tmp_path / "cc" / "broken.cc").write_text('REGISTER_OP("Broken").Output("y: flaot");\n')
    code, err = run('[tool.opgen]\nsources = ["cc"]\nexclude = ["cc/broken.cc", "cc/gen*"]\n', "oplist", "-q")
    assert code == 0
    assert err == ("pyproject.toml:3:28: warning: [tool.opgen] exclude entry 'cc/gen*' matches no "
                   "file\n  hint: its paths are relative to pyproject.toml's directory\n")
    code, err = run('[tool.opgen]\nsources = ["cc"]\n', "oplist", "-q")
    assert code == 2 and "broken.cc:1:" in err


@pytest.mark.parametrize("toml", ['[project]\nname = "x"\n', '[tool.opgen]\nout = "gen"\n'])
def test_default_sources_missing_says_no_sources_are_configured(run, tmp_path, toml):
    """Outside a configured project the default `op_specs` is no file the user named: the error
    says the sources are missing and how to give them, for every command that gathers, and
    `opgen diff` when its NEW side is the project. Exit 2, nothing written."""
    for command in ("build", "oplist", "kernels"):
        code, err = run(toml, command)
        assert code == 2
        assert err == ("op_specs: error: no op sources: op_specs/ (the default) does not exist\n"
                       f"  hint: pass the sources (opgen {command} ops/*.cc), set [tool.opgen] sources "
                       "in pyproject.toml, or run `opgen init` to start a project\n")
    code, err = run(toml, "diff", "cc")
    assert code == 2 and err.startswith("op_specs: error: no op sources: op_specs/ (the default) "
                                        "does not exist\n")
    assert "hint: name both sides (opgen diff OLD NEW), set [tool.opgen] sources" in err
    assert not (tmp_path / "gen").exists() and not (tmp_path / "generated").exists()
    # sources on the command line, or a default folder that exists, are read as before
    code, err = run(toml, "oplist", "--format", "json", "cc")
    assert code == 0, err
    (tmp_path / "cc").rename(tmp_path / "op_specs")
    code, err = run(toml, "build", "--quiet")
    assert (code, err) == (0, "")


def test_modules_pattern_matching_no_op_is_a_located_warning(run, tmp_path):
    code, err = run('[tool.opgen]\nsources = ["cc"]\n[tool.opgen.modules]\n"OpA" = "gen_a"\n"Nope*" = "gen_x"\n',
                    "build", "--quiet")
    assert code == 0
    assert err.startswith(
        "pyproject.toml:5:1: warning: [tool.opgen.modules] pattern 'Nope*' matches no op"
    )
    assert "'A'" not in err
    # in an inline table, at its entry (trial20 #6)
    code, err = run('[tool.opgen]\nsources = ["cc"]\nmodules = {"OpA" = "gen_a", "Nope*" = "gen_x"}\n', "build",
                    "--quiet")
    assert code == 0 and err.startswith("pyproject.toml:3:29: warning: [tool.opgen.modules] pattern 'Nope*' matches")


def test_a_misspelt_modules_pattern_names_the_glob_it_may_mean_and_where_its_ops_went(run, tmp_path):
    """trial24 #12: `Mpl*` for `Mlp*` moved MlpDense to the catch-all module (and deleted
    gen_mlp) with a bare warning."""
    (tmp_path / "cc" / "mlp.cc").write_text('REGISTER_OP("MlpDense").Output("y: float");\n')
    code, err = run('[tool.opgen]\nsources = ["cc"]\n[tool.opgen.modules]\n"Mpl*" = "gen_mlp"\n"*" = "gen_all"\n',
                    "build", "--quiet")
    assert code == 0
    assert err == ("pyproject.toml:4:1: warning: [tool.opgen.modules] pattern 'Mpl*' matches no op\n"
                   "  hint: did you mean 'Mlp*'? it matches MlpDense, which go to gen_all now; patterns are fnmatch "
                   "globs on op names, case-sensitive ('Foo*')\n")


def test_bad_module_name_is_located_at_its_pattern(run, tmp_path):
    code, err = run('[tool.opgen]\nsources = ["cc"]\n[tool.opgen.modules]\n"A*" = "gen_a"\n"B*" = "os"\n', "build")
    assert code == 2 and err.startswith("pyproject.toml:5:1: error: invalid module name 'os'")


@pytest.mark.parametrize(("api", "message"), [
    ("snapshots/API.md", "is not inside out = 'myproj/ops'"),
    ("myproj/ops/gen_a.py", "names a file the build generates"),
])
def test_api_path_errors_point_at_the_key_and_suggest_a_path_inside_out(run, api, message):
    code, err = run(f'[tool.opgen]\nsources = ["cc"]\nout = "myproj/ops"\napi = "{api}"\n', "build")
    assert code == 2 and message in err
    assert "pyproject.toml:4:1: error:" in err
    assert "api = 'myproj/ops/API.md'" in err  # a suggestion that works with this `out`


def test_api_outside_out_hint_keeps_its_name_and_format(run):
    code, err = run('[tool.opgen]\nsources = ["cc"]\nout = "pkg/gen"\napi = "api.json"\n', "build")
    assert code == 2 and "error: [tool.opgen] api = 'api.json' is not inside out = 'pkg/gen'" in err
    assert ("hint: opgen build writes the API snapshot into out, with the modules (--out moves it with them): give "
            "api a path inside out, e.g. api = 'pkg/gen/api.json'; for a copy elsewhere, run "
            "`opgen api --format json -o api.json`") in " ".join(err.split())


def test_libraries_give_each_module_its_library_and_warn_at_a_pattern_matching_no_module(run, tmp_path):
    (tmp_path / "cc" / "b.cc").write_text(OP.replace('"OpA"', '"OpB"'))
    toml = ('[tool.opgen]\nsources = ["cc"]\nlibrary = "_default.so"\n[tool.opgen.libraries]\n"gen_a" = "_a.so"\n'
            '"gen_x*" = "pkg:_x.so"\n')
    code, err = run(toml, "build", "--quiet")
    assert code == 0
    assert err.startswith("pyproject.toml:6:1: warning: [tool.opgen.libraries] pattern 'gen_x*' "
                          "matches no module")
    assert "this build writes gen_a, gen_b" in err
    assert 'library="_a.so"' in (tmp_path / "generated" / "gen_a.py").read_text()
    assert 'library="_default.so"' in (tmp_path / "generated" / "gen_b.py").read_text()
    # without the default library, a module no pattern matches (here gen_b, a new file's) warns
    code, err = run(toml.replace('library = "_default.so"\n', ""), "build", "--quiet")
    assert code == 0
    assert ("pyproject.toml:3:1: warning: module gen_b loads no op library: no [tool.opgen.libraries] "
            "pattern matches it and [tool.opgen] library is not set\n") in err
    assert 'hint: map it to the library that registers its ops ("gen_b" = "_b.so")' in err  # named like the module
    assert "gen_a loads" not in err


def test_a_misspelt_libraries_glob_says_what_the_module_it_meant_loads_instead(run, tmp_path):
    """trial20 #5: `"gen_b_"` for `gen_b`, which a later glob gives another library: the warning
    names the module meant and the library it loads now (which fails only when its ops run)."""
    (tmp_path / "cc" / "b.cc").write_text(OP.replace('"OpA"', '"OpB"'))
    toml = '[tool.opgen]\nsources = ["cc"]\n[tool.opgen.libraries]\n"gen_b_" = "_b.so"\n"gen_*" = "_a.so"\n'
    code, err = run(toml, "build", "--quiet")
    assert code == 0
    assert err == ("pyproject.toml:4:1: warning: [tool.opgen.libraries] pattern 'gen_b_' matches no module\n"
                   "  hint: did you mean 'gen_b'? it loads '_a.so' instead, not '_b.so'; patterns are fnmatch globs "
                   "on module names; this build writes gen_a, gen_b\n")


def test_a_table_named_like_one_of_opgens_tables_says_which(run):
    """trial20 #6: `[tool.opgen.library]` (the string key's name) for `[tool.opgen.libraries]`."""
    code, err = run('[tool.opgen]\nsources = ["cc"]\n\n[tool.opgen.library]\n"gen_a" = "_a.so"\n', "build")
    assert code == 2 and err == ("pyproject.toml:4:1: error: [tool.opgen] library must be a string, not a table "
                                 "([tool.opgen.library])\n  hint: did you mean [tool.opgen.libraries]?\n"
                                 "1 error in 1 file\n")


def test_a_build_of_some_sources_does_not_warn_of_the_patterns_of_others(run, tmp_path):
    """`opgen build cc/b.cc` in a project of two files: the patterns for cc/a.cc's ops and module
    match nothing in this build, rightly; the build of all sources still warns (trial19 #5).
    That build may not delete cc/a.cc's module, which a build of all sources wrote (trial20 #2):
    an error at [tool.opgen] sources, nothing written; into an output directory of its own, it builds."""
    (tmp_path / "cc" / "b.cc").write_text(OP.replace('"OpA"', '"OpB"'))
    toml = ('[tool.opgen]\nsources = ["cc"]\nlibrary = "_default.so"\n[tool.opgen.modules]\n"OpA" = "gen_a"\n'
            '[tool.opgen.libraries]\n"gen_a" = "_a.so"\n')
    assert run(toml, "build", "--quiet", "cc/b.cc") == (0, "")
    assert run(toml, "build", "--quiet") == (0, "")
    before = {p: p.read_bytes() for p in (tmp_path / "generated").rglob("*") if p.is_file()}
    for check in ([], ["--check"]):
        code, err = run(toml, "build", "--quiet", "cc/b.cc", *check)
        assert code == 2 and err.startswith(
            "pyproject.toml:2:1: error: this build reads the sources named on the command line instead of "
            "[tool.opgen] sources, and would delete what the others generate: generated/gen_a.py\n"), err
        assert "--out DIR" in err
    assert {p: p.read_bytes() for p in (tmp_path / "generated").rglob("*") if p.is_file()} == before
    assert run(toml, "build", "--quiet", "cc/b.cc", "--out", "alone") == (0, "")
    assert (tmp_path / "alone" / "gen_b.py").is_file() and not (tmp_path / "alone" / "gen_a.py").exists()
    code, err = run(toml, "build", "--quiet", "--dry-run")
    assert (code, err) == (0, "")
    code, err = run(toml.replace('"OpA" = "gen_a"', '"OpZ" = "gen_a"'), "build", "--quiet", "--dry-run")
    assert code == 0 and "[tool.opgen.modules] pattern 'OpZ' matches no op" in err


def test_files_of_one_name_in_two_directories_share_a_module_with_a_warning(run, tmp_path):
    """`cc/a.cc` and `cc/more/a.cc` both make gen_a, which loads one library: said at the second
    file's first op, with the module rule that separates them; a rule that does silences it."""
    (tmp_path / "cc" / "more").mkdir()
    (tmp_path / "cc" / "more" / "a.cc").write_text(OP.replace('"OpA"', '"OpB"'))
    (tmp_path / "cc" / "a.cu.cc").write_text(OP.replace('"OpA"', '"OpC"'))  # another name: no warning
    code, err = run('[tool.opgen]\nsources = ["cc"]\n', "build", "--quiet")
    more = "cc/more/a.cc"
    assert code == 0 and err == (
        f"{more}:2:1: warning: module gen_a gathers the ops of cc/a.cc and {more}, files whose names give "
        "one module name: one module, which loads one op library\n"
        '  hint: give this file\'s ops a module of their own ([tool.opgen.modules] "OpB" = "gen_a_2", a glob for '
        'several), or rename the file; a rule keeping them in gen_a ("OpB" = "gen_a") says that is meant and '
        "silences this\n")
    code, err = run('[tool.opgen]\nsources = ["cc"]\n[tool.opgen.modules]\n"OpB" = "gen_a"\n', "build", "--quiet")
    assert code == 0 and err == ""
    code, err = run('[tool.opgen]\nsources = ["cc"]\n[tool.opgen.modules]\n"OpB" = "gen_more"\n', "build", "--quiet")
    assert code == 0 and err == ""
    # names that become one module name (trial22 #7)
    (tmp_path / "cc" / "more" / "a.cc").unlink()
    (tmp_path / "cc" / "a-b.cc").write_text(OP.replace('"OpA"', '"OpD"'))
    (tmp_path / "cc" / "a_b.cc").write_text(OP.replace('"OpA"', '"OpE"'))
    code, err = run('[tool.opgen]\nsources = ["cc"]\n', "build", "--quiet")
    assert code == 0 and err.startswith("cc/a_b.cc:2:1: warning: module gen_a_b gathers the ops of cc/a-b.cc and "
                                        "cc/a_b.cc, files whose names give one module name"), err
    # names that share the part before the first dot, but not as a name's variants (trial31 #1)
    (tmp_path / "cc" / "a-b.cc").unlink()
    (tmp_path / "cc" / "a_b.cc").unlink()
    (tmp_path / "cc" / "a.v2.cc").write_text(OP.replace('"OpA"', '"OpF"'))
    code, err = run('[tool.opgen]\nsources = ["cc"]\n', "build", "--quiet")
    assert code == 0 and err.startswith("cc/a.v2.cc:2:1: warning: module gen_a gathers the ops of cc/a.cc and "
                                        "cc/a.v2.cc, files whose names give one module name"), err
    assert err.count("warning:") == 1, err  # (cc/a.cu.cc, a variant of cc/a.cc, is not named)
    assert (tmp_path / "generated" / "gen_a.py").is_file() and not (tmp_path / "generated" / "gen_a_v2.py").exists()


@pytest.mark.parametrize(("entry", "message"), [
    ('"gen_a" = 3', "[tool.opgen.libraries] must map names to strings: 'gen_a' is an integer"),
    ('"gen_a" = ""', "[tool.opgen.libraries] 'gen_a' '' is not a usable path"),
])
def test_bad_library_entry_is_located(run, tmp_path, entry, message):
    code, err = run(f'[tool.opgen]\nsources = ["cc"]\n[tool.opgen.libraries]\n{entry}\n', "build")
    assert code == 2 and err.startswith(f"pyproject.toml:4:1: error: {message}")


def test_a_tool_opgen_key_below_a_subtable_says_where_it_belongs(run, tmp_path):
    """TOML puts a key written after `[tool.opgen.libraries]` into that table: the error says so."""
    code, err = run('[tool.opgen]\nsources = ["cc"]\n[tool.opgen.libraries]\n"gen_*" = "_x.so"\n'
                    'docstring_kernels = true\n', "build")
    assert code == 2 and err.splitlines() == [
        ("pyproject.toml:5:1: error: [tool.opgen.libraries] key 'docstring_kernels' is a "
         "[tool.opgen] key, not a pattern"),
        "  hint: a table's keys end at the next [header]: move it above [tool.opgen.libraries]",
        "1 error in 1 file",
    ]
    # a string value would make a valid pattern of it, matching nothing
    code, err = run('[tool.opgen]\nsources = ["cc"]\n[tool.opgen.modules]\n"Op*" = "gen_x"\nformatter = "ruff"\n',
                    "build")
    assert code == 2 and err.startswith("pyproject.toml:5:1: error: [tool.opgen.modules] key "
                                        "'formatter' is a [tool.opgen] key, not a pattern\n")
    code, err = run('[tool.opgen]\nsources = ["cc"]\n[tool.opgen.helpers]\njobs = 2\n', "build")
    assert code == 2 and "'jobs' is a [tool.opgen] key: a table's keys end at the next [header]" in err


def test_every_mistake_of_the_table_is_reported_in_one_run(run):
    code, err = run('[tool.opgen]\nsource = ["cc"]\nout = 5\nlibrary = ["_my.so"]\njobs = -1\nformatter = "yapf"\n',
                    "build")
    assert code == 2
    assert [line.split(": error: ")[0] for line in err.splitlines() if ": error: " in line] == [
        "pyproject.toml:2:1", "pyproject.toml:3:1", "pyproject.toml:4:1", "pyproject.toml:5:1", "pyproject.toml:6:1"]
    assert "unknown [tool.opgen] key(s): source" in err and "did you mean 'sources'?" in err
    assert err.endswith("5 errors in 1 file\n")


def test_every_bad_entry_of_a_list_or_table_is_reported_in_one_run(run):
    """trial28 #6: `[tool.opgen.modules]` reported only its first bad entry (sources and overrides
    report every error in one run): every bad entry of every key, in line order, each at its entry."""
    code, err = run('[tool.opgen]\nsources = ["cc"]\ndefines = ["=1", "OK", "2X"]\nundefines = ["A-B", "C.D"]\n'
                    'core_ops = ["A", 5, true]\n[tool.opgen.modules]\n"FwN*" = "gen-nn"\n"FwApply*" = "numpy"\n'
                    '"Ok*" = "gen_ok"\n[tool.opgen.libraries]\n"a" = ""\nout = "x"\n[tool.opgen.helpers]\n'
                    '"1x" = "a"\nGetX = 2\n', "build")
    assert code == 2
    assert [line.split(": error: ")[0] for line in err.splitlines() if ": error: " in line] == [
        "pyproject.toml:3:12", "pyproject.toml:3:24", "pyproject.toml:4:14", "pyproject.toml:4:21",
        "pyproject.toml:5:1", "pyproject.toml:5:1", "pyproject.toml:7:1", "pyproject.toml:8:1",
        "pyproject.toml:11:1", "pyproject.toml:12:1", "pyproject.toml:14:1", "pyproject.toml:15:1"], err
    assert "invalid module name 'gen-nn'" in err and "invalid module name 'numpy'" in err
    assert "core_ops must be a list of strings: entry 2 is an integer" in err
    assert "core_ops must be a list of strings: entry 3 is a boolean" in err
    assert err.endswith("12 errors in 1 file\n")


@pytest.mark.parametrize("value", ["true", "-1", "100000", "1.5"])
def test_jobs_is_a_bounded_integer_not_a_boolean(run, value):
    """trial15 #13: `jobs = true` passed as 1 (a bool is an int to isinstance), and 100,000 forked
    one worker per op."""
    code, err = run(f'[tool.opgen]\nsources = ["cc"]\njobs = {value}\n', "build")
    assert code == 2 and "pyproject.toml:3:1: error: [tool.opgen] jobs must be an integer from 0 to 1024" in err


def test_a_nul_in_a_configured_string_is_a_located_error(run):
    code, err = run('[tool.opgen]\nsources = ["cc", "c\\u0000c"]\nout = "\\u0000"\n', "build")
    assert code == 2 and "Traceback" not in err
    assert "pyproject.toml:2:18: error: [tool.opgen] sources holds a NUL character" in err
    assert "pyproject.toml:3:1: error: [tool.opgen] out holds a NUL character" in err


@pytest.mark.parametrize(("out", "problem"), [
    ("..", "[tool.opgen] out .. is the project root, a parent of it, or /"),
    (".", "[tool.opgen] out . is the project root, a parent of it, or /"),
    ("cc", "[tool.opgen] out cc overlaps the input cc"),
    ("notes.txt", "[tool.opgen] out notes.txt names something that is not a directory"),
])
def test_an_out_key_overlapping_the_inputs_is_located_at_the_key(run, tmp_path, out, problem):
    (tmp_path / "notes.txt").write_text("")
    code, err = run(f'[tool.opgen]\nsources = ["cc"]\n\nout = "{out}"\n', "build")
    assert code == 2 and err.startswith(f"pyproject.toml:4:1: error: {problem}\n"), err
    code, err = run('[tool.opgen]\nsources = ["cc"]\n', "build", "--out", out)  # the option: named as such
    assert code == 2 and err.startswith(f"--out: error: --out {out} "), err


def test_settings_come_from_the_nearest_pyproject_up_to_the_repository_root(run, tmp_path, monkeypatch):
    """A command run in a subdirectory takes the project's pyproject.toml above it; a
    repository inside the project's tree (`.git` or `.hg`, as black finds a root) stops the
    search: without a pyproject.toml of its own it has the defaults, never the outer
    project's settings (trial27 #2: `--check` in a nested clone checked the outer tree and
    passed). -v names the file the settings came from."""
    assert run('[tool.opgen]\nsources = ["cc"]\nout = "gen"\n', "build")[0] == 0
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    code, err = run('[tool.opgen]\nsources = ["cc"]\nout = "gen"\n', "-v", "build", "--check")
    assert code == 0, err
    assert "opgen: settings from " + str(tmp_path / "pyproject.toml") + " ([tool.opgen])" in err
    for marker in (".git", ".hg"):
        nested = tmp_path / f"nested{marker}"
        (nested / marker).mkdir(parents=True)
        (nested / "deep").mkdir()
        monkeypatch.chdir(nested / "deep")
        code, err = run('[tool.opgen]\nsources = ["cc"]\nout = "gen"\n', "-v", "build", "--check")
        assert code == 2
        assert "opgen: settings from no pyproject.toml (none in the working directory or above it" in err
        assert "op_specs: error: no op sources" in err


def test_a_build_of_a_few_sources_passes_over_the_projects_overrides_of_other_ops(run, tmp_path):
    """`opgen build cc/b.cc --out DIR` in a project whose overrides name cc/a.cc's op: that
    entry is no mistake of this build (trial26 #3: 'unknown op', exit 2), as the project's
    module patterns for the others' ops are not; b.cc's own entry still applies, and the
    build of all sources still refuses a misspelt op."""
    (tmp_path / "cc" / "b.cc").write_text(OP.replace('"OpA"', '"OpB"'))
    (tmp_path / "overrides").mkdir()
    entries = 'op { name: "OpA" rename_to: "op_a_renamed" }\nop { name: "OpB" rename_to: "op_b_renamed" }\n'
    (tmp_path / "overrides" / "ops.pbtxt").write_text(entries)
    toml = '[tool.opgen]\nsources = ["cc"]\noverrides = "overrides"\n'
    assert run(toml, "build", "--quiet", "cc/b.cc", "--out", "alone") == (0, "")
    assert "def op_b_renamed(" in (tmp_path / "alone" / "gen_b.py").read_text()
    assert run(toml, "build", "--quiet") == (0, "")
    (tmp_path / "overrides" / "ops.pbtxt").write_text(entries.replace('"OpA"', '"OpAA"'))
    code, err = run(toml, "build", "--quiet")
    assert code == 2 and "overrides/ops.pbtxt:1:6: error: unknown op 'OpAA'" in err, err
