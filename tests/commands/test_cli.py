"""The `opgen` command line through click's CliRunner: every subcommand, option, exit status
and help text. `opgen.cli.cli.main` runs the same error boundary as the console script and
`opgen.cli.main([...])`, so what CliRunner sees is what users see."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from support.paths import REPO

from opgen import __version__
from opgen import cli as cli_module
from opgen.cli import cli

_SMALL = 'REGISTER_OP("Small").Input("x: float").Output("y: float").Attr("keep: bool = true");\n'
_KERNEL = 'REGISTER_KERNEL_BUILDER(Name("Small").Device(DEVICE_CPU), SmallOp);\n'


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "specs" / "ops.cc").write_text(_SMALL)
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs"]\nout = "gen"\noverrides = ""\n')
    monkeypatch.chdir(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return root


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def _commands() -> dict[str, click.Command]:
    """Every runnable command by its path under `opgen` ("build", "overrides check", ...)."""
    found: dict[str, click.Command] = {}

    def walk(group: click.Group, prefix: str) -> None:
        for name, command in group.commands.items():
            if isinstance(command, click.Group):
                walk(command, f"{prefix}{name} ")
            else:
                found[f"{prefix}{name}"] = command

    walk(cli, "")
    return found


_SPEC_INPUT_KEYS = {"-D": "defines", "-I": "include_dirs", "--allow": "allow", "--strict-includes": "strict_includes"}
_CONFIG_KEYS = {
    "oplist": {**_SPEC_INPUT_KEYS, "--overrides": "overrides"},
    "kernels": _SPEC_INPUT_KEYS,
    "api": {**_SPEC_INPUT_KEYS, "--overrides": "overrides"},
    "overrides check": {**_SPEC_INPUT_KEYS, "--overrides": "overrides"},
    "build": {**_SPEC_INPUT_KEYS, "--overrides": "overrides", "--templates": "templates", "--out": "out",
              "--jobs": "jobs", "--formatter": "formatter", "--library": "library",
              "--warnings-as-errors": "warnings_as_errors"},
}
_OPTIONS = [(path, option.opts[-1]) for path, command in _commands().items()
            for option in command.params if isinstance(option, click.Option)]


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_every_command_is_covered_here():
    assert set(_commands()) == {"oplist", "kernels", "specs", "build", "overrides check", "api", "diff", "init"}
    assert set(_CONFIG_KEYS) <= set(_commands())


@pytest.mark.parametrize(("path", "option"), _OPTIONS, ids=[f"{p}:{o}" for p, o in _OPTIONS])
def test_every_option_has_help_naming_its_config_key(path: str, option: str):
    """Each option is listed in its command's --help with real help text; one that a
    [tool.opgen] key sets names that key and its default."""
    command = _commands()[path]
    param = next(p for p in command.params if isinstance(p, click.Option) and option in p.opts)
    assert param.help and len(param.help) > 10, (path, option)
    result = run(*path.split(), "--help")
    assert result.exit_code == 0, result.output
    shown = _flat(result.stdout)
    assert all(name in shown for name in param.opts), (path, option)
    key = _CONFIG_KEYS.get(path, {}).get(param.opts[0]) or _CONFIG_KEYS.get(path, {}).get(option)
    if key is not None:
        assert f"[tool.opgen] {key}; default: " in _flat(param.help)
        assert f"[tool.opgen] {key}; default: " in shown


def test_config_keyed_options_exist():
    """The table above names options that exist (a renamed option must update it)."""
    for path, keys in _CONFIG_KEYS.items():
        names = {o for p in _commands()[path].params if isinstance(p, click.Option) for o in p.opts}
        assert set(keys) <= names, path


def test_top_level_help_is_user_facing():
    result = run("--help")
    assert result.exit_code == 0
    text = _flat(result.stdout)
    assert text.startswith("Usage: opgen [OPTIONS] COMMAND [ARGS]...")
    assert "Generate Python op-wrapper modules" in text and "argument parsing" not in text
    for name in ("api", "build", "diff", "kernels", "oplist", "overrides", "specs"):
        assert f"\n  {name} " in result.stdout
    for word in ("--version", "--debug", "--quiet", "--verbose", "_OPGEN_COMPLETE=bash_source opgen",
                 "0 ok, 1 stale", "2 user error", "[tool.opgen]"):
        assert word in text, word


def test_build_help_groups_options():
    result = run("build", "-h")
    assert result.exit_code == 0
    headings = [line for line in result.stdout.splitlines() if line.endswith("options:")]
    assert headings == ["Input options:", "Rendering options:", "Output options:", "Review (write nothing) options:",
                        "General options:"]
    assert "SOURCES are C++ files, directories, globs or OpList files" in _flat(result.stdout)
    assert "[tool.opgen] out; default: generated." in _flat(result.stdout)


def test_version():
    result = run("--version")
    assert (result.exit_code, result.stdout) == (0, f"opgen {__version__}\n")


# ---------------------------------------------------------------------------- exit status


def test_build_then_check_fresh_then_stale(project):
    result = run("build")
    assert result.exit_code == 0, result.output
    assert (project / "gen" / "gen_ops_ops.py").is_file() or list((project / "gen").glob("gen_*.py"))
    assert "opgen build: 1 module, 1 op" in result.stderr
    result = run("build", "--check")
    assert (result.exit_code, result.stdout) == (0, "")
    assert "is up to date" in result.stderr
    (project / "specs" / "ops.cc").write_text(_SMALL.replace("true", "false"))
    result = run("build", "--check")
    assert result.exit_code == 1
    assert result.stdout.startswith("would rewrite gen/gen_")
    assert "would change; run `opgen build`" in result.stderr
    diff = run("build", "--diff")
    assert diff.exit_code == 0 and diff.stdout.startswith("--- a/gen/")
    assert run("build", "--diff", "--check").exit_code == 1


def test_user_error_is_located_exit_2(project):
    result = run("build", "nope.cc")
    assert result.exit_code == 2
    assert result.stderr.startswith("nope.cc") and ": error: " in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("argv", "message"), [
    (["build", "--bogus"], "No such option '--bogus'"),
    # an option of another command says whose it is (click's guesses among this command's would mislead)
    (["build", "--report-shapes"], ("No such option '--report-shapes'.\n  hint: --report-shapes is an option of "
                                   "'opgen oplist'\n")),
    (["oplist", "--git", "HEAD"], "No such option '--git'.\n  hint: --git is an option of 'opgen diff'\n"),
    # click's guesses, less those clearly farther than the best (trial19 #6: not '--help' too)
    (["build", "--chek"], "No such option '--chek'. Did you mean '--check'?\n"),
    (["build", "--hepl"], "No such option '--hepl'. Did you mean '--help'?\n"),
    (["build", "--dif"], "No such option '--dif'. Did you mean '--diff'?\n"),
    (["oplist", "--format", "xml"], "Invalid value for '--format'"),
    (["build", "--jobs", "-1"], "Invalid value for '-j' / '--jobs'"),
    (["build", "--jobs", "two"], "'two' is not a valid integer"),
    (["specs"], "Missing argument 'OPLIST'"),
    (["frobnicate"], "No such command 'frobnicate'"),
    (["overrides"], "Usage: opgen overrides"),
    (["build", "-q", "-v"], "--quiet and --verbose exclude each other"),
    (["diff", "a", "b", "c"], "Got unexpected extra argument (c)"),
])
def test_usage_errors_exit_2_without_traceback(project, argv, message):
    result = run(*argv)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert result.stdout == "" and "Traceback" not in result.output
    if argv[-1] != "overrides":
        assert "opgen: error: " in result.stderr and "--help' for help." in result.stderr


def test_no_command_prints_help_and_exits_2(project):
    result = run()
    assert result.exit_code == 2
    assert "Commands:" in result.stderr and "Traceback" not in result.output


def test_internal_error_is_one_line_traceback_with_debug(project, monkeypatch):
    import opgen.commands.api

    def boom(settings):
        raise KeyError("bug")

    monkeypatch.setattr(opgen.commands.api, "run", boom)
    result = run("api")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "internal error, please report" in result.stderr
    result = run("api", "--debug")
    assert result.exit_code == 1 and "Traceback" in result.stderr


def test_main_returns_the_status():
    """`main(argv) -> int` is the entry point tests and the console script share."""
    assert cli_module.main(["--version"]) == 0
    assert cli_module.main(["build", "--bogus"]) == 2


def test_python_dash_m_and_usage_error_in_a_subprocess(project):
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    r = subprocess.run(
        [sys.executable, "-m", "opgen", "--version"], capture_output=True, text=True, env=env, check=False
    )
    assert (r.returncode, r.stdout) == (0, f"opgen {__version__}\n")
    r = subprocess.run([sys.executable, "-m", "opgen", "build", "--format", "md"], capture_output=True, text=True,
                       env=env, check=False)
    assert r.returncode == 2 and "No such option '--format'" in r.stderr and "Traceback" not in r.stderr


def test_shell_completion_script(project):
    result = CliRunner().invoke(cli, [], env={"_OPGEN_COMPLETE": "bash_source"}, prog_name="opgen")
    assert result.exit_code == 0
    assert "_opgen_completion()" in result.stdout and "_OPGEN_COMPLETE=bash_complete" in result.stdout
    result = CliRunner().invoke(cli, [], env={"_OPGEN_COMPLETE": "bash_complete", "COMP_WORDS": "opgen bu",
                                              "COMP_CWORD": "1"})
    assert result.stdout.strip() == "plain,build"


# ---------------------------------------------------------------------------- --quiet / --verbose


@pytest.mark.parametrize("argv", [["build", "-q"], ["-q", "build"], ["build", "--quiet"]])
def test_quiet_prints_no_summary(project, argv):
    result = run(*argv)
    assert result.exit_code == 0 and result.output == ""
    assert list((project / "gen").glob("gen_*.py"))


def test_quiet_check_keeps_the_stale_list(project):
    assert run("build").exit_code == 0
    (project / "specs" / "ops.cc").write_text(_SMALL.replace("true", "false"))
    result = run("build", "--check", "--quiet")
    assert result.exit_code == 1 and result.stderr == ""
    assert result.stdout.startswith("would rewrite gen/gen_")


def test_quiet_still_prints_errors(project):
    result = run("build", "-q", "nope.cc")
    assert result.exit_code == 2 and ": error: " in result.stderr


@pytest.mark.parametrize("argv", [["build", "-v"], ["--verbose", "build"]])
def test_verbose_prints_phases_and_time(project, argv):
    result = run(*argv)
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    assert lines[0] == "opgen: settings from pyproject.toml ([tool.opgen])"  # (relative, as errors name paths)
    assert lines[1].startswith("opgen build: gathered 1 op (")
    for phase in ("overrides: none (", "rendered 1 module: 1 of 1 op rendered (the others from the cache), ",
                  "API snapshot and comparison: ", "wrote "):
        assert any(line.startswith(f"opgen build: {phase}") for line in lines), phase
    assert lines[-1].startswith("opgen build: exit 0 after ")


# ---------------------------------------------------------------------------- each subcommand


def test_oplist_formats_and_output(project):
    result = run("oplist")
    assert result.exit_code == 0 and 'name: "Small"' in result.stdout
    result = run("oplist", "--format", "json")
    assert json.loads(result.stdout)["op"][0]["name"] == "Small"
    assert run("oplist", "-o", "ops.pbtxt", "specs").exit_code == 0
    assert 'name: "Small"' in (project / "ops.pbtxt").read_text()
    result = run("oplist", "--api")
    assert result.exit_code == 0 and "Small" in result.stdout


def test_oplist_api_and_shape_report_as_json(project):
    """`--format json` reaches `--api` and `--report-shapes` (it used to be ignored there); pb,
    which only an OpList has, and the two reports together are usage errors."""
    api = json.loads(run("oplist", "--api", "--format", "json").stdout)
    assert [(e["op"], e["function"], e["visibility"]) for e in api] == [("Small", "small", "VISIBLE")]
    assert api[0]["params"][0]["name"] == "x" and api[0]["api_def"]["graph_op_name"] == "Small"
    shapes = json.loads(run("oplist", "--report-shapes", "--format", "json").stdout)
    assert [op["op"] for op in shapes["ops"]] == ["Small"]
    assert set(shapes["totals"]) == {"lambdas", "project_functions", "ops"}
    assert shapes["totals"]["ops"]["of"] == 1
    for args, message in [
        (["--api", "--format", "pb"], "--api prints text (--format pbtxt, the default) or json, not pb"),
        (["--report-shapes", "--format", "pb"], "--report-shapes prints text"),
        (["--api", "--report-shapes"], "--api and --report-shapes exclude each other"),
        (["--report-shapes", "--from-library", "lib.so"], "holds none"),
    ]:
        result = run("oplist", *args)
        assert result.exit_code == 2 and message in result.stderr and not result.stdout


@pytest.mark.parametrize("source", [
    # an attr name a shape function reads (a warning), and a default quoted in an error's hint
    ('REGISTER_OP("MyOp").Input("x: float").Output("y: float").SetShapeFn([](InferenceContext* c) {\n'
     '  int64_t v; TF_RETURN_IF_ERROR(c->GetAttr("k\\nspecs/evil.cc:1:1: error: forged", &v));\n'
     '  c->set_output(0, c->input(0)); return OkStatus(); });\n'),
    "REGISTER_OP(\"MyOp\").Attr(\"b: {'x'} = '\\nspecs/evil.cc:9:9: error: forged'\");\n",
])
def test_a_newline_echoed_from_input_never_starts_a_line(project, source):
    """trial15 #1 #2: every unindented line of output starts with a real location."""
    (project / "specs" / "ops.cc").write_text(source)
    result = run("build")
    assert "forged" in result.stderr
    assert all(line.startswith(("specs/ops.cc:", "opgen build:", "1 error")) for line in result.stderr.splitlines()
               if line and not line.startswith(" ")), result.stderr


