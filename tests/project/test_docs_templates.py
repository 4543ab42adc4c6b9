"""docs/templates.md stays the reference of what a user's templates get: its filter list is
`emit.FILTERS` (names and parameters), its field lists are the model's dataclasses, its
variables are what a build passes each template, and its worked example builds as written."""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
import shutil
import subprocess

import pytest
from support.paths import REPO
from support.projects import user_tools

from opgen.cli import main
from opgen.python_api import function as function_module
from opgen.render import emit

PAGE = (REPO / "docs" / "templates.md").read_text(encoding="utf-8")
EXAMPLE = REPO / "tests" / "data" / "custom_op_project"


def _section(heading: str) -> str:
    """The text under the heading line `heading` (`## ...`) up to the next one of its level
    (a `# ` line is a comment in a code block)."""
    return re.split(r"\n## ", PAGE.split(f"\n{heading}\n", 1)[1], maxsplit=1)[0]


def _list_after(text: str, lead: str) -> list[str]:
    """The `- ...` lines of the list that follows the line `lead` in `text` (continuation lines
    joined to their item)."""
    block = text.split(f"\n{lead}\n\n", 1)[1].split("\n\n", 1)[0]
    return re.sub(r"\n  (?=\S)", " ", block).splitlines()


def _names(items: list[str]) -> list[str]:
    """The first code span of each `- ` item."""
    assert all(item.startswith("- `") for item in items), items
    return [item[3:].split("`", 1)[0] for item in items]


def _public_names(cls: type) -> list[str]:
    fields = [f.name for f in dataclasses.fields(cls)]
    return fields + [name for name, value in vars(cls).items() if not name.startswith("_") and name not in fields
                     and (isinstance(value, property) or inspect.isfunction(value))]


def test_filters_are_listed_with_their_parameters():
    section = _section("## Filters and tests")
    items = [line for line in section.splitlines() if line.startswith("- `")]
    listed = {}
    for item in items:
        name, params = re.match(r"- `(\w+)\(([^)]*)\)", item).groups()
        listed[name] = [p.split(":")[0].strip() for p in params.split(",")]
    assert len(listed) == len(items), "a filter listed twice"
    assert sorted(listed) == sorted(emit.FILTERS)
    for name, params in listed.items():
        assert params == list(inspect.signature(emit.FILTERS[name]).parameters), name
    tests = set(emit.Templates.load(None).env.tests) - set(emit.jinja2.Environment().tests)
    assert tests == {"identifier"} and "`x is identifier`" in section


@pytest.mark.parametrize("cls", [function_module.FunctionApi, function_module.Param, function_module.Output,
                                 function_module.TypeVarDef, function_module.ListLength])
def test_model_fields_are_listed(cls):
    lead = next(line for line in PAGE.splitlines() if line.startswith(f"`{cls.__name__}` fields"))
    assert _names(_list_after(PAGE, lead)) == _public_names(cls)


def test_template_variables_are_what_a_build_passes(tmp_path, monkeypatch):
    """A build of the example project, each template's context recorded (a fresh cache: every
    chunk renders)."""
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(project)
    passed: dict[str, dict[str, object]] = {}
    render = emit.Templates.render

    def spy(self, name, **context):
        passed.setdefault(name, context)
        return render(self, name, **context)

    monkeypatch.setattr(emit.Templates, "render", spy)
    assert main(["build", "--quiet", "--dry-run"]) == 0
    assert sorted(passed) == sorted(emit.TEMPLATE_NAMES)
    section = _section("## What each template receives")
    for name, context in passed.items():
        documented = _names(_list_after(section, f"### {name}"))
        assert documented == list(context), name
    assert isinstance(passed["function.py.j2"]["f"], function_module.FunctionApi)
    uses = _list_after(section, "### module_header.py.j2")[1]
    assert sorted(re.findall(r"`uses\.(\w+)`", uses)) == sorted(passed["module_header.py.j2"]["uses"])


def test_worked_example_builds(tmp_path):
    """The example's steps in a copy of the example project: the copy command, the diff
    applied, the build; its module is the shipped templates' with the one comment line added
    above each wrapper, as shown."""
    section = _section("## A worked example")
    (script,) = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    (diff,) = re.findall(r"```diff\n(.*?)```", section, re.DOTALL)
    (shown,) = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    copy, comment, build = script.splitlines()
    assert comment.startswith("#") and build == "opgen build --templates my_templates"

    project = tmp_path / "custom_op_project"
    shutil.copytree(EXAMPLE, project)
    bin_dir = user_tools(tmp_path)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", PYTHONPATH=str(REPO),
               XDG_CACHE_HOME=str(tmp_path / "cache"))

    def run(command: str, cwd=project) -> None:
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=cwd, env=env, capture_output=True,
                                text=True, check=False)
        assert result.returncode == 0, result.stderr

    run(copy)
    assert sorted(p.name for p in (project / "my_templates").iterdir()) == sorted(emit.TEMPLATE_NAMES)
    header, hunk = diff.split("@@\n", 1)
    path = project / header.splitlines()[0].removeprefix("--- ")
    lines = hunk.splitlines()
    old = "".join(line[1:] + "\n" for line in lines if line[0] in " -")
    new = "".join(line[1:] + "\n" for line in lines if line[0] in " +")
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    run(build)
    module = (project / "my_ops" / "gen_custom_ops.py").read_text(encoding="utf-8")
    assert shown in module

    shipped = tmp_path / "shipped"
    shutil.copytree(EXAMPLE, shipped)
    run("opgen build", cwd=shipped)
    added = [line for line in module.splitlines() if line.startswith("# Opgen")]
    assert added == ["# OpgenCallCounter op (stateful): opgen_call_counter(name=None)",
                     "# OpgenScaledSquare op: opgen_scaled_square(x, scale=1.0, name=None)"]
    assert [line for line in module.splitlines() if line not in added] == (
        (shipped / "my_ops" / "gen_custom_ops.py").read_text(encoding="utf-8").splitlines())
