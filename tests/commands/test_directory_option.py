"""`opgen -C DIR`: every command runs as if started in DIR (as `git -C`, `make -C`), messages
name files relative to DIR as git's do, and a DIR that cannot be entered is a located error."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.apidiff_cases import git
from support.paths import REPO

from opgen.cli import cli

_SMALL = 'REGISTER_OP("Small").Input("x: float").Output("y: float").Attr("keep: bool = true");\n'
_KERNEL = 'REGISTER_KERNEL_BUILDER(Name("Small").Device(DEVICE_CPU), SmallOp);\n'


@pytest.fixture
def outside(tmp_path, monkeypatch) -> Path:
    """A working directory beside the project `proj` (a git repository with its first
    commit), where no pyproject.toml is found."""
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "specs" / "ops.cc").write_text(_SMALL + _KERNEL)
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs"]\nout = "gen"\noverrides = ""\n')
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "elsewhere"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


# Every command, as in the project's directory: `opgen -C ../proj ARGV` prints what `opgen
# ARGV` prints there, byte for byte (paths relative to the project), with the same exit status,
# but for the hints naming a command to run, which carry the -C (`test_hints_name_the_command_with_its_directory`).
_EVERY_COMMAND = [
    ["build"], ["build", "--check"], ["build", "--diff"], ["build", "--dry-run"], ["build", "--list-outputs"],
    ["build", "specs/ops.cc", "--out", "elsewhere", "--depfile", "build.d"],
    ["oplist"], ["oplist", "-o", "ops.pbtxt"], ["kernels"], ["kernels", "--check"], ["api"],
    ["overrides", "check"], ["diff", "--git", "HEAD"], ["diff", "specs", "specs/ops.cc"],
    ["init", "pkg"], ["build", "nope.cc"], ["-q", "build", "-v"],
]


def _timeless(text: str) -> str:
    return re.sub(r"\d+\.\d+s\b", "N.NNs", text)


@pytest.mark.parametrize("argv", _EVERY_COMMAND, ids=" ".join)
def test_every_command_runs_as_if_started_in_dir(outside, monkeypatch, argv):
    project = outside.parent / "proj"
    there = run("-C", "../proj", *argv)
    assert Path.cwd() == outside  # back where it was
    assert not any(outside.iterdir()), "wrote into the working directory, not DIR"
    written = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if ".git" not in p.parts)
    git(project, "clean", "-fdxq")
    git(project, "checkout", "-q", ".")
    monkeypatch.chdir(project)
    here = run(*argv)
    carried = there.stderr.replace("opgen -C ../proj ", "opgen ")
    assert (there.exit_code, there.stdout, _timeless(carried)) == (here.exit_code, here.stdout, _timeless(here.stderr))
    assert written == sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if ".git" not in p.parts)
    assert here.exit_code != 1 or argv == ["build", "--check"], here.output


@pytest.mark.parametrize("directory", [["-C", "../proj"], ["--directory", "../proj"], ["-C", "..", "-C", "proj"],
                                       ["-C", "", "-C", "../proj"]], ids=" ".join)
@pytest.mark.parametrize("check", ["--check", "--diff"])
def test_a_stale_projects_summary_names_the_command_with_its_directory(outside, monkeypatch, directory, check):
    """A trial's `opgen -C pkg_a build --diff` said `run `opgen build``, which, typed where the
    user was, builds another project or none: the command to copy carries the -C (several
    joined, as opgen joins them; `-C ""` adds nothing)."""
    result = run(*directory, "build", check)
    assert result.exit_code == (1 if check == "--check" else 0), result.output
    assert result.stderr.endswith("opgen build: 3 files of 3 in gen would change; run `opgen -C ../proj build`\n")
    monkeypatch.chdir(outside.parent / "proj")  # the next command in the process, given no -C, names none
    result = run("build", check)
    assert result.stderr.endswith("opgen build: 3 files of 3 in gen would change; run `opgen build`\n")


def test_the_directory_is_quoted_for_the_shell(outside):
    (outside.parent / "my proj").symlink_to(outside.parent / "proj")
    result = run("-C", "../my proj", "build", "--check")
    assert result.exit_code == 1
    assert result.stderr.endswith("would change; run `opgen -C '../my proj' build`\n"), result.stderr


@pytest.mark.parametrize(("argv", "hint"), [
    (["-C", "../bare", "build"], ("pass the sources (opgen -C ../bare build ops/*.cc), set [tool.opgen] sources in "
                                  "pyproject.toml, or run `opgen -C ../bare init` to start a project\n")),
    (["-C", "../proj", "diff"], "opgen -C ../proj diff old_specs/ new_specs/  |  opgen -C ../proj diff --git HEAD~1\n"),
    (["-C", "../proj", "diff", "--git", "HEAD", "a", "b"], "opgen -C ../proj diff --git REV [NEW]\n"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_hints_name_the_command_with_its_directory(outside, argv, hint):
    """The other hints that name a command to run carry the -C too, to be copied as they are."""
    (outside.parent / "bare").mkdir()
    (outside.parent / "bare" / "pyproject.toml").write_text("[tool.opgen]\n")  # (no sources, no op_specs)
    result = run(*argv)
    assert result.exit_code == 2, result.output
    assert f"\n  hint: {hint}" in result.stderr, result.stderr


def test_building_some_sources_names_the_projects_build_with_its_directory(outside):
    project = outside.parent / "proj"
    assert run("-C", "../proj", "build", "-q").exit_code == 0
    (project / "specs" / "more.cc").write_text(_SMALL.replace("Small", "More"))
    assert run("-C", "../proj", "build", "-q").exit_code == 0
    result = run("-C", "../proj", "build", "specs/ops.cc")
    assert result.exit_code == 2, result.output
    assert ("\n  hint: run `opgen -C ../proj build` without sources to build all of the project's; "
            in result.stderr), result.stderr


def test_pyproject_is_found_in_dir_and_paths_are_relative_to_it(outside):
    """Without -C nothing is found here; with it the project's settings apply, and an
    error in a source is located relative to DIR, as `git -C DIR` prints paths."""
    assert run("build").exit_code == 2  # no pyproject.toml, no op_specs
    result = run("-C", "../proj", "build", "-v")
    assert result.exit_code == 0, result.output
    assert "opgen: settings from pyproject.toml ([tool.opgen])\n" in result.stderr  # (relative to DIR)
    assert " -> gen: 3 written" in result.stderr
    assert (outside.parent / "proj" / "gen" / "gen_ops.py").is_file()
    (outside.parent / "proj" / "specs" / "ops.cc").write_text('REGISTER_OP("Small").Input("x: nosuchtype");\n')
    result = run("-C", "../proj", "build", "--check")
    assert result.exit_code == 2
    assert result.stderr.startswith("specs/ops.cc:1:"), result.stderr


def test_repeated_directories_combine_as_in_git(outside):
    """`-C a -C b` is a/b; an absolute DIR starts afresh; `-C ""` changes nothing."""
    project = outside.parent / "proj"
    assert run("-C", "..", "-C", "proj", "build").exit_code == 0
    assert (project / "gen" / "gen_ops.py").is_file()
    assert run("-C", "nowhere", "-C", str(project), "build", "--check").exit_code == 0
    assert run("-C", "", "-C", "..", "-C", "", "-C", "proj", "--directory", "specs", "oplist", "ops.cc").exit_code == 0
    result = run("-C", "..", "-C", "proj", "-C", "nosuch", "build")
    assert result.exit_code == 2
    assert result.stderr.startswith("../proj/nosuch: error: -C names a directory that does not exist\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["-C", "nosuch", "build"], ("nosuch: error: -C names a directory that does not exist\n  hint: fix the path: "
                                 "a relative -C DIR is relative to the working directory (or to the -C before it)\n")),
    (["--directory", "../proj/pyproject.toml", "build"],
     ("../proj/pyproject.toml: error: -C names a file, not a directory\n  hint: give the directory to run in, "
      "such as the file's: opgen -C ../proj COMMAND\n")),
    (["-C", "x\x1by", "api"], "x\\x1by: error: -C names a directory that does not exist\n"),
])
def test_a_directory_that_cannot_be_entered_is_a_located_error(outside, argv, message):
    result = run(*argv)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(message) and result.stdout == ""
    assert "Traceback" not in result.output and Path.cwd() == outside


def test_a_directory_that_refuses_entry_is_a_located_error(outside, monkeypatch):
    """A directory without search permission (faked: root enters any directory)."""
    chdir = os.chdir

    def refusing(path):
        if path == "../proj/specs":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        chdir(path)

    monkeypatch.setattr(os, "chdir", refusing)
    result = run("-C", "../proj", "-C", "specs", "build")
    assert result.exit_code == 2
    assert result.stderr == ("../proj/specs: error: -C cannot enter this directory: Permission denied\n"
                             "  hint: check its permissions (ls -ld ../proj/specs)\n")


def test_dash_c_after_the_command_says_where_it_goes(outside):
    result = run("build", "-C", "../proj")
    assert result.exit_code == 2
    assert ("No such option '-C'.\n  hint: -C is an option of 'opgen' itself: give it before the command "
            "('opgen -C DIR build ...')\n") in result.stderr


def test_help_and_completion(outside):
    result = run("--help")
    assert "-C, --directory DIR" in result.stdout and "-C a -C b is a/b" in " ".join(result.stdout.split())
    result = CliRunner().invoke(cli, [], env={"_OPGEN_COMPLETE": "bash_complete", "COMP_WORDS": "opgen -C pr",
                                              "COMP_CWORD": "2"})
    assert result.stdout.splitlines() == ["dir,pr"]  # the shell lists the directories


def test_console_script_in_a_subprocess(outside):
    """The process stays in DIR to the end: what the command writes lands there."""
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"]}
    r = subprocess.run([sys.executable, "-m", "opgen", "-C", "../proj", "build", "-q", "--depfile", "gen.d"],
                       capture_output=True, text=True, env=env, check=False)
    assert (r.returncode, r.stderr) == (0, "")
    assert (outside.parent / "proj" / "gen.d").read_text().startswith("gen/")


def test_a_monorepo_checks_and_fixes_a_project_from_its_root(tmp_path, monkeypatch):
    """docs/migrating.md's and docs/build-integration.md's recipes: from the repository's
    root, `opgen -C pkg build --diff | git apply --directory=pkg` fixes the project's tree, new
    and stale modules, in the scaffold's layout (out `pkg` inside `pkg`: git run inside `pkg`
    misreads `pkg/...` paths, trial36 #1), `--check` then passes, and
    `--depfile ../opgen.d --depfile-relative-to ..` writes a depfile the root's build tool
    reads."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "mono"
    (root / "pkg" / "specs").mkdir(parents=True)
    (root / "pkg" / "specs" / "ops.cc").write_text(_SMALL)
    (root / "pkg" / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs"]\nout = "pkg"\noverrides = ""\n')
    git(root, "init", "-q")
    monkeypatch.chdir(root)
    for step in ("new", "stale"):
        assert run("-C", "pkg", "build", "--check").exit_code == 1
        diff = run("-C", "pkg", "build", "--diff", "-q")
        assert diff.exit_code == 0 and "+++ b/pkg/gen_ops.py\n" in diff.stdout, step
        subprocess.run(["git", "apply", "--directory=pkg"], input=diff.stdout, text=True, check=True)
        assert run("-C", "pkg", "build", "--check").exit_code == 0, step
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", step)
        (root / "pkg" / "specs" / "ops.cc").write_text(_SMALL.replace('.Attr("keep: bool = true")', ""))
    (root / "pkg" / "specs" / "ops.cc").write_text(_SMALL)
    result = run("-C", "pkg", "build", "-q", "--depfile", "../opgen.d", "--depfile-relative-to", "..")
    assert result.exit_code == 0, result.output
    assert (root / "opgen.d").read_text().startswith("pkg/pkg/gen_ops.py pkg/pkg/opgen_sourcemap.json ")
    # GitHub reads an annotation's path from the repository's root, wherever opgen ran
    assert run("-C", "pkg", "api", "--format", "json", "-o", "old.json").exit_code == 0
    (root / "pkg" / "specs" / "ops.cc").write_text(_SMALL.replace('.Attr("keep: bool = true")', ""))
    result = run("-C", "pkg", "diff", "old.json", "--format", "github")
    assert result.exit_code == 1 and "file=pkg/specs/ops.cc,line=1," in result.stdout, result.output