def test_from_library_checks_its_path_before_loading_tensorflow(project):
    """trial15 #11: no TensorFlow import (seconds) for a path that is no library file."""
    for path, problem in (("nope.so", "does not exist"), ("specs", "is not a regular file")):
        result = run("oplist", "--from-library", path)
        assert result.exit_code == 2 and f"{path}: error: op library {path} {problem}" in result.stderr


def test_oplist_defines_and_include_dirs(project):
    (project / "inc").mkdir()
    (project / "inc" / "extra.h").write_text('REGISTER_OP("Extra").Output("y: float");\n')
    (project / "specs" / "ops.cc").write_text(_SMALL + '#ifdef WITH_EXTRA\n#include "extra.h"\n#endif\n')
    assert "Extra" not in run("oplist").stdout
    result = run("oplist", "-D", "WITH_EXTRA", "-I", "inc")
    assert result.exit_code == 0 and 'name: "Extra"' in result.stdout


def test_oplist_allow_and_internal(project):
    (project / "specs" / "ops.cc").write_text(_SMALL + 'REGISTER_OP("Other").Output("y: float");\n'
                                              'REGISTER_OP("_Hidden").Output("y: float");\n')
    (project / "allow.txt").write_text("Small\n")
    result = run("oplist", "--allow", "allow.txt")
    assert 'name: "Small"' in result.stdout and "Other" not in result.stdout
    assert "_Hidden" not in run("oplist").stdout
    assert 'name: "_Hidden"' in run("oplist", "--include-internal").stdout


