"""`opgen build --depfile` in real build tools, driven by the snippets docs/build-integration.md shows: ninja,
make and CMake (Ninja and Unix Makefiles generators) rerun opgen once after a change to any file
it read (an included header, pyproject.toml, a template, an override, a new override or source file,
the formatter's installed metadata), and do nothing otherwise;
`--list-outputs` names exactly the files the build writes."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support.paths import REPO

OPGEN = f"env PYTHONPATH={REPO} {sys.executable} -m opgen build"  # stands for `opgen build` in the snippets
RAN = "opgen build: "  # opgen's summary line, printed by every build it runs
# (a new file in a source or override directory: its directory's mtime changes)
EDITS = ["specs/common_macros.h", "pyproject.toml", "tpl/function.py.j2", "ov/math_ops.pbtxt", "ov/new_override.pbtxt",
         "specs/new_ops.cc"]


def _doc_snippet(lang: str) -> str:
    """The ```lang block of docs/build-integration.md, with `opgen build` runnable here."""
    page = (REPO / "docs" / "build-integration.md").read_text(encoding="utf-8")
    (block,) = re.findall(rf"^```{lang}\n(.*?)^```$", page, flags=re.DOTALL | re.MULTILINE)
    return block.replace("opgen build", OPGEN)


def _project(root: Path) -> Path:
    (root / "specs").mkdir(parents=True)
    for name in ("math_ops.cc", "common_macros.h"):
        shutil.copy(REPO / "op_specs" / name, root / "specs" / name)
    # (not __pycache__: another process may be writing compiled templates there)
    shutil.copytree(REPO / "templates", root / "tpl", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "ov").mkdir()
    shutil.copy(REPO / "overrides" / "math_ops.pbtxt", root / "ov" / "math_ops.pbtxt")
    # the sources declare TF's own ops on purpose: keep them (docs/gathering.md, core ops)
    (root / "pyproject.toml").write_text('[tool.opgen]\ncore_ops = ["*"]\nsources = ["specs"]\noverrides = "ov"\n'
                                         'templates = "tpl"\napi = "generated/API.md"\n', encoding="utf-8")
    return root


def _opgen(root: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "opgen", "build", *argv], cwd=root, capture_output=True, text=True,
                          check=False, env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_list_outputs_is_what_build_writes(tmp_path):
    root = _project(tmp_path / "p")
    listed = _opgen(root, "--list-outputs").stdout.split()
    assert "generated/API.md" in listed and "generated/opgen_sourcemap.json" in listed
    assert _opgen(root).returncode == 0
    assert listed[-3:] == [
        "generated/opgen_sourcemap.json",
        "generated/API.md",
        "generated/.gitignore",
    ]  # modules first
    written = sorted(p.relative_to(root).as_posix() for p in (root / "generated").rglob("*")
                     if p.is_file() and not p.name.startswith(".opgen-"))
    assert sorted(listed) == written


def test_list_outputs_reports_errors_but_no_warnings(tmp_path):
    """trial21 #4: make runs `--list-outputs` on every invocation (`$(shell ...)`): the build
    reports the warnings, the listing does not; an error still stops it, located, exit 2."""
    root = _project(tmp_path / "p")
    (root / "specs" / "orphan.cc").write_text(
        'REGISTER_KERNEL_BUILDER(Name("Nowhere").Device(DEVICE_CPU), NowhereOp);\n', encoding="utf-8")
    assert "warning: the CPU kernel of 'Nowhere'" in _opgen(root, "--dry-run").stderr
    listed = _opgen(root, "--list-outputs")
    assert (listed.returncode, listed.stderr) == (0, "") and "generated/API.md" in listed.stdout
    (root / "specs" / "bad.cc").write_text('REGISTER_OP("Bad").Input("x: flaot");\n', encoding="utf-8")
    listed = _opgen(root, "--list-outputs")
    assert listed.returncode == 2 and listed.stderr.startswith("specs/bad.cc:1:30: error: "), listed.stderr


def test_gitignore_hides_opgens_internals_but_never_replaces_a_users(tmp_path):
    root = _project(tmp_path / "p")
    assert _opgen(root).returncode == 0
    ignore = (root / "generated" / ".gitignore").read_text().splitlines()
    assert {".opgen-lock", ".opgen-manifest.json", ".opgen-journal.json", ".opgen-staging/"} <= set(ignore)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "generated"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    assert ".opgen-" not in status and "generated/.gitignore" in status
    root2 = _project(tmp_path / "q")
    (root2 / "generated").mkdir()
    (root2 / "generated" / ".gitignore").write_text("*.pyc\n")
    assert _opgen(root2).returncode == 0
    assert (root2 / "generated" / ".gitignore").read_text() == "*.pyc\n"
    assert "generated/.gitignore" not in _opgen(root2, "--list-outputs").stdout.split()


def test_depfile_lists_everything_read_and_written(tmp_path):
    root = _project(tmp_path / "p")
    assert _opgen(root, "--depfile", "opgen.d").returncode == 0
    targets, deps = (root / "opgen.d").read_text().split(": ", 1)
    assert targets.split() == _opgen(root, "--list-outputs").stdout.split()
    deps_list = deps.split()
    for needed in ("specs", "specs/math_ops.cc", "specs/common_macros.h", "pyproject.toml", "ov", "ov/math_ops.pbtxt",
                   "tpl/function.py.j2", "tpl/module_header.py.j2", "tpl/module_registration.py.j2"):
        assert needed in deps_list, needed
    black = importlib.metadata.distribution("black")
    assert [d for d in deps_list if d.endswith("/METADATA")] == [
        str(black.locate_file(f"black-{black.version}.dist-info/METADATA"))]  # the formatter's identity


def test_depfile_relative_to_a_directory(tmp_path):
    """CMake reads a DEPFILE's paths relative to CMAKE_CURRENT_BINARY_DIR: below that directory
    they are relative to it, elsewhere absolute."""
    root = _project(tmp_path / "p")
    (root / "build").mkdir()
    assert _opgen(root, "--depfile", "build/opgen.d", "--depfile-relative-to", "build").returncode == 0
    paths = (root / "build" / "opgen.d").read_text().replace(":", "").split()
    assert f"{root}/generated/API.md" in paths and f"{root}/specs/common_macros.h" in paths
    assert all(Path(p).is_absolute() for p in paths)
    assert _opgen(root, "--depfile", "opgen.d", "--depfile-relative-to", "..").returncode == 0
    paths = (root / "opgen.d").read_text().replace(":", "").split()
    assert "p/generated/API.md" in paths and "p/specs/common_macros.h" in paths
    unused = _opgen(root, "--depfile-relative-to", ".")
    assert unused.returncode == 2 and "--depfile-relative-to needs --depfile" in unused.stderr


def _edit(root: Path, rel: str, out: str = "generated") -> None:
    """Change the input `rel` (or create it, empty) the way an edit does: every
    output dates from 10 s ago and the input from now, so a build that runs opgen (and, for
    make, touches the outputs) leaves the outputs no older than any input, whatever the file
    system's time granularity."""
    past = time.time() - 10
    for output in (root / out).iterdir():
        os.utime(output, (past, past))
    path = root / rel
    if path.exists():
        os.utime(path)
    else:
        path.write_text("", encoding="utf-8")  # the directory's mtime moves to now too


def _check_rebuilds(root: Path, build: Callable[[], str], edits: list[str] = EDITS, out: str = "generated") -> None:
    """The first build runs opgen, the next does nothing; after each edit (`edits`) one build
    runs opgen and the next does nothing again."""
    assert RAN in build()
    assert RAN not in build()
    for rel in edits:
        _edit(root, rel, out)
        assert RAN in build(), f"opgen did not rerun after an edit of {rel}"
        assert RAN not in build(), f"opgen reran twice after an edit of {rel}"


def _run(argv: list[str], cwd: Path) -> str:
    r = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    assert r.returncode == 0, r.stdout
    return r.stdout


@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja not installed (apt-get install ninja-build)")
def test_readme_ninja_rule_reruns_opgen_when_an_input_changes(tmp_path):
    root = _project(tmp_path / "p")
    snippet = _doc_snippet("ninja")
    edge = next(line for line in snippet.splitlines() if line.startswith("build "))
    assert edge == f"build {' '.join(_opgen(root, '--list-outputs').stdout.split())}: opgen"  # ninja checks the first
    (root / "build.ninja").write_text(snippet, encoding="utf-8")
    _check_rebuilds(root, lambda: _run(["ninja"], root))


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed (apt-get install make)")
def test_readme_make_rule_reruns_opgen_when_an_input_changes(tmp_path):
    root = _project(tmp_path / "p")
    (root / "Makefile").write_text(_doc_snippet("make"), encoding="utf-8")
    _check_rebuilds(root, lambda: _run(["make"], root))


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed (apt-get install make)")
def test_readme_make_rule_survives_a_renamed_input(tmp_path):
    """An input renamed (or deleted) since the last build: `make` reruns opgen, as after `gcc
    -MP` depfiles, rather than stopping at "No rule to make target"."""
    root = _project(tmp_path / "p")
    (root / "Makefile").write_text(_doc_snippet("make"), encoding="utf-8")
    assert RAN in _run(["make"], root)
    assert "specs/math_ops.cc:" in (root / "opgen.d").read_text()
    (root / "specs" / "math_ops.cc").rename(root / "specs" / "linalg_ops.cc")
    assert RAN in _run(["make"], root)
    assert RAN not in _run(["make"], root)


def _fresh_clone(root: Path) -> None:
    """`root` with its outputs committed, as a clone checks it out: no depfile, and every file
    (inputs and outputs) of one age, so no input is newer than the outputs."""
    assert _opgen(root).returncode == 0
    assert not (root / "opgen.d").exists()
    checkout = time.time() - 10
    for path in root.rglob("*"):
        os.utime(path, (checkout, checkout))


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed (apt-get install make)")
@pytest.mark.parametrize("first_make", [False, True], ids=["edit_first", "make_first"])
def test_readme_make_rule_in_a_fresh_clone_with_committed_outputs(tmp_path, first_make):
    """A clone has the outputs but no depfile: after an edit of a default `make` regenerates
    (whether or not it ran before the edit), and the next `make` does nothing."""
    root = _project(tmp_path / "p")
    (root / "Makefile").write_text(_doc_snippet("make"), encoding="utf-8")
    _fresh_clone(root)
    if first_make:
        assert RAN in _run(["make"], root)  # writes the depfile (the outputs stay as they are)
        assert RAN not in _run(["make"], root)
        _edit(root, "specs/math_ops.cc")  # outputs from 10 s ago, as after any earlier build
    spec = root / "specs" / "math_ops.cc"
    assert '.Attr("transpose_a: bool = false")' in spec.read_text()
    spec.write_text(spec.read_text().replace('.Attr("transpose_a: bool = false")', '.Attr("transpose_a: bool = true")'))
    assert RAN in _run(["make"], root)
    assert "transpose_a: bool = True" in (root / "generated" / "gen_math_ops.py").read_text()
    assert RAN not in _run(["make"], root)


@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja not installed (apt-get install ninja-build)")
def test_readme_ninja_rule_in_a_fresh_clone_with_committed_outputs(tmp_path):
    """trial21 #3: a clone has the outputs but no depfile and no .ninja_log: the first `ninja`
    runs opgen, which leaves the outputs as they are but dates them now (ninja knew no input
    before the depfile, and its restat rule would record their time as 0 and run opgen again);
    the next does nothing, and edits rerun it once as anywhere."""
    root = _project(tmp_path / "p")
    (root / "build.ninja").write_text(_doc_snippet("ninja"), encoding="utf-8")
    _fresh_clone(root)
    _check_rebuilds(root, lambda: _run(["ninja"], root))


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("ninja") is None, reason="needs cmake and ninja")
def test_readme_cmake_command_with_ninja_in_a_fresh_clone(tmp_path):
    """As the plain ninja rule (trial21 #3): CMake's Ninja generator in a fresh clone runs
    opgen once, then not again until an input changes."""
    root = _project(tmp_path / "p")
    first, rest = _doc_snippet("cmake").split("\n", 1)
    (root / "CMakeLists.txt").write_text(f"{first}\nproject(opgen_test NONE)\n{rest}", encoding="utf-8")
    _fresh_clone(root)
    _run(["cmake", "-S", str(root), "-B", str(root / "build"), "-G", "Ninja"], root)
    _check_rebuilds(root, lambda: _run(["cmake", "--build", str(root / "build")], root))


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed (apt-get install cmake)")
@pytest.mark.parametrize("generator, tool", [("Ninja", "ninja"), ("Unix Makefiles", "make")])
def test_readme_cmake_command_reruns_opgen_when_an_input_changes(tmp_path, generator, tool):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed: CMake's {generator} generator needs it")
    root = _project(tmp_path / "p")
    first, rest = _doc_snippet("cmake").split("\n", 1)
    assert first.startswith("cmake_minimum_required(")
    (root / "CMakeLists.txt").write_text(f"{first}\nproject(opgen_test NONE)\n{rest}", encoding="utf-8")
    _run(["cmake", "-S", str(root), "-B", str(root / "build"), "-G", generator], root)
    _check_rebuilds(root, lambda: _run(["cmake", "--build", str(root / "build")], root))


@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja not installed (apt-get install ninja-build)")
def test_ninja_reruns_opgen_when_the_formatter_changes(tmp_path):
    """An upgrade (or reinstall) of the formatter rewrites its distribution's METADATA, which
    the depfile lists. Here a copy of black's dist-info, first on the path, stands for the
    installed one, so the shared environment is not touched."""
    root = _project(tmp_path / "p")
    black = importlib.metadata.distribution("black")
    site = tmp_path / "site"
    info = f"black-{black.version}.dist-info"
    shutil.copytree(black.locate_file(info), site / info)
    command = f"{sys.executable} -m opgen build --depfile opgen.d"
    outputs = _opgen(root, "--list-outputs").stdout.split()
    (root / "build.ninja").write_text(
        f"rule opgen\n  command = env PYTHONPATH={site}:{REPO} {command}\n  depfile = opgen.d\n  restat = 1\n"
        f"build {' '.join(outputs)}: opgen\n", encoding="utf-8")

    def ninja() -> str:
        return subprocess.run(["ninja"], cwd=root, capture_output=True, text=True, check=True).stdout

    assert "opgen build" in ninja()
    assert f"{site / info / 'METADATA'}" in (root / "opgen.d").read_text()
    assert "no work to do" in ninja()
    later = time.time() + 5
    os.utime(site / info / "METADATA", (later, later))
    assert "opgen build" in ninja()
    assert "no work to do" in ninja()


# ------------------------------------------------------------------ hostile file names
# Every character make or ninja gives a meaning to, in a source, the header it includes, an
# override file and the output directory; each tool reads its own depfile (--depfile-format).
MAKE_NAMES = {"source": "s p#c$d:e[1]%f=g*h?i.cc", "header": "h j\tl|m#n$o=.h", "override": "o v%w=x\\y.md",
              "out": "gen o#1$x:y%z=w\\v"}
NINJA_NAMES = {"source": "s p#c$d:e[1]%f=g~h!i@j.cc", "header": "h j#k$l=m(n).h", "override": "o v%w=x\\y\\ z\\#.md",
               "out": "gen o#1$x:y[2]%z=w\\v"}


def _hostile_project(root: Path, names: dict[str, str]) -> list[str]:
    """A project whose inputs and output directory carry `names`; returns its inputs (to edit)."""
    (root / "specs").mkdir(parents=True)
    source = (REPO / "op_specs" / "math_ops.cc").read_text(encoding="utf-8")
    (root / "specs" / names["source"]).write_text(source.replace('"common_macros.h"', f'"{names["header"]}"'),
                                                  encoding="utf-8")
    shutil.copy(REPO / "op_specs" / "common_macros.h", root / "specs" / names["header"])
    (root / "ov").mkdir()
    (root / "ov" / names["override"]).write_text("notes\n", encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[tool.opgen]\ncore_ops = ["*"]\nsources = ["specs"]\noverrides = "ov"\n', encoding="utf-8"
    )
    return [f"specs/{names['source']}", f"specs/{names['header']}", f"ov/{names['override']}", "pyproject.toml"]


def _no_strays(root: Path, before: set[str]) -> None:
    """Nothing but opgen's outputs and the tool's own files appeared: no command from a name ran."""
    made = {p.relative_to(root).parts[0] for p in root.rglob("*")} - before
    assert made <= {"opgen.d", ".ninja_log", ".ninja_deps"} | {n for n in made if n.startswith("gen o")}, made


def _makefile(out: str, outputs: list[str]) -> str:
    """A grouped rule for `outputs`, its names spelled as the depfile spells them."""
    from opgen.outputs.depfile import spell_name

    command = f"{OPGEN} --out {shlex.quote(out)} --depfile opgen.d".replace("$", "$$")
    touch = " ".join(shlex.quote(o) for o in outputs).replace("$", "$$")
    return (f"all: {' '.join(spell_name(o, 'make', target=False) for o in outputs)}\n"
            f"{' '.join(spell_name(o, 'make', target=True) for o in outputs)} &:\n\t{command}\n\ttouch {touch}\n"
            "-include opgen.d\n")


def _build_ninja(out: str, outputs: list[str]) -> str:
    def escaped(path: str) -> str:  # build.ninja's own escapes (not the depfile's)
        return path.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")

    return (f"rule opgen\n  command = {OPGEN.replace('$', '$$')} --out {escaped(shlex.quote(out))} --depfile opgen.d "
            "--depfile-format ninja\n  depfile = opgen.d\n  restat = 1\n"
            f"build {' '.join(escaped(o) for o in outputs)}: opgen\n")


@pytest.mark.parametrize("tool, names, build_file, write", [("make", MAKE_NAMES, "Makefile", _makefile),
                                                            ("ninja", NINJA_NAMES, "build.ninja", _build_ninja)])
def test_tools_read_hostile_names_exactly(tmp_path, tool, names, build_file, write):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed (apt-get install {'ninja-build' if tool == 'ninja' else 'make'})")
    root = tmp_path / "p"
    edits = _hostile_project(root, names)
    outputs = _opgen(root, "--out", names["out"], "--list-outputs").stdout.splitlines()
    (root / build_file).write_text(write(names["out"], outputs), encoding="utf-8")
    before = {p.name for p in root.iterdir()}
    _check_rebuilds(root, lambda: _run([tool], root), edits, names["out"])
    _no_strays(root, before)


UNREADABLE = [  # (tool, where the name goes, name): a located error, exit 2, nothing written, nothing run
    ("make", "override", "x.md;touch${IFS}PWNED;y.md"),
    ("ninja", "override", "x.md;touch${IFS}PWNED;y.md"),
    ("make", "override", "a\nb.md"),
    ("ninja", "override", "a\nb.md"),
    ("ninja", "source", "a\tb.cc"),
    ("ninja", "override", "a*b.md"),
    ("make", "out", "gen|x"),
    ("make", "out", "gen\tx"),
    ("ninja", "header", "h:"),
    ("make", "header", "a(b)"),
    ("make", "source", "x\\[1].cc"),
]


@pytest.mark.parametrize("tool, where, name", UNREADABLE)
def test_names_a_tool_cannot_read_are_located_errors(tmp_path, tool, where, name):
    root = tmp_path / "p"
    _hostile_project(root, {"source": "s.cc", "header": "h.h", "override": "o.md", "out": "gen",
                            **({where: name} if where != "out" else {})})
    out = name if where == "out" else "generated"
    before = {p.name for p in root.iterdir()}
    r = _opgen(root, "--out", out, "--depfile", "opgen.d", "--depfile-format", tool)
    assert r.returncode == 2, r.stderr
    assert f"error: a depfile for {tool} cannot name this file" in r.stderr and "Traceback" not in r.stderr
    assert {p.name for p in root.iterdir()} == before  # no depfile, no output tree, no PWNED


def test_a_name_that_is_not_utf8_is_written_as_its_bytes(tmp_path):
    """A file name that does not decode (a lone surrogate in Python) goes to the depfile as the
    bytes it has on disk, for make and ninja alike."""
    root = tmp_path / "p"
    _hostile_project(root, {"source": "s.cc", "header": "h.h", "override": "o.md", "out": "gen"})
    (root / "ov" / os.fsdecode(b"x\xff.md")).write_text("", encoding="utf-8")
    for tool in ("make", "ninja"):
        r = _opgen(root, "--depfile", "opgen.d", "--depfile-format", tool)
        assert r.returncode == 0, r.stderr
        assert b" ov/x\xff.md " in (root / "opgen.d").read_bytes()


def test_depfile_format_needs_depfile(tmp_path):
    root = _project(tmp_path / "p")
    r = _opgen(root, "--depfile-format", "ninja")
    assert r.returncode == 2 and "--depfile-format needs --depfile" in r.stderr
