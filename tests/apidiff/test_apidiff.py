"""`opgen api` snapshots, snapshot round trips, diff inputs (`--git`, JSON, OpList) and errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from support.apidiff_cases import CORPUS, SPEC_V1, git, run_cli
from support.paths import TESTS

from opgen.apidiff.changes import diff_snapshots
from opgen.apidiff.inputs import load_side, project_snapshot
from opgen.apidiff.report import format_text
from opgen.apidiff.snapshot_format import from_json, from_markdown, to_json, to_markdown
from opgen.config import Config, load_config
from opgen.errors import Location
from opgen.python_api.literals import attr_value_for_review
from opgen.tf_text.attr_text import parse_attr_value

SNAPSHOT_GOLDEN = TESTS / "golden" / "apidiff_snapshot"
UPDATE = os.environ.get("OPGEN_UPDATE_GOLDEN") == "1"



def _golden(name: str, text: str) -> None:
    path = SNAPSHOT_GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project with pyproject.toml, specs/ and overrides/, as the cwd."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\nsources = ["specs"]\noverrides = "overrides"\nout = "generated"\n'
        'api = "generated/API.md"\n')
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "ops.cc").write_text(SPEC_V1)
    (tmp_path / "overrides").mkdir()
    (tmp_path / "overrides" / "scale.pbtxt").write_text('op {\n  name: "Scale"\n  alias: "Rescale"\n}\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_api_snapshot_golden(project, capsys, fmt):
    code, out, err = run_cli(["api", "--format", fmt], capsys)
    assert (code, err) == (0, "")
    _golden(f"project.{fmt}", out)


def test_diff_reads_an_api_md_whose_block_has_the_old_layout(project, capsys):
    """trial32 #7: API.md's block is now one op a line; an API.md committed before, whose block
    is pretty-printed JSON (one key a line; written by opgen at afdc7ba for this project), still
    reads as the same snapshot, its ops located at their headings."""
    old_text = (TESTS / "data" / "old_snapshots" / "pretty_json_block.md").read_text(encoding="utf-8")
    assert '\n  {\n   "op": "Divide",\n' in old_text  # the old layout indeed
    (project / "old.md").write_text(old_text, encoding="utf-8")
    code, out, err = run_cli(["api"], capsys)
    assert (code, err) == (0, "")
    assert '\n{"op":"Divide",' in out
    old = from_markdown(old_text, "old.md")
    assert to_json(old) == to_json(from_markdown(out, "API.md"))
    lines = old_text.splitlines()
    assert old.ops["Scale"].location == Location("old.md", lines.index("### scale") + 1, 1)
    code, out, err = run_cli(["diff", "old.md", "--format", "json"], capsys)
    assert (code, err) == (0, "")
    assert json.loads(out)["changes"] == []


def test_attr_values_read_as_the_signature_spells_them(project, capsys):
    """trial32 #8, trial30 #3: a float default reads as in the Python signature (`0.333333`, not
    TF's `0.333333313`) in the attr line and in `opgen diff`'s messages; `tf_message` stays TF's
    text, and two floats the signature's 6 digits spell alike are told apart in TF's spelling."""
    spec = project / "specs" / "ops.cc"
    spec.write_text(spec.read_text().replace('"factor: float = 1.0"', '"factor: float = 0.333333313"'))
    out = run_cli(["api"], capsys)[1]
    assert "scale(x, factor=0.333333, name=None) -> y" in out and "  - `factor: float, default=0.333333`" in out
    assert run_cli(["api", "--format", "json", "-o", "old.json"], capsys)[0] == 0
    spec.write_text(spec.read_text().replace("0.333333313", "0.5"))
    code, out, _ = run_cli(["diff", "old.json", "--format", "json"], capsys)
    assert code == 1
    assert [(c["rule"], c["message"], c.get("tf_message")) for c in json.loads(out)["changes"]] == [
        ("default_changed", "Attr 'factor' has changed it's default value; from 0.333333 to 0.5",
         "Attr 'factor' has changed it's default value; from 0.333333313 to 0.5"),
        ("param_default_changed", "gen_ops.scale: parameter 'factor' default 0.333333 -> 0.5", None)]
    # the next float32: the same Python default, another graph default
    spec.write_text(spec.read_text().replace('"factor: float = 0.5"', '"factor: float = 0.333333343"'))
    code, out, _ = run_cli(["diff", "old.json", "--format", "json"], capsys)
    tf_text = "Attr 'factor' has changed it's default value; from 0.333333313 to 0.333333343"
    assert [(c["rule"], c["message"], c["tf_message"]) for c in json.loads(out)["changes"]] == [
        ("default_changed", tf_text, tf_text)]


@pytest.mark.parametrize(("attr_type", "text", "spelled"), [
    ("float", "1.0", "1.0"), ("float", "-0.0", "-0.0"), ("list(float)", "[0.5, 2]", "[0.5, 2.0]"),
    ("bool", "false", "False"), ("string", '"SAME"', '"SAME"'), ("int", "-3", "-3"),
    ("shape", "{ unknown_rank: true }", "None"), ("shape", "{ dim { size: -1 } dim { size: 3 } }", "[None, 3]"),
    ("list(int)", "[]", "[]"),
    # what a signature spells as an expression keeps TF's text
    ("type", "DT_INT32", "DT_INT32"), ("list(type)", "[DT_FLOAT]", "[DT_FLOAT]"),
    ("tensor", "{ dtype: DT_FLOAT tensor_shape {} float_val: 1 }", "Tensor<type: float shape: [] values: 1>"),
])
def test_attr_value_for_review(attr_type, text, spelled):
    value = parse_attr_value(attr_type, text)
    assert value is not None and attr_value_for_review(value) == spelled


def test_an_op_change_changes_one_line_of_the_block(project, capsys):
    """trial32 #7: the block has one op entry a line, so a PR diff of API.md shows an op's
    change as its readable lines and exactly one JSON line."""
    before = run_cli(["api"], capsys)[1].splitlines()
    spec = project / "specs" / "ops.cc"
    spec.write_text(spec.read_text().replace('"factor: float = 1.0"', '"factor: float = 2.0"'))
    after = run_cli(["api"], capsys)[1].splitlines()
    block = before.index(next(line for line in before if line.startswith("<!--")))
    assert len(before) == len(after)
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    assert [i for i in changed if i > block] == [block + 3]  # the format line, Divide, then Scale
    assert after[block + 3].startswith('{"op":"Scale",')


def test_api_writes_file_atomically(project, capsys):
    (project / "snap").mkdir()
    assert run_cli(["api", "-o", "snap/API.md"], capsys)[0] == 0
    assert (project / "snap" / "API.md").read_text() == run_cli(["api"], capsys)[1]


def test_corpus_snapshots_golden(monkeypatch):
    """The Markdown snapshot of a scenario with overrides, aliases, namedtuples and refs."""
    monkeypatch.chdir(CORPUS)
    config = Config(root=CORPUS)
    parts = [to_markdown(load_side(f"{s}/new", config), title=s) for s in (
        "ok_alias_added", "break_python_output_fields_changed", "break_graph_input_became_ref",
        "break_python_function_removed", "ok_op_deprecated")]
    _golden("corpus.md", "\n".join(parts))


@pytest.mark.parametrize("scenario", ["break_python_param_renamed", "break_graph_default_changed",
                                      "ok_function_exposed", "break_python_function_removed"])
def test_json_snapshot_round_trip_gives_same_diff(scenario, monkeypatch):
    monkeypatch.chdir(CORPUS / scenario)
    config = Config(root=CORPUS / scenario)
    old, new = load_side("old", config), load_side("new", config)
    old2, new2 = from_json(to_json(old), "old.json"), from_json(to_json(new), "new.json")
    assert to_json(old2) == to_json(old)
    # the files record no source lines: the same changes, located at the files' op entries (and
    # none at an override line)
    unlocated = [replace(c, location=None, override_location=None, by_override=False)
                 for c in diff_snapshots(old, new).changes]
    changes = diff_snapshots(old2, new2).changes
    assert [replace(c, location=None) for c in changes] == unlocated
    new_entries = {name: entry.location for name, entry in new2.ops.items()}
    assert all(c.location == new_entries.get(c.op, old2.ops[c.op].location) for c in changes)
    assert all(c.location is not None and c.location.line > 0 for c in changes)


def test_diff_snapshot_file_against_spec_tree(project, capsys):
    code, out, _ = run_cli(["api", "--format", "json", "-o", "old.json"], capsys)
    assert code == 0
    spec = project / "specs" / "ops.cc"
    spec.write_text(spec.read_text().replace('.Attr("rounding: string")', '.Attr("rounding: string = \'floor\'")'))
    code, out, _ = run_cli(["diff", "old.json", "--format", "json"], capsys)
    report = json.loads(out)
    assert code == 0
    assert [(c["rule"], c["breaking"]) for c in report["changes"]] == [
        ("default_added", False), ("param_default_added", False)]
    # located at the `.Attr(...)` that changed (line 14), not at REGISTER_OP (line 10)
    assert [c["location"] for c in report["changes"]] == ["specs/ops.cc:14:6", "specs/ops.cc:14:6"]


def test_a_dump_of_the_projects_ops_compared_with_its_api_takes_its_overrides(project, capsys):
    """An OpList of the project's ops (what `oplist --from-library` dumps of its library) against
    its API snapshot or the project: the dump takes the project's overrides, as its modules, so
    equal ops are no change (its alias is no `alias_removed`); against a bare spec tree, which
    has overrides of its own (none here), it takes none."""
    assert run_cli(["build", "-q"], capsys)[0] == 0
    assert run_cli(["oplist", "-o", "dump.pbtxt"], capsys)[0] == 0
    for argv in (["diff", "generated/API.md", "dump.pbtxt"], ["diff", "dump.pbtxt"], ["diff", "dump.pbtxt", "."]):
        code, out, _ = run_cli(argv, capsys)
        assert (code, out) == (0, "opgen diff: 0 breaking, 0 compatible, 0 docs-only change(s); ops: none\n"), argv
    code, out, _ = run_cli(["diff", "dump.pbtxt", "specs", "--format", "json"], capsys)
    assert code == 0 and [c["rule"] for c in json.loads(out)["changes"]] == []


def test_diff_oplist_files(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for side, dtype in (("old", "DT_FLOAT"), ("new", "DT_DOUBLE")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "math.pbtxt").write_text(
            f'op {{ name: "Neg" input_arg {{ name: "x" type: {dtype} }} output_arg {{ name: "y" type: DT_FLOAT }} }}\n')
    code, out, _ = run_cli(["diff", "old/math.pbtxt", "new/math.pbtxt", "--format", "github"], capsys)
    assert code == 1
    # at the field that changed (`type: DT_DOUBLE`), as at a C++ op's `.Input(...)`
    assert out == ("::error file=new/math.pbtxt,line=1,col=40,title=opgen graph input_signature_changed (Neg)::"
                   "Input signature mismatch 'float' vs. 'double'\n")


def test_diff_single_files_take_modules_from_the_other_side(project, capsys):
    """An OpList file (e.g. a `--from-library` dump) names its module after itself: against
    another file, a spec tree or the project no function is reported moved."""
    assert run_cli(["oplist", "specs", "-o", "lib.pbtxt"], capsys)[0] == 0
    assert run_cli(["oplist", "specs", "-o", "renamed.pbtxt"], capsys)[0] == 0
    for argv in (["lib.pbtxt", "renamed.pbtxt"], ["lib.pbtxt", "specs"], ["specs", "lib.pbtxt"], ["lib.pbtxt"]):
        code, out, err = run_cli(["diff", *argv, "--format", "json"], capsys)
        rules = [c["rule"] for c in json.loads(out)["changes"]]
        assert "function_moved" not in rules, (argv, rules)
        assert code == 0 and err == "", argv
    # the project's module for an op the file lacks; NEW's (the file's) when both are files
    spec = project / "specs" / "ops.cc"
    spec.write_text(spec.read_text() + 'REGISTER_OP("Offset").Input("x: float").Output("y: float");\n')
    assert run_cli(["diff", "lib.pbtxt", "--format", "json"], capsys)[0] == 0
    assert run_cli(["oplist", "specs", "-o", "lib2.pbtxt"], capsys)[0] == 0
    code, out, _ = run_cli(["diff", "lib2.pbtxt", "renamed.pbtxt"], capsys)
    assert code == 1
    assert "BREAKING python function_removed: gen_renamed.offset removed with its op" in out
    assert "gen_lib2" not in out


def test_diff_keeps_a_real_move_between_project_modules(project, capsys):
    """A `[tool.opgen.modules]` glob places an op whatever file it comes from; moving it
    to another module of the project stays a breaking `function_moved`."""
    assert run_cli(["oplist", "specs", "-o", "lib.pbtxt"], capsys)[0] == 0
    assert run_cli(["api", "--format", "json", "-o", "old.json"], capsys)[0] == 0
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '[tool.opgen.modules]\n"Scale" = "gen_scaling"\n')
    code, out, _ = run_cli(["diff", "lib.pbtxt", "--format", "json"], capsys)
    assert code == 0 and [c["rule"] for c in json.loads(out)["changes"]] == []  # (the dump takes the overrides)
    code, out, _ = run_cli(["diff", "old.json"], capsys)
    assert code == 1
    assert "BREAKING python function_moved: gen_ops.scale -> gen_scaling.scale" in out


def test_text_is_colored_only_when_asked(monkeypatch):
    monkeypatch.chdir(CORPUS / "break_graph_attr_removed")
    config = Config(root=CORPUS)
    result = diff_snapshots(load_side("old", config), load_side("new", config))
    assert "\033[" not in format_text(result)
    assert "\033[31;1mBREAKING" in format_text(result, color=True)


def _tree_state(repo: Path) -> dict:
    files = {str(p.relative_to(repo)): p.read_bytes() for p in repo.rglob("*")
             if p.is_file() and ".git" not in p.relative_to(repo).parts}
    return {"files": files, "status": git(repo, "status", "--porcelain"), "head": git(repo, "rev-parse", "HEAD"),
            "stash": git(repo, "stash", "list"), "index": (repo / ".git" / "index").read_bytes()}


def test_diff_git_revision_leaves_work_tree_untouched(project, capsys):
    repo = project
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    spec = repo / "specs" / "ops.cc"
    spec.write_text(spec.read_text().replace('    .Attr("factor: float = 1.0")\n', ""))
    git(repo, "commit", "-q", "-am", "v2: factor removed")
    # an uncommitted edit and an untracked file: the work tree side must see them, and keep them
    (repo / "overrides" / "scale.pbtxt").write_text('op {\n  name: "Scale"\n  alias: "Rescale"\n  alias: "Mul"\n}\n')
    (repo / "notes.txt").write_text("untracked\n")
    before = _tree_state(repo)

    code, out, err = run_cli(["diff", "--git", "HEAD~1", "--format", "json"], capsys)
    assert (code, err) == (1, "")
    report = json.loads(out)
    rules = [(c["category"], c["rule"], c["breaking"]) for c in report["changes"]]
    assert ("graph", "attr_removed", True) in rules
    assert ("python", "param_removed", True) in rules
    assert ("python", "alias_added", False) in rules
    # the removed attr where it stood, on the old side, as its parameter's removal
    assert {c["location"] for c in report["changes"] if c["rule"] in ("attr_removed", "param_removed")} == {
        "HEAD~1:specs/ops.cc:6:6"}

    # HEAD~1 against HEAD (named as a git-archived tree through a second call is not needed:
    # the work tree equals HEAD except the override) and HEAD against the work tree
    code, out, _ = run_cli(["diff", "--git", "HEAD", "--format", "json"], capsys)
    assert code == 0
    assert [c["rule"] for c in json.loads(out)["changes"]] == ["alias_added"]
    assert _tree_state(repo) == before


def test_diff_git_range_compares_two_revisions(project, capsys):
    """`--git A..B` compares the project at two revisions (an empty end is HEAD, as in git),
    `A...B` from their merge base; neither reads the work tree."""
    repo = project
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    git(repo, "tag", "v1")
    spec = repo / "specs" / "ops.cc"
    spec.write_text(spec.read_text().replace('    .Attr("factor: float = 1.0")\n', ""))
    git(repo, "commit", "-q", "-am", "v2: factor removed")
    spec.write_text("garbage that does not parse(\n")  # the work tree is never read
    for argv in (["v1..HEAD"], ["v1.."], ["main~1..main", "."]):
        code, out, err = run_cli(["diff", "--git", *argv, "--format", "json"], capsys)
        assert (code, err) == (1, ""), argv
        rules = [(c["category"], c["rule"]) for c in json.loads(out)["changes"]]
        assert ("graph", "attr_removed") in rules and ("python", "param_removed") in rules
        locations = {c["location"] for c in json.loads(out)["changes"] if c["category"] == "graph"}
        assert locations == {f"{argv[0].partition('..')[0]}:specs/ops.cc:6:6"}, argv
    code, out, _ = run_cli(["diff", "--git", "HEAD..v1", "--format", "json"], capsys)
    assert code == 0 and ("graph", "attr_added") in [(c["category"], c["rule"]) for c in json.loads(out)["changes"]]
    # A...B: what B changes since it left A (main moved on meanwhile: that is not B's change)
    git(repo, "checkout", "-q", "--", "specs")
    git(repo, "checkout", "-q", "-b", "side", "v1")
    (repo / "README.txt").write_text("docs only\n")
    git(repo, "add", "README.txt")
    git(repo, "commit", "-q", "-m", "docs")
    code, out, _ = run_cli(["diff", "--git", "main...side", "--format", "json"], capsys)
    assert (code, json.loads(out)["changes"]) == (0, [])
    # the merge base's files are named by its abbreviated hash, as git shows commits (trial28 #3)
    base = git(repo, "rev-parse", "--short", "v1").strip()
    code, out, _ = run_cli(["diff", "--git", "side...main", "--format", "json"], capsys)
    locations = {c["location"] for c in json.loads(out)["changes"] if c["rule"] == "attr_removed"}
    assert (code, locations) == (1, {f"{base}:specs/ops.cc:6:6"})
    code, _, _ = run_cli(["diff", "--git", "main..side"], capsys)
    assert code == 0  # side against main: the attr comes back, which breaks nothing
    code, _, err = run_cli(["diff", "--git", "v1..nope"], capsys)
    assert code == 2 and err.startswith("opgen: error: unknown git revision 'nope'")
    code, _, err = run_cli(["diff", "--git", "v1..HEAD", "specs"], capsys)
    assert code == 2 and "'specs' is not a project" in err


def test_diff_git_warnings_name_revision_paths(project, capsys):
    """A warning read in a revision names its files, and the project itself, as `REV:path`,
    never the temporary directory they were read from."""
    (project / "pyproject.toml").write_text((project / "pyproject.toml").read_text() + 'include_dirs = [".", "inc"]\n')
    (project / "inc").mkdir()
    (project / "inc" / "keep.h").write_text("\n")
    spec = project / "specs" / "ops.cc"
    spec.write_text('#include "myco/common.h"\n' + spec.read_text())
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "v1")
    code, _, err = run_cli(["diff", "--git", "HEAD"], capsys)
    assert code == 0
    warning = next(line for line in err.splitlines() if "cannot find include file" in line)
    assert warning.startswith("HEAD:specs/ops.cc:1:10: warning: ") and ", HEAD:, " in warning, err
    assert "opgen-diff-" not in err


def test_diff_git_unknown_revision_suggests_the_remote_branch(project, tmp_path, capsys, monkeypatch):
    """trial9 #11: in a fresh CI clone only `origin/master` exists: `--git master` (and
    `master...HEAD`) is an unknown revision, not "no merge base", and the hint names the remote
    branch; a typo gets its close match."""
    git(project, "init", "-q", "-b", "master")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "v1")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(project), str(clone)], check=True)
    git(clone, "checkout", "-q", "-b", "feature")
    git(clone, "branch", "-q", "-D", "master")
    monkeypatch.chdir(clone)
    for rev in ("master", "master...HEAD"):
        code, _, err = run_cli(["diff", "--git", rev], capsys)
        assert code == 2 and err.splitlines() == [
            "opgen: error: unknown git revision 'master'",
            ("  hint: did you mean 'origin/master'? else name a branch, tag or commit of this repository (git branch "
            "-a lists them)")], rev
    code, _, err = run_cli(["diff", "--git", "featur"], capsys)
    assert code == 2 and "hint: did you mean 'feature'? else name a branch" in err


def test_diff_git_errors(project, capsys):
    code, _, err = run_cli(["diff", "--git", "HEAD"], capsys)
    assert code == 2 and "is not in a git work tree" in err
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "v1")
    code, _, err = run_cli(["diff", "--git", "no-such-rev"], capsys)
    assert code == 2 and err.startswith("opgen: error: unknown git revision 'no-such-rev'")
    assert "hint: name a branch, tag or commit of this repository (git branch -a lists them)" in err
    assert "pre-commit" not in err  # the hook's base is origin/main: only that revision mentions it
    code, _, err = run_cli(["diff", "--git", "origin/main"], capsys)
    assert code == 2 and "opgen-diff pre-commit hook compares with origin/main" in err
    # errors inside the revision name the revision, not the temporary extraction
    git(project, "rm", "-q", "-r", "specs")
    git(project, "commit", "-q", "-m", "no specs")
    code, _, err = run_cli(["diff", "--git", "HEAD", "old.json"], capsys)
    assert (code, err) == (2, "HEAD:specs: error: no such file or directory\n")


@pytest.mark.parametrize("argv, message", [
    (["diff"], "opgen: error: nothing to compare"),
    (["diff", "missing_dir"], "missing_dir: error: no such file or directory"),
    (["diff", "bad.json", "bad.json"], "bad.json:1:36: error: API snapshot is not valid JSON"),
    (["diff", "other.json", "other.json"], "other.json:1: error: not an opgen API snapshot"),
])
def test_bad_input_is_an_error(project, capsys, argv, message):
    (project / "bad.json").write_text('{"format": "opgen-api-snapshot/1", oops}')
    (project / "other.json").write_text('{"format": "opgen-api-snapshot/1x", "ops": []}')
    code, out, err = run_cli(argv, capsys)
    assert (code, out) == (2, "")
    assert err.startswith(message), err


def test_kernel_locations_only_name_kernels_tensorflow_selects(project, capsys):
    """A kernel the cross-check says TF never selects (a constraint on an attr the op lacks,
    a type the op does not allow) gives its device no location: the op does not run there."""
    spec = project / "specs" / "ops.cc"
    spec.write_text(spec.read_text() + (
        'REGISTER_KERNEL_BUILDER(Name("Scale").Device(DEVICE_GPU).TypeConstraint<float>("U"), ScaleOp);\n'
        'REGISTER_KERNEL_BUILDER(Name("Scale").Device("TPU").TypeConstraint<bool>("T"), ScaleOp);\n'
        'REGISTER_KERNEL_BUILDER(Name("Scale").Device(DEVICE_CPU).TypeConstraint<bool>("T"), ScaleOp);\n'
        'REGISTER_KERNEL_BUILDER(Name("Scale").Device(DEVICE_CPU).TypeConstraint<int32>("T"), ScaleOp);\n'))
    code, out, _ = run_cli(["api", "--format", "json"], capsys)
    assert code == 0
    scale = next(op for op in json.loads(out)["ops"] if op["op"] == "Scale")
    assert scale["kernels"] == {"CPU": {"T": ["int32"]}}
    assert "kernel_locations" not in scale  # locations are recomputed from the sources by `opgen diff`
    snapshot = project_snapshot(load_config(project))
    at = Location("specs/ops.cc", 20, 1)  # the device's first selectable kernel, and its type's
    assert snapshot.ops["Scale"].kernel_locations == (("CPU", at), ("CPU T=int32", at))


def test_snapshot_outputs_is_what_opgen_api_prints(project, capsys):
    from opgen.apidiff.inputs import gather_config
    from opgen.apidiff.snapshot_file import snapshot_outputs
    from opgen.errors import OpgenError
    from opgen.overrides.load import load_overrides

    config = load_config(project)
    gathered = gather_config(config)
    model = load_overrides(project / "overrides", gathered.op_list)
    files = snapshot_outputs(config, gathered, model, project / "elsewhere")
    assert files == {"API.md": run_cli(["api"], capsys)[1].encode()}
    assert snapshot_outputs(replace(config, api=None), gathered, model, project / "generated") == {}
    with pytest.raises(OpgenError, match="is not inside out"):
        snapshot_outputs(replace(config, api="API.md"), gathered, model, project / "generated")


def test_diff_git_revision_of_a_project_in_a_subdirectory(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    project = repo / "lib" / "ops"
    (project / "specs").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs"]\n')
    (project / "specs" / "ops.cc").write_text(SPEC_V1)
    (repo / "big").mkdir()
    (repo / "big" / "unrelated.txt").write_text("not extracted\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    spec = project / "specs" / "ops.cc"
    spec.write_text(spec.read_text().replace("T: {float, int32}", "T: {float}"))
    monkeypatch.chdir(project)
    message = ",line=5,col=6,title=opgen graph allowed_values_narrowed (Scale)::Attr 'T' has a stricter set of "
    code, out, err = run_cli(["diff", "--git", "HEAD", "--format", "github"], capsys)
    assert (code, err) == (1, "")
    # GitHub resolves annotation paths from the repository's top, wherever opgen ran
    assert out.startswith("::error file=lib/ops/specs/ops.cc" + message)
    assert run_cli(["diff", "--git", "HEAD"], capsys)[1].splitlines()[3].endswith("[specs/ops.cc:5:6]")
    monkeypatch.chdir(project / "specs")
    out = run_cli(["diff", "--git", "HEAD", "--format", "github"], capsys)[1]
    assert out.startswith("::error file=lib/ops/specs/ops.cc" + message)
    # from the repository's top: the project named as NEW is compared with itself at HEAD
    monkeypatch.chdir(repo)
    code, out, err = run_cli(["diff", "--git", "HEAD", "lib/ops", "--format", "github"], capsys)
    assert (code, err) == (1, "") and out.startswith("::error file=lib/ops/specs/ops.cc" + message)
    code, out, err = run_cli(["diff", "--git", "HEAD"], capsys)
    assert code == 2 and err.startswith("HEAD:op_specs: error: no op sources: op_specs/ (the default) does not exist\n")
    assert "no pyproject.toml" in err and "opgen diff --git HEAD path/to/project" in err


def test_build_writes_and_checks_the_api_snapshot(project, capsys):
    assert run_cli(["build"], capsys)[0] == 0
    snapshot = project / "generated" / "API.md"
    assert snapshot.read_text() == run_cli(["api"], capsys)[1]
    assert run_cli(["build", "--check"], capsys)[0] == 0
    spec = project / "specs" / "ops.cc"
    spec.write_text(spec.read_text().replace("factor: float = 1.0", "factor: float = 2.0"))
    code, out, _ = run_cli(["build", "--check"], capsys)
    assert code == 1 and out == "would rewrite generated/API.md\nwould rewrite generated/gen_ops.py\n"
    code, out, _ = run_cli(["build", "--check", "--diff"], capsys)
    assert code == 1 and "-  - `factor: float, default=1.0`\n+  - `factor: float, default=2.0`" in out
    # the committed snapshot is an input of `opgen diff`: against the work tree
    code, out, _ = run_cli(["diff", "generated/API.md", "--format", "json"], capsys)
    changes = json.loads(out)["changes"]
    assert code == 1 and [c["rule"] for c in changes] == ["default_changed", "param_default_changed"]


def test_diff_git_revision_with_glob_sources(project, capsys):
    """Sources given as globs: the whole project is extracted from the revision."""
    (project / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs/*.cc"]\noverrides = "overrides"\n')
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "v1")
    spec = project / "specs" / "ops.cc"
    spec.write_text(spec.read_text().replace('REGISTER_OP("Divide")', 'REGISTER_OP("DivideV2")'))
    code, out, _ = run_cli(["diff", "--git", "HEAD", "--format", "json"], capsys)
    assert code == 1
    assert [(o["op"], o["status"]) for o in json.loads(out)["ops"]] == [("Divide", "removed"), ("DivideV2", "added")]


def _diff_trees(tmp_path, old: str, new: str) -> list[tuple[str, str, bool, str]]:
    """`opgen diff old new` of two one-file spec trees: (category, rule, breaking, location) per change."""
    for side, text in (("old", old), ("new", new)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "seq_ops.cc").write_text(text)
    result = diff_snapshots(load_side(str(tmp_path / "old"), Config(root=tmp_path)),
                            load_side(str(tmp_path / "new"), Config(root=tmp_path)))
    return [(c.category, c.rule, c.breaking, str(c.location)) for c in result.changes]


SEQ_V1 = """\
REGISTER_OP("Pack2")
    .Input("x: N * T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("N: int >= 1");
"""


def test_diff_lists_compatible_changes_beside_breaking_ones(tmp_path, monkeypatch):
    """TF's check stops at the first incompatibility; the review lists every change."""
    monkeypatch.chdir(tmp_path)
    new = SEQ_V1.replace("{float, int32}", "{float, int32, int64}").replace("int >= 1", "int >= 2")
    graph = [change[:3] for change in _diff_trees(tmp_path, SEQ_V1, new) if change[0] == "graph"]
    assert graph == [("graph", "minimum_raised", True), ("graph", "allowed_values_widened", False)]


def test_diff_does_not_restate_a_rejected_signature(tmp_path, monkeypatch):
    """An input added and one renamed: TF's signature mismatch, not also `inputs_changed_compatibly`."""
    monkeypatch.chdir(tmp_path)
    new = SEQ_V1.replace('.Input("x: N * T")', '.Input("values: N * T")\n    .Input("z: T")')
    graph = [change[:3] for change in _diff_trees(tmp_path, SEQ_V1, new) if change[0] == "graph"]
    assert graph == [("graph", "input_signature_changed", True)]


def test_signature_changes_are_located_at_the_arg_that_changed(tmp_path, monkeypatch):
    """The first `.Input`/`.Output` whose declaration differs; a removed one where OLD declared it."""
    monkeypatch.chdir(tmp_path)
    new = SEQ_V1.replace('    .Output("y: T")\n', '    .Input("z: T")\n    .Output("out: T")\n')
    graph = [(rule, where) for category, rule, _, where in _diff_trees(tmp_path, SEQ_V1, new) if category == "graph"]
    assert graph == [("input_signature_changed", "new/seq_ops.cc:3:6"),
                     ("output_signature_changed", "new/seq_ops.cc:4:6")]
    removed = SEQ_V1.replace('    .Output("y: T")\n', "")
    (tmp_path / "removed").mkdir()
    (tmp_path / "removed" / "seq_ops.cc").write_text(removed)
    result = diff_snapshots(load_side("old", Config(root=tmp_path)), load_side("removed", Config(root=tmp_path)))
    assert [(c.rule, str(c.location)) for c in result.changes if c.category == "graph"] == [
        ("output_signature_changed", "old/seq_ops.cc:3:6")]


def test_override_location_is_the_line_that_made_the_change(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for side in ("old", "new"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "seq_ops.cc").write_text(SEQ_V1)
    (tmp_path / "new" / "overrides").mkdir()
    (tmp_path / "new" / "overrides" / "seq.pbtxt").write_text(
        'op {\n  name: "Pack2"\n  rename_to: "pack_two"\n  input_rename { from: "x" to: "values" }\n}\n')
    result = diff_snapshots(load_side("old", Config(root=tmp_path)), load_side("new", Config(root=tmp_path)))
    located = {c.rule: (str(c.location), str(c.override_location)) for c in result.changes}
    assert located["function_renamed"] == ("new/seq_ops.cc:1:1", "new/overrides/seq.pbtxt:3:3")
    assert located["param_renamed"] == ("new/seq_ops.cc:2:6", "new/overrides/seq.pbtxt:4:3")


def _seq_repo(repo: Path) -> None:
    """A committed project `ops/seq_ops.cc` (SEQ_V1 and an op Gone at line 6) in `repo`."""
    (repo / "ops").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\n')
    (repo / "ops" / "seq_ops.cc").write_text(SEQ_V1 + 'REGISTER_OP("Gone")\n    .Input("a: float");\n')
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")


def test_removed_ops_are_located_in_the_old_revision(tmp_path, monkeypatch, capsys):
    """The work tree's file may no longer hold (or have) that line: `REV:path:line:col` in
    every format; a GitHub annotation, which can only attach to the work tree's files, stands
    where the registration was deleted (here at the end of the file: its last line), naming
    the revision's place in its text."""
    _seq_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ops" / "seq_ops.cc").write_text(SEQ_V1)
    code, out, _ = run_cli(["diff", "--git", "HEAD"], capsys)
    assert code == 1 and "op_removed: Op Gone removed  [HEAD:ops/seq_ops.cc:6:1]" in out
    code, out, _ = run_cli(["diff", "--git", "HEAD", "--format", "json"], capsys)
    assert {c["location"] for c in json.loads(out)["changes"]} == {"HEAD:ops/seq_ops.cc:6:1"}
    code, out, _ = run_cli(["diff", "--git", "HEAD", "--format", "github"], capsys)
    assert out.splitlines()[0] == ("::error file=ops/seq_ops.cc,line=5,title=opgen graph op_removed%2C python "
                                   "function_removed (Gone)::Op Gone removed (at HEAD:ops/seq_ops.cc:6:1)%0A"
                                   "gen_seq_ops.gone removed with its op (at HEAD:ops/seq_ops.cc:6:1)")


def test_github_annotation_of_a_removed_op_stands_where_its_registration_was_deleted(tmp_path, monkeypatch,
                                                                                    capsys):
    """The old line mapped into the work tree's file (`git diff`'s hunks): the first line after
    the deleted registration, past lines inserted above it; without a file only when the work
    tree has no such file any more."""
    (tmp_path / "ops").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\n')
    gone = 'REGISTER_OP("Gone")\n    .Input("a: float");\n\n'
    (tmp_path / "ops" / "seq_ops.cc").write_text(gone + SEQ_V1)
    (tmp_path / "ops" / "more_ops.cc").write_text('REGISTER_OP("More")\n    .Input("a: float");\n')
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "v1")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ops" / "seq_ops.cc").write_text("// Sequence ops.\n// (two lines added)\n" + SEQ_V1)
    (tmp_path / "ops" / "more_ops.cc").unlink()
    code, out, _ = run_cli(["diff", "--git", "HEAD", "--format", "github"], capsys)
    assert code == 1
    lines = out.splitlines()
    # HEAD's lines 1-3 were replaced by two comment lines: at the first of them
    assert ("::error file=ops/seq_ops.cc,line=1,title=opgen graph op_removed%2C python function_removed (Gone)::Op "
            "Gone removed (at HEAD:ops/seq_ops.cc:1:1)%0Agen_seq_ops.gone removed with its op (at "
            "HEAD:ops/seq_ops.cc:1:1)") in lines, out
    assert ("::error title=opgen graph op_removed%2C python function_removed (More)::Op More removed (at "
            "HEAD:ops/more_ops.cc:1:1)%0Agen_more_ops.more removed with its op (at "
            "HEAD:ops/more_ops.cc:1:1)") in lines, out


def test_github_annotation_of_a_dropped_arg_order_stands_where_it_was_deleted(tmp_path, monkeypatch, capsys):
    """The parameters an ApiDef's `arg_order` placed move when it is dropped: the change is
    the work of that line of HEAD's override file (not of the inputs' `.Input` lines or the
    `in_arg` rename, which did not change), annotated where the work tree's file deleted it."""
    import shutil

    scenario = CORPUS / "break_python_param_moved__arg_order_dropped"
    shutil.copytree(scenario / "old", tmp_path / "ops")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\nsources = ["ops"]\noverrides = "ops/overrides"\ncore_ops = ["*"]\n')
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "v1")
    shutil.copy(scenario / "new" / "overrides" / "api_def_Join.pbtxt", tmp_path / "ops" / "overrides")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(["diff", "--git", "HEAD", "--format", "github"], capsys)
    assert code == 1
    at = "::error file=ops/overrides/api_def_Join.pbtxt,line=7,title=opgen python param_moved (Join)::gen_ops.join: "
    was = "(at HEAD:ops/overrides/api_def_Join.pbtxt:7:3)"
    assert out.splitlines() == [  # one annotation for the line (each place once: GitHub shows only a few)
        (f"{at}parameter 'dim' moved from position 1 to 2 {was} (op declared at ops/ops.cc:7:6)%0Agen_ops.join: "
         f"parameter 'values' moved from position 2 to 1 {was} (op declared at ops/ops.cc:6:6)")], out