def test_strict_includes(project):
    (project / "specs" / "ops.cc").write_text('#include "missing.h"\n' + _SMALL)
    result = run("oplist")
    assert result.exit_code == 0 and "missing.h" in result.stderr
    assert run("oplist", "--strict-includes").exit_code == 2


_MISSING_WARNING = 'specs/ops.cc:1:10: warning: cannot find include file "missing.h" (searched: '
_KERNEL_WARNING = ("specs/ops.cc:2:1: warning: 'REGISTER_CPU(...)' looks like a kernel registration through the macro "
                   "'REGISTER_CPU', which is not defined: it registers nothing")


@pytest.mark.parametrize("argv", [["oplist"], ["api"], ["build"], ["build", "--check"], ["build", "-q"],
                                  ["overrides", "check"], ["diff", "specs"], ["diff", "old.json"]])
def test_every_gathering_command_prints_the_warnings_alike(project, argv):
    """Gathering prints its warnings in one place (`gather`), so every command shows the same
    lines, terminal-safe, also under --quiet."""
    (project / "specs" / "ops.cc").write_text('#include "missing.h"\nREGISTER_CPU(float);\n' + _SMALL)
    assert run("api", "--format", "json", "-o", "old.json").exit_code == 0
    result = run(*argv)
    assert result.exit_code in (0, 1), result.output
    lines = result.stderr.splitlines()
    expected = 2 if argv[0] == "diff" and argv[1] == "specs" else 1  # both sides gathered
    assert sum(_MISSING_WARNING in line for line in lines) == expected, result.stderr
    assert sum(_KERNEL_WARNING in line for line in lines) == expected, result.stderr


