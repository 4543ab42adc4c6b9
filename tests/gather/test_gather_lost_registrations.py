"""Registrations that would be lost without a word: through a macro no header defines
(`#include <...>` not found, or no include at all), sources that register nothing."""

from __future__ import annotations

import pytest

from opgen.cli import main
from opgen.spec.gather import GatherErrors, gather
from opgen.spec.preprocessor import Preprocessor

MACRO_OP = 'MY_REGISTER_OP("Q2").Output("y: float");\n'
REGISTER_H = '#define MY_REGISTER_OP(name) REGISTER_OP(name)\n'


def _errors(tmp_path, text: str, **kwargs) -> str:
    src = tmp_path / "proj" / "cc" / "a.cc"
    src.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "proj" / "pyproject.toml").write_text("")
    src.write_text(text)
    with pytest.raises(GatherErrors) as e:
        gather([str(src)], **kwargs)
    return e.value.format()


def test_missing_angle_include_is_blamed_for_the_lost_registration(tmp_path):
    err = _errors(tmp_path, "#include <myproj/register.h>\n#include <vector>\n#include <sys/types.h>\n" + MACRO_OP)
    assert ":4:1: error: 'MY_REGISTER_OP(...).Output(...)' looks like an op registration through the macro" in err
    assert 'likely cause: "myproj/register.h" (' in err and "vector" not in err and "sys/types.h" not in err


def test_registration_through_an_undefined_macro_without_includes(tmp_path):
    err = _errors(tmp_path, MACRO_OP)
    assert "a.cc:1:1: error: 'MY_REGISTER_OP(...).Output(...)' looks like an op registration" in err
    assert "hint: define 'MY_REGISTER_OP', or include the header that defines it" in err


def test_angle_includes_search_the_include_dirs_then_the_project_root(tmp_path):
    root = tmp_path / "proj"
    (root / "myproj").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    (root / "myproj" / "register.h").write_text(REGISTER_H)
    (root / "cc" / "sub").mkdir(parents=True)
    (root / "cc" / "sub" / "here.h").write_text(REGISTER_H)
    (tmp_path / "inc" / "myproj").mkdir(parents=True)
    (tmp_path / "inc" / "myproj" / "register.h").write_text('#define MY_REGISTER_OP(name) REGISTER_OP(name "FromI")\n')
    src = root / "cc" / "sub" / "a.cc"
    src.write_text("#include <myproj/register.h>\n" + MACRO_OP)
    assert [op.name for op in gather([str(src)]).op_list.op] == ["Q2"]  # from the project root
    assert [op.name for op in gather([str(src)], include_dirs=[str(tmp_path / "inc")]).op_list.op] == ["Q2FromI"]
    pp = Preprocessor()
    src.write_text("#include <here.h>\n" + MACRO_OP)  # never the including file's own directory
    pp.run(str(src))
    assert pp.missing_includes == [] and pp.missing_project_includes == []  # a system-looking name: silent
    src.write_text("#include <sub/here.h>\n" + MACRO_OP)  # nor the directories between it and the root
    pp.run(str(src))
    [missing] = pp.missing_project_includes
    assert missing.searched == (str(root),)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.opgen]\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "none").mkdir()
    (tmp_path / "none" / "a.cc").write_text("int x;\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("source", "message"), [
    ("empty", "no C++ sources (.cc, .cpp, .cxx, .c++, .cu) or OpList files in empty"),
    ("none", "no op registered in 1 source file"),
])
def test_sources_registering_nothing(project, capsys, source, message):
    assert main(["oplist", source]) == 0
    assert capsys.readouterr().err.startswith(f"{source}: warning: {message}\n  hint: ")
    assert main(["build", "--quiet", source]) == 2  # it would delete every generated module
    assert capsys.readouterr().err.startswith(f"{source}: error: {message}\n  hint: ")
    assert not (project / "generated").exists()


def test_kernel_only_sources_are_quiet(project, capsys):
    (project / "none" / "a.cc").write_text('REGISTER_KERNEL_BUILDER(Name("A").Device(DEVICE_CPU), AOp);\n')
    assert main(["kernels", "none"]) == 0
    assert "no op registered" not in capsys.readouterr().err
