"""The call-every-wrapper check (support/call_wrappers.py) itself: it reports a planted
defect, tells a crash from a deliberate op-level error, covers every corpus, and no
subprocess build in the tests escapes it."""

from __future__ import annotations

import re
import shutil

import pytest
from support.call_wrappers import (
    SUBPROCESS_BUILD_SITES,
    BuildRecorder,
    assert_all_called,
    check_build_dir,
    check_module,
)
from support.paths import REPO
from support.projects import build_copy

from opgen.cli import main

TESTS = REPO / "tests"
LIBRARY = TESTS / "data" / "first_call_library"
GATHER_PROJECTS = TESTS / "gather_projects"


@pytest.fixture(scope="module")
def no_attrs(tmp_path_factory) -> str:
    """gen_no_attrs.py of the first-call library (its one wrapper converts no attr)."""
    root = build_copy(LIBRARY, tmp_path_factory.mktemp("first_call"))
    return (root / "first_call" / "gen_no_attrs.py").read_text()


def test_a_missing_import_is_reported(no_attrs):
    assert check_module(no_attrs).crashes == []
    planted = no_attrs.replace("from opgen_runtime import execute as _execute\n", "")
    assert planted != no_attrs
    report = check_module(planted, name="gen_no_attrs")
    assert len(report.crashes) == 1 and "NameError: name '_execute' is not defined" in report.crashes[0]
    with pytest.raises(AssertionError, match="fc_zero_out"):
        assert_all_called([report])


def test_the_recorder_fails_a_build_with_a_planted_defect(no_attrs):
    """What conftest does after each test, on a module with the defect planted."""
    recorder = BuildRecorder()
    recorder.add("gen_no_attrs", no_attrs.replace("import execute as _execute", "import dtypes as _dtypes"))
    failures = recorder.check_pending()
    assert len(failures) == 1 and "NameError" in failures[0]
    assert recorder.check_pending() == []  # each text once


@pytest.mark.parametrize(
    "old,new,error",
    [
        # a crash: Python itself raises while evaluating the wrapper's own code
        ("_op_def_library._apply_op_helper(", "_op_def_library.apply_op_helper(", "AttributeError"),
        ("_ctx = _execute.eager_context()", "_ctx = _execute.eager_context(None)", "TypeError"),
        ("import op_def_library as _op_def_library", "import op_def_library as _op_def_lib", "NameError"),
    ],
)
def test_crashes_in_the_wrapper_body_are_crashes(no_attrs, old, new, error):
    planted = no_attrs.replace(old, new)
    assert planted != no_attrs
    report = check_module(planted)
    assert len(report.crashes) == 1 and f"{error}:" in report.crashes[0]


def test_an_annotation_get_type_hints_cannot_evaluate_is_a_crash(no_attrs):
    """Annotations are strings run-time checkers and doc generators evaluate in the module
    (`typing.get_type_hints`): a name the module lacks fails there, not at import or call."""
    planted = no_attrs.replace("name: str | None = None", "name: StrOrNone = None")
    assert planted != no_attrs
    [crash] = check_module(planted, name="gen_no_attrs").crashes
    assert crash == "fc_zero_out: typing.get_type_hints: NameError: name 'StrOrNone' is not defined"


@pytest.mark.parametrize(
    "planted,error",
    [
        ("def str(x):\n    return x\n", "fc_zero_out: typing.get_type_hints: TypeError: unsupported operand"),
        ("def int(x):\n    return x\n\n\ndef count(n: int) -> None:\n    pass\n",
         "count: typing.get_type_hints: n is the function 'int'"),
    ],
)
def test_a_function_named_like_an_annotated_builtin_is_a_crash(no_attrs, planted, error):
    """A module-level function shadows the builtin an annotation names (`name: str | None`)."""
    [crash] = check_module(no_attrs + "\n\n" + planted, name="gen_no_attrs").crashes
    assert crash.startswith(error)


def test_an_import_failure_is_a_crash(no_attrs):
    report = check_module(no_attrs.replace("from opgen_runtime import execute", "from opgen_runtime import executor"))
    assert report.calls == 0 and report.crashes[0].startswith("import: ImportError")


def test_a_deliberate_op_level_error_is_not_a_crash(no_attrs):
    """The runtime's `_apply_op_helper` raises TypeError for an input of a type the OpDef does
    not allow, and the wrapper's own `raise` lines are deliberate; strict mode counts them."""
    planted = no_attrs.replace('"FcZeroOut", to_zero=to_zero', '"FcZeroOut", to_zero=_op_def_library')
    assert planted != no_attrs
    report = check_module(planted)
    assert report.crashes == [] and len(report.op_errors) == 1 and "TypeError" in report.op_errors[0]
    with pytest.raises(AssertionError):
        assert_all_called([report], strict=True)
    raising = no_attrs.replace("    _ctx = _execute.eager_context()\n",
                               "    _ctx = _execute.eager_context()\n    raise ValueError('deliberate')\n", 1)
    report = check_module(raising)
    assert report.crashes == [] and "deliberate" in report.op_errors[0]


def test_the_example_library_runs():
    """generated/ (the committed example library) as `opgen build` writes it."""
    reports = check_build_dir(REPO / "generated", tf=False)
    assert_all_called(reports)
    assert sum(r.calls for r in reports) >= 60
    assert [op for r in reports for op in r.unwrapped] == ["PlaceholderV2"]  # `skip: true` in overrides/


@pytest.mark.parametrize("project", sorted(p.parent.name for p in GATHER_PROJECTS.glob("*/pyproject.toml")))
def test_every_gather_project_builds_and_runs(project, tmp_path, monkeypatch):
    """Each gather project built as its author would (its ops are not TF's: embedded runtime)."""
    root = tmp_path / project
    shutil.copytree(GATHER_PROJECTS / project, root)
    monkeypatch.chdir(root)
    assert main(["build", ".", "--out", str(tmp_path / "out")]) == 0
    reports = check_build_dir(tmp_path / "out", tf=False)
    assert_all_called(reports)
    assert sum(r.calls for r in reports) >= 1  # core_op_clash and switch_ops keep one op each


_SUBPROCESS_BUILD = re.compile(r'"-m",\s*"opgen"')


def test_no_subprocess_build_escapes_the_check():
    """Every test file that runs `opgen` in a subprocess with `build` is listed with how its
    output is covered; in-process builds are all seen by the recorder (Renderer.render)."""
    sites = set()
    for path in TESTS.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if _SUBPROCESS_BUILD.search(text) and '"build"' in text and path.name != "call_wrappers.py":
            sites.add(path.relative_to(REPO).as_posix())
    assert sites == set(SUBPROCESS_BUILD_SITES)