def test_kernels_prints_the_include_warning_with_its_errors(project):
    (project / "specs" / "ops.cc").write_text('#include "missing.h"\nREGISTER_CPU(float);\n' + _SMALL)
    result = run("kernels")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert _MISSING_WARNING in lines[0] and _KERNEL_WARNING.replace("warning", "error", 1) in lines[1]


def test_warnings_of_a_git_revision_name_it(project):
    (project / "specs" / "ops.cc").write_text('#include "missing\x1b[2J.h"\n' + _SMALL)
    for git in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", *git], cwd=project, check=True)
    result = run("diff", "--git", "HEAD")
    assert result.exit_code == 0, result.output
    warning = ':1:10: warning: cannot find include file "missing\\x1b[2J.h"'
    old, new = [line.split(warning)[0] for line in result.stderr.splitlines() if warning in line]
    assert old == "HEAD:specs/ops.cc" and Path(new).resolve() == (project / "specs" / "ops.cc").resolve()


def test_specs_writes_cc(project):
    assert run("oplist", "-o", "ops.pbtxt").exit_code == 0
    result = run("specs", "ops.pbtxt", "-o", "out.cc", "--skip-inexpressible")
    assert result.exit_code == 0, result.output
    assert 'REGISTER_OP("Small")' in (project / "out.cc").read_text()
    printed = run("specs", "ops.pbtxt")  # without -o: to stdout, as every command's output
    assert printed.exit_code == 0 and printed.stdout == (project / "out.cc").read_text()