def test_ops_of_an_oplist_source_are_located_at_the_field_that_changed(tmp_path, monkeypatch, capsys):
    """A project maintaining ops as an OpList file (a subset of TF's registry): `--git HEAD`
    locates each change at the field's line, as at a C++ op's builder call (a default at its
    value, `b: true`), on HEAD's side too (a removed attr at its `attr {` there)."""
    scenario = CORPUS / "break_graph_default_changed__oplist_source"
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["tf_ops.pbtxt"]\ncore_ops = ["*"]\n')
    (tmp_path / "tf_ops.pbtxt").write_text((scenario / "old.pbtxt").read_text())
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "v1")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tf_ops.pbtxt").write_text((scenario / "new.pbtxt").read_text())
    code, out, _ = run_cli(["diff", "--git", "HEAD", "--format", "github"], capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        "::error file=tf_ops.pbtxt,line=21,col=7,title=opgen graph default_changed%2C python param_default_changed "
        "(MatMul)::Attr 'transpose_a' has changed it's default value; from False to True%0Agen_tf_ops.mat_mul: "
        "parameter 'transpose_a' default False -> True"), out
    text = (scenario / "old.pbtxt").read_text()
    transpose_a = text[text.index("  attr {"):text.index('  attr {\n    name: "T"')]
    (tmp_path / "tf_ops.pbtxt").write_text(text.replace(transpose_a, ""))
    code, out, _ = run_cli(["diff", "--git", "HEAD"], capsys)
    assert code == 1 and "attr_removed: Attr 'transpose_a' removed  [HEAD:tf_ops.pbtxt:17:3]" in out, out


