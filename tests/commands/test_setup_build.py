"""`opgen.setup_helpers.build_ext` compiling op libraries incrementally and in parallel
(`opgen/library_build.py`): a library is compiled again only when its recorded state (command
line, compiler, the content of its sources and of the headers its depfiles name, the library
itself) changed, or with `--force`; those to compile run at most `-j` (else the CPU count) at a
time, each's output reported whole; the op library check runs again only when what it checks
changed. A fake compiler (`_FAKE_CXX`, a Python script: it follows `#include "..."`, writes the
depfile and logs each compile) stands in for g++, in process, so that each build takes a
fraction of a second; one test builds a small library (no TensorFlow) with the real g++.
tests/commands/test_scaffold.py builds a scaffolded package twice by `setup.py` and by `pip
wheel`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import setuptools
from setuptools import Distribution
from setuptools.errors import CompileError
from support.paths import REPO

from opgen import setup_helpers
from opgen.cli import main
from opgen.library_build import parse_depfile
from opgen.setup_helpers import OpLibrary, build_ext

from distutils import log  # isort: skip  # setuptools' distutils: imported after setuptools

# Stands in for g++ as `$CXX`. A compile (-c) follows the source's `#include "..."` (from the
# including file's folder, then the -I folders; one found in none is taken for a system
# header, as TensorFlow's are here: no dependency), writes the object (the source's and headers'
# text and the -D flags, so that any change shows in the library) and the depfile (-MF, target
# -MT); a link writes the objects' text. It appends `start NAME` and `end NAME` (NAME: the
# source's stem) to $FAKE_CXX_LOG around a compile. A source's comments steer it: `// fail`
# fails the compile, `// warn` warns, `// meet OTHER` waits (60 s at most, then fails) until
# OTHER's compile has started: two that meet each other compile at the same time or fail.
_FAKE_CXX = r'''
import os, sys, time
from pathlib import Path

args = sys.argv[1:]


def value(flag):
    return args[args.index(flag) + 1] if flag in args else None


def note(line):
    with open(os.environ["FAKE_CXX_LOG"], "a") as f:
        f.write(line + "\n")


out = value("-o")
if "-c" not in args:
    objects = [a for a in args if a.endswith(".o")]
    Path(out).write_text("".join(Path(o).read_text() for o in objects))
    sys.exit(0)
source = next(a for a in args if a.endswith(".cc"))
name = Path(source).stem
sync = Path(os.environ["FAKE_CXX_SYNC"])
sync.mkdir(exist_ok=True)
(sync / name).touch()
note(f"start {name}")
text = Path(source).read_text()
if "// fail" in text:
    print(f"{source}:1:1: error: failing on purpose", file=sys.stderr)
    sys.exit(1)
if "// warn" in text:
    print(f"{source}:1:1: warning: warning on purpose", file=sys.stderr)
for line in text.splitlines():
    if line.startswith("// meet "):
        other, deadline = line.split()[2], time.monotonic() + 60
        while not (sync / other).exists():
            if time.monotonic() > deadline:
                print(f"{source}: timed out waiting for {other}: they did not compile at once", file=sys.stderr)
                sys.exit(1)
            time.sleep(0.01)
headers, texts = [], [text]


def scan(path):
    for line in Path(path).read_text().splitlines():
        if line.startswith('#include "'):
            include = line.split('"')[1]
            for folder in [os.path.dirname(path), *(a[2:] for a in args if a.startswith("-I"))]:
                found = os.path.join(folder, include)
                if os.path.isfile(found):
                    if found not in headers:
                        headers.append(found)
                        texts.append(Path(found).read_text())
                        scan(found)
                    break


scan(source)
Path(value("-MF")).write_text(
    value("-MT") + ": " + " \\\n ".join(p.replace(" ", "\\ ") for p in [source, *headers]) + "\n")
Path(out).write_text(f"object of {source}: {texts} {[a for a in args if a.startswith('-D')]}\n")
note(f"end {name}")
'''

class _Toolchain:
    """The fake compiler, and the TensorFlow the tests pretend to build against (what
    identifies its installation, its flags, how often it was asked for them)."""

    def __init__(self, root: Path) -> None:
        self.compiler = root / "fake-cxx"
        self.log = root / "compiles.log"
        self.sync = root / "sync"
        self.install = ["tensorflow", 1]
        self.flags = (["-DTF_FLAG=1"], ["-ltf"])
        self.asked = 0

    def tensorflow_flags(self) -> tuple[list[str], list[str]]:
        self.asked += 1
        return self.flags

    def compiled(self) -> list[str]:
        """The sources compiled since `reset` (by stem, in order of starting)."""
        return [line.split()[1] for line in self.compile_log() if line.startswith("start ")]

    def compile_log(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def reset(self) -> None:
        self.log.unlink(missing_ok=True)
        shutil.rmtree(self.sync, ignore_errors=True)


@pytest.fixture
def toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[_Toolchain]:
    tools = _Toolchain(tmp_path)
    tools.compiler.write_text(f"#!{sys.executable}\n{_FAKE_CXX}")
    tools.compiler.chmod(0o755)
    monkeypatch.setenv("CXX", str(tools.compiler))
    monkeypatch.setenv("FAKE_CXX_LOG", str(tools.log))
    monkeypatch.setenv("FAKE_CXX_SYNC", str(tools.sync))
    monkeypatch.setattr(setup_helpers, "tensorflow_flags", tools.tensorflow_flags)
    monkeypatch.setattr(setup_helpers, "_tensorflow_install", lambda: tools.install)
    threshold = log.set_threshold(log.INFO)
    yield tools
    log.set_threshold(threshold)


class _Project:
    """A folder of sources (`ops/a.cc` and `ops/b.cc`) built by build_ext in process."""

    def __init__(self, root: Path, toolchain: _Toolchain, capsys: pytest.CaptureFixture[str]) -> None:
        self.root, self.toolchain, self.capsys = root, toolchain, capsys
        self.printed = ""

    def write(self, path: str, text: str) -> Path:
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
        return file

    def library(self, name: str) -> Path:
        (library,) = self.root.glob(f"build/lib.*/pkg/{name}")
        return library

    def build(self, *options: str, libraries: list[OpLibrary] | None = None) -> tuple[str, list[str]]:
        """`setup.py build_ext OPTIONS` (build_extensions alone: no wrappers checked): what it
        printed (stdout and stderr) and the sources it compiled (by stem, in order of starting)."""
        if libraries is None:
            libraries = [OpLibrary("pkg/_a.so", ["ops/a.cc"]), OpLibrary("pkg/_b.so", ["ops/b.cc"])]
        self.toolchain.reset()
        dist = Distribution({"name": "pkg", "ext_modules": libraries, "cmdclass": {"build_ext": build_ext},
                             "script_args": ["build_ext", *options]})
        dist.parse_command_line()
        command = dist.get_command_obj("build_ext")
        command.ensure_finalized()
        self.capsys.readouterr()
        try:
            command.build_extensions()
        finally:
            printed = self.capsys.readouterr()
            self.printed = printed.out + printed.err
        return self.printed, self.toolchain.compiled()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toolchain: _Toolchain,
            capsys: pytest.CaptureFixture[str]) -> _Project:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    built = _Project(root, toolchain, capsys)
    # a.cc: a header beside it, which includes another; b.cc: that other one, from the root (-I)
    built.write("ops/a.cc", '#include "inc/a.h"\nint a();\n')
    built.write("ops/inc/a.h", '#include "common.h"\n')
    built.write("ops/inc/common.h", "#pragma once\n")
    built.write("ops/b.cc", '#include "ops/inc/common.h"\nint b();\n')
    return built


def test_second_build_compiles_nothing_and_says_so(project):
    printed, compiled = project.build()
    assert sorted(compiled) == ["a", "b"]
    assert "building 'pkg/_a.so' op library (no earlier build recorded)" in printed
    assert "building 'pkg/_b.so' op library (no earlier build recorded)" in printed

    printed, compiled = project.build()
    assert compiled == []
    assert printed.splitlines() == ["skipping 'pkg/_a.so' op library (up-to-date)",
                                    "skipping 'pkg/_b.so' op library (up-to-date)"]
    # Times changed, contents not (a `git checkout` there and back, `touch`): still up to date.
    for file in project.root.rglob("*"):
        os.utime(file, (1, 1))
    assert project.build()[1] == []


def test_changed_header_compiles_only_the_libraries_that_include_it(project):
    project.build()
    header = project.root / "ops" / "inc" / "a.h"
    before = header.stat().st_mtime_ns
    header.write_text('#include "common.h"\n// changed\n')
    os.utime(header, ns=(before - 10**10, before - 10**10))  # older than before: a checkout can do that
    printed, compiled = project.build()
    assert compiled == ["a"]
    assert "building 'pkg/_a.so' op library (ops/inc/a.h changed)" in printed
    assert "skipping 'pkg/_b.so' op library (up-to-date)" in printed
    assert project.build()[1] == []

    project.write("ops/inc/common.h", "#pragma once\n// changed\n")  # a.cc includes it through a.h
    printed, compiled = project.build()
    assert sorted(compiled) == ["a", "b"]
    assert "building 'pkg/_a.so' op library (ops/inc/common.h changed)" in printed
    assert "building 'pkg/_b.so' op library (ops/inc/common.h changed)" in printed

    # a header a source no longer includes is no input of its library any more
    project.write("ops/a.cc", "int a();\n")
    assert project.build()[1] == ["a"]
    header.write_text("// changed again\n")
    assert project.build()[1] == []


def test_changed_flags_define_or_compiler_compile_again(project, toolchain):
    def libraries(define: str) -> list[OpLibrary]:
        return [OpLibrary("pkg/_a.so", ["ops/a.cc"], extra_compile_args=[define]),
                OpLibrary("pkg/_b.so", ["ops/b.cc"])]

    project.build(libraries=libraries("-DMODE=1"))
    printed, compiled = project.build(libraries=libraries("-DMODE=2"))
    assert compiled == ["a"] and "building 'pkg/_a.so' op library (its command line changed)" in printed
    assert project.build(libraries=libraries("-DMODE=2"))[1] == []

    # another TensorFlow, whose flags differ
    toolchain.install, toolchain.flags = ["tensorflow", 2], (["-DTF_FLAG=2"], ["-ltf"])
    printed, compiled = project.build(libraries=libraries("-DMODE=2"))
    assert sorted(compiled) == ["a", "b"] and "building 'pkg/_b.so' op library (its command line changed)" in printed

    # the same compiler's path, another compiler (an upgrade)
    toolchain.compiler.write_text(toolchain.compiler.read_text() + "# upgraded\n")
    printed, compiled = project.build(libraries=libraries("-DMODE=2"))
    assert sorted(compiled) == ["a", "b"] and "building 'pkg/_a.so' op library (the compiler changed)" in printed


def test_tensorflow_is_asked_for_its_flags_once_per_installation(project, toolchain):
    """Asking TensorFlow for its flags imports it, seconds; the build folder remembers them for
    the same installation (its files' identities), asks again for another, and with --force."""
    project.build()
    project.build()
    assert toolchain.asked == 1
    toolchain.install = ["tensorflow", 2]
    project.build()
    assert toolchain.asked == 2
    project.build("--force")
    assert toolchain.asked == 3


def test_force_compiles_everything(project):
    project.build()
    printed, compiled = project.build("-f")
    assert sorted(compiled) == ["a", "b"]
    assert "building 'pkg/_a.so' op library (--force)" in printed
    assert project.build()[1] == []


def test_a_library_missing_or_changed_since_its_build_is_compiled_again(project):
    project.build()
    project.library("_a.so").unlink()
    printed, compiled = project.build()
    assert compiled == ["a"] and "building 'pkg/_a.so' op library (the library is missing)" in printed
    project.library("_b.so").write_text("another build's\n")
    printed, compiled = project.build()
    assert compiled == ["b"] and "building 'pkg/_b.so' op library (the library changed since it was built)" in printed


def test_libraries_compile_at_once_up_to_j_else_the_cpu_count(project, monkeypatch):
    """Each compile waits for the other to start (failing after 60 s): they pass only when
    compiled at the same time. With -j 1, or one CPU, one at a time: each ends before the
    next starts."""
    project.write("ops/a.cc", "// meet b\nint a();\n")
    project.write("ops/b.cc", "// meet a\nint b();\n")
    assert sorted(project.build("-j", "2")[1]) == ["a", "b"]
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert sorted(project.build("--force")[1]) == ["a", "b"]

    project.write("ops/a.cc", "int a();\n")
    project.write("ops/b.cc", "int b();\n")
    project.build("-j", "1")
    assert [line.split()[0] for line in project.toolchain.compile_log()] == ["start", "end", "start", "end"]
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    project.build("--force")
    assert [line.split()[0] for line in project.toolchain.compile_log()] == ["start", "end", "start", "end"]


def test_failed_compile_names_its_library_and_fails_the_build(project):
    """Library a fails while b (which warns) compiles: a's compiler output is reported under
    its name, b's whole under its commands, and the build fails once b is done. b is recorded
    (the next build compiles a alone); a failed build leaves no record, so a library whose
    sources are back as they were when it last built is compiled again all the same."""
    project.build()
    original = (project.root / "ops" / "a.cc").read_text()
    project.write("ops/a.cc", "// fail\n")
    project.write("ops/b.cc", "// warn\nint b();\n")
    with pytest.raises(CompileError) as failure:
        project.build("-j", "2")
    assert str(failure.value) == "op library 'pkg/_a.so' failed to compile (the compiler's output is above)"
    cxx = os.environ["CXX"]
    assert f"error: building 'pkg/_a.so' op library failed: {cxx} exited with status 1:\n{cxx} -c " in project.printed
    assert "\nops/a.cc:1:1: error: failing on purpose\n" in project.printed
    b_compile = next(line for line in project.printed.splitlines() if line.startswith(f"{cxx} -c") and "b.cc" in line)
    assert f"{b_compile}\nops/b.cc:1:1: warning: warning on purpose\n{cxx} -shared " in project.printed

    project.write("ops/a.cc", original)
    printed, compiled = project.build()
    assert compiled == ["a"] and "building 'pkg/_a.so' op library (no earlier build recorded)" in printed
    assert "skipping 'pkg/_b.so' op library (up-to-date)" in printed

    # one at a time: after a's failure, b does not start
    project.write("ops/a.cc", "// fail\n")
    project.write("ops/b.cc", "int b();\n")
    with pytest.raises(CompileError) as failure:
        project.build("-j", "1")
    assert str(failure.value) == ("op library 'pkg/_a.so' failed to compile (the compiler's output is above); not "
                                  "compiled after the failure: 'pkg/_b.so'")
    assert "building 'pkg/_b.so'" not in project.printed


@pytest.mark.parametrize(("text", "names"), [
    ("object: a.cc b.h\n", ["a.cc", "b.h"]),
    ("object: a.cc \\\n  inc/b.h \\\r\n c.h\n", ["a.cc", "inc/b.h", "c.h"]),
    ("object: dir\\ with\\ spaces/a.cc x\\#1.h cost$$.h\n", ["dir with spaces/a.cc", "x#1.h", "cost$.h"]),
    ("object: odd\\\\\\ name.h ends\\\\\\\\ c:\\dir\\a.h\n", ["odd\\ name.h", "ends\\\\", "c:\\dir\\a.h"]),
])
def test_depfile_parsing(text, names):
    """g++'s escapes (mkdeps.cc): a space after 2N+1 backslashes is N backslashes and the space,
    after 2N, N backslashes ending the name; other backslashes are themselves."""
    assert parse_depfile(text) == names


def test_depfile_without_a_rule_is_an_error():
    with pytest.raises(ValueError, match="expected a rule"):
        parse_depfile("a.cc b.h\n")


def test_real_gxx_writes_the_depfiles_the_build_reads(project, toolchain, monkeypatch):
    """The real g++ (a library without TensorFlow: a fraction of a second), in folders and
    headers named with a space, `#` and `$`: its depfile names them as the build reads them."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    monkeypatch.setenv("CXX", "g++")
    toolchain.flags = ([], [])
    project.write("src dir/lib.cc", '#include "in c/h #1$.h"\nint twice(int x) { return 2 * half(x); }\n')
    header = project.write("src dir/in c/h #1$.h", "inline int half(int x) { return x; }\n")
    libraries = [OpLibrary("pkg/_lib.so", ["src dir/lib.cc"])]
    project.build(libraries=libraries)
    assert project.library("_lib.so").read_bytes()[:4] == b"\x7fELF"
    assert project.build(libraries=libraries)[0] == "skipping 'pkg/_lib.so' op library (up-to-date)\n"
    header.write_text("inline int half(int x) { return x / 2; }\n")
    printed, _ = project.build(libraries=libraries)
    assert "building 'pkg/_lib.so' op library (src dir/in c/h #1$.h changed)" in printed


def test_library_check_runs_again_only_when_what_it_checks_changed(tmp_path, monkeypatch, toolchain, capsys):
    """After compiling, build_ext checks the built modules and libraries with TensorFlow (a
    child process importing it: seconds; replaced here). A build in which nothing it checks
    changed skips it and says so; the package's Python, a recompiled library, --force, or a
    check that failed last time run it again."""
    project = tmp_path / "my_ops"
    assert main(["init", "--quiet", str(project)]) == 0
    monkeypatch.chdir(project)
    assert main(["build", "--quiet"]) == 0
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # `opgen build --list-outputs`, in a child process
    monkeypatch.setattr(setup_helpers, "check_wrappers", lambda project: None)  # test_scaffold.py tests it
    checks = []
    report = {"error": None, "modules": {}, "libraries": {}}

    def library_check(request, cwd):
        checks.append(request)
        return subprocess.CompletedProcess([], 0, json.dumps(report) + "\n", "")

    monkeypatch.setattr(setup_helpers, "_library_check", library_check)

    def setup_py(*options: str) -> str:  # what the scaffold's setup.py runs
        toolchain.reset()
        capsys.readouterr()
        setuptools.setup(ext_modules=[OpLibrary("my_ops/_my_ops.so", ["ops/my_ops.cc"])],
                         cmdclass={"build_ext": build_ext}, script_args=["build_ext", "--inplace", *options])
        return capsys.readouterr().out

    assert "checking the op libraries with TensorFlow (python -m opgen.library_check)" in setup_py()
    assert [m[0] for m in checks[0]["modules"]] == ["my_ops.gen_my_ops"]
    skipped = ("skipping the op library check (up-to-date: it passed with these modules, libraries and "
               "TensorFlow)")
    assert skipped in setup_py() and len(checks) == 1
    with (project / "my_ops" / "__init__.py").open("a") as package:
        package.write("# changed\n")
    assert skipped not in setup_py() and len(checks) == 2
    with (project / "ops" / "my_ops.cc").open("a") as source:
        source.write("// changed\n")
    setup_py()
    assert toolchain.compiled() == ["my_ops"] and len(checks) == 3
    assert skipped in setup_py() and len(checks) == 3
    setup_py("--force")
    assert len(checks) == 4

    report["error"] = "TensorFlow cannot load op library ..."
    with (project / "my_ops" / "__init__.py").open("a") as package:
        package.write("# changed again\n")
    with pytest.raises(SystemExit, match="the wheel's op libraries would fail on TensorFlow"):
        setup_py()
    assert len(checks) == 5
    report["error"] = None
    assert skipped not in setup_py() and len(checks) == 6  # the same files: a failed check left no record


def test_tool_opgen_defines_reach_the_compiler(project, toolchain):
    """`[tool.opgen] defines` and `undefines` decide what `opgen build` reads, so the library
    compiles with them too (trial36 #2: the wrappers named an op the .so did not register):
    changing them compiles again."""
    libraries = [OpLibrary("pkg/_a.so", ["ops/a.cc"])]
    project.write("pyproject.toml", '[tool.opgen]\ndefines = ["MODE=1"]\n')
    project.build(libraries=libraries)
    project.write("pyproject.toml", '[tool.opgen]\ndefines = ["MODE=2"]\n')
    printed, compiled = project.build(libraries=libraries)
    assert compiled == ["a"] and "building 'pkg/_a.so' op library (its command line changed)" in printed
    project.write("pyproject.toml", '[tool.opgen]\ndefines = ["MODE=2"]\nundefines = ["MODE"]\n')
    assert project.build(libraries=libraries)[1] == ["a"]
    assert project.build(libraries=libraries)[1] == []