def test_kernels_formats_and_check(project):
    (project / "specs" / "ops.cc").write_text(_SMALL + _KERNEL)
    result = run("kernels")
    assert result.exit_code == 0 and '"Small"' in result.stdout
    result = run("kernels", "--format", "md", "-o", "k.md")
    assert result.exit_code == 0 and "Small" in (project / "k.md").read_text()
    (project / "specs" / "ops.cc").write_text(_SMALL + _KERNEL.replace('"Small"', '"Unknown"'))
    result = run("kernels")
    assert result.exit_code == 0 and ": warning: " in result.stderr and "from the kernel cross-check" in result.stderr
    assert run("kernels", "--check").exit_code == 1
    quiet = run("kernels", "--check", "-q")
    assert quiet.exit_code == 1 and "from the kernel cross-check" not in quiet.stderr


def test_build_output_options(project):
    result = run("build", "--list-outputs", "--out", "elsewhere")
    assert result.exit_code == 0 and result.stdout.splitlines()[0].startswith("elsewhere/gen_")
    assert not (project / "elsewhere").exists()
    assert run("build", "--list-outputs", "-o", "elsewhere").stdout == result.stdout  # -o, as `opgen oplist -o`
    result = run("build", "--dry-run")
    assert result.exit_code == 0 and "would create gen/" in result.stdout and not (project / "gen").exists()
    result = run("build", "--depfile", "opgen.d", "-j", "1", "--formatter", "ruff")
    assert result.exit_code == 0, result.output
    assert "specs/ops.cc" in (project / "opgen.d").read_text()


def test_build_templates_and_library_options(project):
    result = run("build", "--templates", "nope")
    assert result.exit_code == 2 and "nope" in result.stderr
    result = run("build", "--library", "_small_ops.so")
    assert result.exit_code == 0
    assert any("_small_ops.so" in p.read_text() for p in (project / "gen").glob("gen_*.py"))


def test_overrides_check(project):
    result = run("overrides", "check")
    assert (result.exit_code, result.stdout) == (0, "overrides OK: no override directory\n")
    (project / "ovr").mkdir()
    (project / "ovr" / "small.pbtxt").write_text('op { name: "Small" rename_to: "tiny" }\n')
    result = run("overrides", "check", "--overrides", "ovr")
    assert result.exit_code == 0 and result.stdout == "overrides OK: 1 of 1 ops overridden by ovr\n"
    assert run("overrides", "check", "--overrides", "ovr", "-q").stdout == ""


def test_api_and_diff(project):
    result = run("api")
    assert result.exit_code == 0 and "small" in result.stdout
    assert run("api", "--format", "json", "-o", "old.json").exit_code == 0
    result = run("diff", "old.json", "--format", "json")
    assert result.exit_code == 0, result.output
    (project / "specs" / "ops.cc").write_text(_SMALL.replace('.Attr("keep: bool = true")', ""))
    result = run("diff", "old.json")
    assert result.exit_code == 1 and "keep" in result.stdout
    assert run("diff", "old.json", "--allow-breaking").exit_code == 0
    result = run("diff", "old.json", "--format", "github")
    assert result.stdout.startswith("::")
    assert run("diff", "--git", "HEAD", "--format", "md").exit_code == 2  # not a git repository