@pytest.mark.parametrize(("hunks", "expected"), [
    ((), {1: (1, True), 5: (5, True)}),
    (((2, 0, 3, 2),), {1: (1, True), 2: (2, True), 3: (5, True), 9: (11, True)}),  # two lines inserted after line 2
    (((2, 3, 1, 0),), {1: (1, True), 2: (2, False), 4: (2, False), 5: (2, True), 9: (6, True)}),  # 2-4 deleted
    (((2, 2, 2, 1),), {1: (1, True), 2: (2, False), 3: (2, False), 4: (3, True), 9: (8, True)}),  # 2-3 replaced
    (((9, 1, 8, 0),), {9: (8, False), 1: (1, True)}),  # the last line deleted: at the file's last line
])
def test_revision_lines_map_into_the_work_tree(hunks, expected):
    """(line in the work tree, whether the revision's line is still there): a deleted line at
    the first line after the deleted block (the first replacing it)."""
    from opgen.apidiff.inputs import WorkTreeFile

    file = WorkTreeFile(hunks, 8 if hunks and hunks[0][0] == 9 else 100)
    assert {line: file.line_of(line) for line in expected} == expected


def test_github_annotation_of_a_removal_attaches_to_the_ops_declaration_in_the_work_tree(tmp_path, monkeypatch,
                                                                                       capsys):
    """trial21 #5: an attr removed since `--git HEAD` is located at its `.Attr(...)` in HEAD, a line
    the work tree no longer has: the annotation attaches to the op's REGISTER_OP there, naming
    the removed line in its message."""
    _seq_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ops" / "seq_ops.cc").write_text(
        SEQ_V1.replace('\n    .Attr("N: int >= 1");', ";").replace('.Input("x: N * T")', '.Input("x: T")')
        + 'REGISTER_OP("Gone")\n    .Input("a: float");\n')
    code, out, _ = run_cli(["diff", "--git", "HEAD", "--format", "github"], capsys)
    assert code == 1
    assert ("::error file=ops/seq_ops.cc,line=1,col=1,title=opgen graph attr_removed (Pack2)::Attr 'N' removed "
            "(at HEAD:ops/seq_ops.cc:5:6)") in out.splitlines(), out