_HOSTILE_OUT = "gen\nx\x1b[2J\r"
_ESCAPED_OUT = "gen\\nx\\x1b[2J\\x0d"


@pytest.mark.parametrize("argv", [[], ["--check"], ["--dry-run"], ["--list-outputs"], ["-v"]])
def test_user_paths_in_summary_lines_are_escaped(project, argv):
    """--out with a newline and terminal control characters: every line naming it shows it
    escaped as error messages do (`printable_path`), and stays one line."""
    result = run("build", "--out", _HOSTILE_OUT, *argv)
    assert result.exit_code in (0, 1), result.output
    shown = result.stdout + result.stderr
    assert not any(c in shown for c in "\x1b\r"), shown
    lines = shown.splitlines()
    assert [line for line in lines if "[2J" in line] == [line for line in lines if _ESCAPED_OUT in line] != []
    if not argv or argv == ["-v"]:
        assert (project / _HOSTILE_OUT / "gen_ops.py").is_file()


def test_diff_quotes_paths_as_git_does(project):
    """`--diff` names such a file the way git does (C-quoted), so `git apply` recreates it."""
    result = run("build", "--out", _HOSTILE_OUT, "--diff", "-q")
    assert result.exit_code == 0 and result.stderr == ""
    assert '+++ "b/gen\\nx\\033[2J\\r/gen_ops.py"\n' in result.stdout
    assert not any(c in result.stdout for c in "\x1b\r")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "apply"], cwd=project, input=result.stdout.encode(), check=True)
    assert run("build", "--out", _HOSTILE_OUT, "--check").exit_code == 0


def test_overrides_check_escapes_the_directory(project):
    (project / "ov\x1bx").mkdir()
    (project / "ov\x1bx" / "small.pbtxt").write_text('op {\n  name: "Small"\n  alias: "Tiny"\n}\n')
    result = run("overrides", "check", "--overrides", "ov\x1bx")
    assert result.exit_code == 0 and result.stdout == "overrides OK: 1 of 1 ops overridden by ov\\x1bx\n"


@pytest.fixture
def umask_002():
    old = os.umask(0o002)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_written_files_get_open_modes_and_keep_an_existing_mode(project, umask_002):
    """Every file a command writes gets what a plain open() would give it (0o666 less the
    umask, 0o664 here) when new, and keeps the mode of the file it replaces."""
    for argv in (["oplist", "-o", "ops.pbtxt"], ["kernels", "-o", "kernels.pbtxt"], ["api", "-o", "API.md"],
                 ["specs", "ops.pbtxt", "-o", "ops.cc"], ["build", "--depfile", "opgen.d"]):
        assert run(*argv).exit_code == 0, argv
    written = ["ops.pbtxt", "kernels.pbtxt", "API.md", "ops.cc", "opgen.d", "gen/.opgen-manifest.json",
               "gen/gen_ops.py", "gen/opgen_sourcemap.json"]
    assert {name: _mode(project / name) for name in written} == dict.fromkeys(written, 0o664)
    for mode, name in zip((0o640, 0o600, 0o644, 0o755), ["ops.pbtxt", "opgen.d", "gen/.opgen-manifest.json",
                                                         "gen/gen_ops.py"]):
        (project / name).chmod(mode)
    (project / "specs" / "ops.cc").write_text(_SMALL + 'REGISTER_OP("More").Output("z: float");\n')
    for argv in (["oplist", "-o", "ops.pbtxt"], ["build", "--depfile", "opgen.d"]):
        assert run(*argv).exit_code == 0, argv
    assert "More" in (project / "gen" / "gen_ops.py").read_text()
    assert [_mode(project / name) for name in ("ops.pbtxt", "opgen.d", "gen/.opgen-manifest.json",
                                               "gen/gen_ops.py")] == [0o640, 0o600, 0o644, 0o755]


@pytest.mark.parametrize("argv", [["oplist", "-o", "PIPE"], ["kernels", "-o", "PIPE"], ["api", "-o", "PIPE"],
                                  ["specs", "ops.pbtxt", "-o", "PIPE"], ["build", "--depfile", "PIPE"]])
def test_output_naming_a_pipe_or_device_is_written_into_never_replaced(project, argv):
    """`-o /dev/null` or a named pipe: the output goes into it; replacing it with a regular
    file (as a file's atomic write does) would break /dev/null for the whole machine. The
    pipe's read end is open before the command runs, so its write never waits for a reader,
    and the command runs in a process of its own, bounded, should it try to read the pipe."""
    assert run("oplist", "-o", "ops.pbtxt").exit_code == 0
    pipe = project / "pipe"
    os.mkfifo(pipe)
    read_end = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        done = subprocess.run([sys.executable, "-m", "opgen", *[a.replace("PIPE", str(pipe)) for a in argv]],
                              cwd=project, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True,
                              text=True, timeout=600, check=False)
        received = os.read(read_end, 1 << 16)  # (the small project's output fits in the pipe's buffer)
    finally:
        os.close(read_end)
    assert done.returncode == 0, done.stderr
    assert pipe.is_fifo() and (received or argv[0] == "kernels")  # (this project has no kernels: empty)
    assert not list(project.glob(".pipe.*"))  # no temporary file beside it


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [["oplist", "-o", "/dev/full"], ["api", "-o", "/dev/full"],
                                  ["build", "--depfile", "/dev/full"]])
def test_a_failed_write_names_the_file(project, argv):
    """A device that refuses the write (a full disk): the error names the file the user gave."""
    result = run(*argv)
    assert result.exit_code == 2
    assert result.stderr.startswith("/dev/full: error: cannot write this file: No space left on device"), result.stderr


def test_a_directory_refusing_the_temporary_file_names_the_file_given(project, monkeypatch):
    """trial22 #9: a read-only directory refuses `-o ro/x.pbtxt`'s temporary file (mocked: tests may
    run as root): the error names ro/x.pbtxt, not `.x.pbtxt.XXXX.tmp`, and says which step failed."""
    import tempfile

    def refused(prefix: str = "", suffix: str = "", dir: str = "") -> tuple[int, str]:  # mkstemp's keywords
        raise PermissionError(13, "Permission denied", os.path.join(dir, f"{prefix}d4jx7vff{suffix}"))

    (project / "ro").mkdir()
    monkeypatch.setattr(tempfile, "mkstemp", refused)
    result = run("oplist", "-o", "ro/x.pbtxt")
    assert result.exit_code == 2
    assert result.stderr.startswith("ro/x.pbtxt: error: cannot write this file: creating a temporary file in its "
                                    "directory ro failed: Permission denied\n  hint: "), result.stderr
    assert ".tmp" not in result.stderr


def test_a_file_that_cannot_be_replaced_says_so(project, monkeypatch):
    """The rename of the temporary file over the file given fails (mocked: a file of a read-only
    mount, a directory with the sticky bit): "cannot replace", never "no such file"."""
    def refused(src: str, dst: str) -> None:
        raise PermissionError(1, "Operation not permitted", src, None, dst)

    monkeypatch.setattr(os, "replace", refused)
    result = run("oplist", "-o", "x.pbtxt")
    assert result.exit_code == 2
    assert result.stderr.startswith("x.pbtxt: error: cannot replace this file: Operation not permitted"), \
        result.stderr
    assert not list(project.glob(".x.pbtxt.*"))  # the temporary file removed


@pytest.mark.skipif(not os.path.isfile("/proc/version"), reason="needs /proc (Linux)")
@pytest.mark.parametrize("argv", [["oplist", "-o", "/proc/version"], ["build", "--depfile", "/proc/version"]])
def test_a_file_of_a_directory_refusing_new_files_says_so(project, argv):
    """trial28 #5: /proc/version exists, but /proc takes no temporary file to rename over it:
    the error says that, not "cannot access file: No such file or directory"."""
    result = run(*argv)
    assert result.exit_code == 2
    assert result.stderr.startswith("/proc/version: error: cannot write this file: creating a temporary file in its "
                                    "directory /proc failed: "), result.stderr
    assert not (project / "gen").exists()  # (the depfile is written before the tree)


@pytest.mark.parametrize("argv", [["oplist", "-o", "FILE"], ["kernels", "-o", "FILE"], ["api", "--output", "FILE"],
                                  ["specs", "ops.pbtxt", "-o", "FILE"], ["build", "--depfile", "FILE"]])