def test_github_annotations_of_a_committed_range_attach_to_the_checked_out_files(tmp_path, monkeypatch, capsys):
    """trial21 #5: `--git base...HEAD` reads NEW from the revision, whose files the checkout holds
    unchanged: their annotations name the file (GitHub annotates the checked-out commit), from
    a subdirectory too; in a file the work tree changed since, the line is mapped to where it is
    now, and the message keeps `REV:path`."""
    _seq_repo(tmp_path)
    git(tmp_path, "branch", "base")
    (tmp_path / "ops" / "seq_ops.cc").write_text(SEQ_V1.replace("int >= 1", "int >= 2"))
    git(tmp_path, "commit", "-q", "-am", "v2")
    annotation = "::error file=ops/seq_ops.cc,line=5,col=6,title=opgen graph minimum_raised (Pack2)::"
    for cwd in (tmp_path, tmp_path / "ops"):
        monkeypatch.chdir(cwd)
        code, out, _ = run_cli(["diff", "--git", "base...HEAD", "--format", "github"], capsys)
        assert code == 1 and annotation in out, out
    (tmp_path / "ops" / "seq_ops.cc").write_text("// edited\n" + SEQ_V1.replace("int >= 1", "int >= 2"))
    code, out, _ = run_cli(["diff", "--git", "base...HEAD", "--format", "github"], capsys)
    assert ("::error file=ops/seq_ops.cc,line=6,col=6,title=opgen graph minimum_raised (Pack2)::Attr 'N' has a "
            "higher minimum; from 1 to 2 (at HEAD:ops/seq_ops.cc:5:6)") in out.splitlines(), out