def test_output_in_a_missing_directory_is_a_located_error_writing_nothing(project, argv):
    """trial28 #5: `-o buidl/x` / `--depfile buidl/opgen.d` in a directory that does not exist
    (or is a file): an error at the path given, before the command reads or writes anything
    (no directory made, no output tree), exit 2; as gcc -MF, opgen makes no directory."""
    assert run("oplist", "-o", "ops.pbtxt").exit_code == 0
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    option = "-o" if argv[-2] == "--output" else argv[-2]
    result = run(*[a.replace("FILE", "buidl dir/sub/x") for a in argv])
    assert result.exit_code == 2
    assert result.output == (f"buidl dir/sub/x: error: {option} names a file in buidl dir/sub, which does not exist\n"
                             "  hint: create the directory first (mkdir -p 'buidl dir/sub'), or fix the path: opgen "
                             f"creates no directory for {option}\n"), result.output
    result = run(*[a.replace("FILE", "pyproject.toml/x") for a in argv])
    assert result.exit_code == 2
    assert result.output.startswith(f"pyproject.toml/x: error: {option} names a file in pyproject.toml, which is not "
                                    "a directory\n  hint: fix the path:"), result.output
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before


@pytest.mark.parametrize("where", ["no/such/dir", "pyproject.toml"])
def test_depfile_relative_to_must_be_a_directory(project, where):
    """trial28 #5: `--depfile-relative-to` naming no directory is a usage error (it wrote absolute
    paths, silently)."""
    result = run("build", "--depfile", "opgen.d", "--depfile-relative-to", where)
    assert result.exit_code == 2
    assert "opgen: error: Invalid value for '--depfile-relative-to': Directory " in result.output, result.output
    assert not (project / "opgen.d").exists() and not (project / "gen").exists()


@pytest.mark.parametrize("argv", [["oplist", "-o", "DIR"], ["kernels", "-o", "DIR"], ["api", "-o", "DIR"],
                                  ["specs", "ops.pbtxt", "-o", "DIR"], ["build", "--depfile", "DIR"]])
def test_output_naming_a_directory_is_a_located_error_writing_nothing(project, argv):
    """`-o DIR` / `--depfile DIR`: the error names the path the user gave (never a temporary
    file) with a hint, exit 2, and nothing is written (no temporary file, no output tree)."""
    assert run("oplist", "-o", "ops.pbtxt").exit_code == 0
    (project / "out dir").mkdir()
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    result = run(*[a.replace("DIR", "out dir/") for a in argv])
    assert result.exit_code == 2
    assert result.output.startswith("out dir: error: a directory where a file is expected\n  hint: -o and --depfile"), \
        result.output
    assert ".tmp" not in result.output and "Traceback" not in result.output
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before


def test_out_moves_the_whole_tree_api_snapshot_included(project):
    """`[tool.opgen] api` is a place inside the tree `out` names (the config is checked on
    its own: `api` outside `out` is an error, with `--out` or without); `--out` moves that
    whole tree, the snapshot to the same place inside it, and writes nothing outside it
    (as `--help` says)."""
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace('out = "gen"', 'out = "pkg/ops"\napi = "pkg/ops/docs/API.md"'))
    result = run("build", "--list-outputs", "--out", "elsewhere")
    assert result.exit_code == 0 and "elsewhere/docs/API.md" in result.stdout.splitlines(), result.output
    result = run("build", "--out", "elsewhere")
    assert result.exit_code == 0, result.output
    assert (project / "elsewhere" / "docs" / "API.md").is_file() and not (project / "pkg").exists()
    assert "the API snapshot ([tool.opgen] api, a path inside out) to the same place inside it" in _flat(
        run("build", "--help").stdout)
    config.write_text(config.read_text().replace('api = "pkg/ops/docs/API.md"', 'api = "elsewhere/API.md"'))
    for argv in ([], ["--out", "elsewhere"]):
        result = run("build", *argv)
        assert result.exit_code == 2 and "elsewhere/API.md" in result.output and "not inside" in result.output, \
            result.output


def test_quiet_before_a_group_s_command(project):
    """trial13 #10: `-q` goes before or after the command, a group's (`opgen overrides check`)
    included."""
    after = run("overrides", "check", "-q")
    for argv in (["overrides", "-q", "check"], ["-q", "overrides", "check"]):
        result = run(*argv)
        assert (result.exit_code, result.output) == (after.exit_code, after.output), argv
    assert "exclude each other" in run("overrides", "-q", "check", "-v").output