def test_a_function_moved_by_a_modules_glob_names_the_glob(tmp_path, monkeypatch, capsys):
    """`function_moved` of an op a [tool.opgen.modules] glob placed: its second location is
    that glob's pyproject line (nothing in the sources changed)."""
    source = (CORPUS / "break_python_function_moved" / "new" / "math_ops.cc").read_text()
    for side, glob, module in (("old", "Scale", "gen_math_ops"), ("new", "Sca*", "gen_scale_ops")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "ops.cc").write_text(source)
        (tmp_path / side / "pyproject.toml").write_text(
            f'[tool.opgen]\nsources = ["ops.cc"]\ncore_ops = ["*"]\n\n[tool.opgen.modules]\n"{glob}" = "{module}"\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(["diff", "old", "new"], capsys)
    assert code == 1
    assert ("BREAKING python function_moved: gen_math_ops.scale -> gen_scale_ops.scale  [new/ops.cc:5:1; override "
            "new/pyproject.toml:6:1]") in out


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_malformed_snapshot_field_is_located_at_its_line(project, capsys, fmt):
    """trial9 #10: a hand-edited snapshot's bad field is located at its key (line and column),
    in a `.json` file and in an API.md's block alike, not at the snapshot's first line."""
    assert run_cli(["api", "--format", fmt, "-o", f"api.{fmt}"], capsys)[0] == 0
    path = project / f"api.{fmt}"
    lines = path.read_text().splitlines()
    # `"type": "float"` in the JSON file, `"type":"float"` in the block (one op a line)
    line, found = next((i, m) for i, text in enumerate(lines, 1) if (m := re.search(r'"type": ?"float"', text)))
    lines[line - 1] = lines[line - 1][:found.start()] + '"type": 7' + lines[line - 1][found.end():]
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli(["diff", f"api.{fmt}", f"api.{fmt}"], capsys)
    column = found.start() + 1
    assert code == 2 and err.startswith(f"api.{fmt}:{line}:{column}: error: malformed API snapshot: ops["), err
    assert "].type: expected a string, got an integer\n" in err


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_snapshot_signature_contradicting_its_params_is_located_at_it(project, capsys, fmt):
    """trial19 #3: a hand edit of a function's `signature` alone (it would show one API and
    compare another) is an error at that key."""
    assert run_cli(["api", "--format", fmt, "-o", f"api.{fmt}"], capsys)[0] == 0
    path = project / f"api.{fmt}"
    lines = path.read_text().splitlines()
    line, found = next((i, m) for i, text in enumerate(lines, 1)
                       if (m := re.search(r'"signature": ?("(?:[^"\\]|\\.)*")', text)))
    signature = json.loads(found[1])
    edited = signature.replace("name=None", "extra=1, name=None")
    lines[line - 1] = lines[line - 1].replace("name=None", "extra=1, name=None", 1)
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli(["diff", f"api.{fmt}", f"api.{fmt}"], capsys)
    column = found.start() + 1
    assert code == 2 and err.startswith(f"api.{fmt}:{line}:{column}: error: malformed API snapshot: ops["), err
    assert f"].function.signature: {edited!r} is not the signature its name and params give, {signature!r}" in err


def test_github_format_annotates_the_errors_that_stop_the_diff(tmp_path, monkeypatch, capsys):
    """trial37 #9: an error of a side (here a bad override committed at HEAD) was only text on
    stderr; with --format github it is an `::error` annotation at its line too (the work tree's
    file when it holds the revision's unchanged), and the exit status stays 2."""
    repo = tmp_path / "repo"
    project = repo / "lib"
    (project / "specs").mkdir(parents=True)
    (project / "overrides").mkdir()
    (project / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs"]\n')
    (project / "specs" / "ops.cc").write_text(SPEC_V1)
    (project / "overrides" / "ops.pbtxt").write_text('op {\n  name: "Scal"\n  rename_to: "Rescale"\n}\n')
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    monkeypatch.chdir(project)
    code, out, err = run_cli(["diff", "--git", "HEAD", "--format", "github"], capsys)
    assert code == 2 and err.startswith("HEAD:overrides/ops.pbtxt:2:3: error: ")
    assert out.startswith("::error file=lib/overrides/ops.pbtxt,line=2,col=3,title=opgen diff%3A error::HEAD:overrides/"
                          "ops.pbtxt:2:3: error: unknown op 'Scal'%0A  hint: did you mean Scale?\n"), out
    assert out.count("::error") == 1 and out.endswith("\n")
    assert run_cli(["diff", "--git", "HEAD"], capsys)[1] == ""  # (other formats: stderr alone, as before)
