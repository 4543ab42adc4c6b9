"""`opgen diff` on the scenario corpus tests/golden/apidiff/<scenario>/{old,new}: every
output format against its golden file (OPGEN_UPDATE_GOLDEN=1 rewrites them).

Scenario names state the expected verdict, checked independently of the goldens:
`break_<category>_<rule>[__<variant>]` must report `<rule>` as a breaking change of that category,
`ok_*` must report nothing breaking, `docs_*` only docs changes.
"""

from __future__ import annotations

import argparse
import io
import json
import os
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from support.apidiff_cases import CORPUS, FILE_SCENARIOS, SCENARIOS, scenario_side

from opgen.apidiff.compare import run_diff
from opgen.config import Config

FORMATS = {"text": "txt", "md": "md", "json": "json", "github": "github"}
UPDATE = os.environ.get("OPGEN_UPDATE_GOLDEN") == "1"


def _config(root: Path) -> Config:
    """A scenario's configuration; the corpus declares TF op names (Barrier, Fill) on purpose."""
    return Config(root=root, core_ops=("*",))


def _diff(scenario: str, fmt: str, monkeypatch) -> tuple[int, str]:
    folder = CORPUS / scenario
    monkeypatch.chdir(folder)
    # outside a git work tree and GitHub: the annotations' paths stay relative to the scenario,
    # wherever (and whether in git) this checkout is
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(CORPUS))
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    args = argparse.Namespace(old=scenario_side(folder, "old"), new=scenario_side(folder, "new"), git=None,
                              format=fmt, allow_breaking=False)
    out = io.StringIO()
    with redirect_stdout(out):
        code = run_diff(args, _config(folder))
    return code, out.getvalue()


def test_corpus_size():
    assert len(SCENARIOS) >= 40
    assert sum(s.startswith("ok_") for s in SCENARIOS) >= 10


@pytest.mark.parametrize("scenario", SCENARIOS + FILE_SCENARIOS)
def test_scenario(scenario, monkeypatch):
    outputs = {fmt: _diff(scenario, fmt, monkeypatch) for fmt in FORMATS}
    report = json.loads(outputs["json"][1])
    breaking = [(c["category"], c["rule"]) for c in report["changes"] if c["breaking"]]
    for code, _ in outputs.values():
        assert code == (1 if breaking else 0)
    if scenario.startswith("break_"):
        _, category, rule = scenario.split("__")[0].split("_", 2)
        assert (category, rule) in breaking, breaking
    elif scenario.startswith("ok_"):
        assert not breaking
    elif scenario.startswith("docs_"):
        assert report["changes"] and all(c["category"] == "docs" for c in report["changes"])
    for fmt, ext in FORMATS.items():
        golden = CORPUS / scenario / f"expected.{ext}"
        if UPDATE:
            golden.write_text(outputs[fmt][1], encoding="utf-8")
        assert outputs[fmt][1] == golden.read_text(encoding="utf-8"), f"{scenario}: {fmt} output differs"


def test_allow_breaking_exits_zero(monkeypatch):
    folder = CORPUS / "break_graph_attr_removed"
    monkeypatch.chdir(folder)
    args = argparse.Namespace(old="old", new="new", git=None, format="text", allow_breaking=True)
    with redirect_stdout(io.StringIO()):
        assert run_diff(args, _config(folder)) == 0


def test_every_side_equals_itself(monkeypatch):
    """No change is reported between a snapshot and itself, or its JSON round trip."""
    from opgen.apidiff.changes import diff_snapshots
    from opgen.apidiff.inputs import load_side
    from opgen.apidiff.snapshot_format import from_json, to_json

    for scenario in SCENARIOS:
        monkeypatch.chdir(CORPUS / scenario)
        for side in ("old", "new"):
            snapshot = load_side(side, _config(CORPUS / scenario))
            assert diff_snapshots(snapshot, snapshot).changes == []
            assert diff_snapshots(snapshot, from_json(to_json(snapshot), "x.json")).changes == [], (scenario, side)


def _entry_text(path: Path, location: str) -> str:
    """The lines of a snapshot file from `location`'s line (`FILE:LINE:COL`) to the next entry."""
    line = int(location.rsplit(":", 2)[1])
    return "\n".join(path.read_text(encoding="utf-8").split("\n")[line - 1:line + 7])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_snapshot_inputs_classify_like_spec_trees(scenario, tmp_path, monkeypatch):
    """OLD given as the Markdown snapshot (what `opgen build` commits) or the JSON snapshot of
    the old tree: the same changes (category, rule, message) as from the tree itself, at the
    same lines of NEW; what the tree diff locates in OLD's sources (which a snapshot does not
    record: a removed op, attr or device) is located at NEW's op when NEW has it (a line a
    review can point at), else at the op's entry in the snapshot file; an override line only
    OLD had (a dropped alias) is not given (NEW's entry for the op, if it has one). A `.md` file is read
    for its embedded snapshot, never as C++."""
    from opgen.apidiff.snapshot_format import to_json, to_markdown

    folder = CORPUS / scenario
    monkeypatch.chdir(folder)
    from opgen.apidiff.inputs import load_side

    old = load_side("old", _config(folder))
    (tmp_path / "API.md").write_text(to_markdown(old), encoding="utf-8")
    (tmp_path / "api.json").write_text(to_json(old), encoding="utf-8")
    expected = json.loads(_diff(scenario, "json", monkeypatch)[1])["changes"]
    for snapshot_file in ("API.md", "api.json"):
        args = argparse.Namespace(old=str(tmp_path / snapshot_file), new="new", git=None, format="json",
                                  allow_breaking=True)
        out = io.StringIO()
        with redirect_stdout(out):
            assert run_diff(args, _config(folder)) == 0
        changes = json.loads(out.getvalue())["changes"]
        assert len(changes) == len(expected), snapshot_file
        for got, want in zip(changes, expected):
            if want.get("override_location", "").startswith("old/"):  # an override OLD had: no snapshot records
                assert got.pop("override_location", "new/").startswith("new/"), got  # it (NEW's entry, if any)
                want = {k: v for k, v in want.items() if k != "override_location"}
            if got.get("location_note", "").endswith(f" at {want['location']}"):  # a snapshot records no text to
                # tell whether a macro's argument or its #define changed (`changes._in_changed_text`): the argument
                want = {**want, "location": got["location"], "location_note": got["location_note"]}
            if not want["location"].startswith("old/"):
                assert got == want, snapshot_file
                continue
            assert {k: v for k, v in got.items() if k != "location"} == {
                k: v for k, v in want.items() if k not in ("location", "override_location")}, snapshot_file
            if got["location"].startswith("new/"):  # NEW still has the op: at its REGISTER_OP or kernel there
                assert got["rule"] != "op_removed" and "removed with its op" not in got["message"], got
                continue
            assert got["location"].startswith(f"{tmp_path / snapshot_file}:"), got
            assert (f"`{got['op']}`" if snapshot_file == "API.md" else f'"op": "{got["op"]}"') in _entry_text(
                tmp_path / snapshot_file, got["location"]), (snapshot_file, got)


@pytest.mark.parametrize("scenario", ["break_graph_default_changed", "break_python_param_renamed",
                                      "break_kernel_types_narrowed", "ok_hidden_function_changed"])
def test_snapshot_as_new_side_is_located_in_old_sources(scenario, tmp_path, monkeypatch):
    """NEW given as a snapshot file (no source lines), OLD as sources: each change of an op
    both sides have is located at OLD's line of the changed part, as NEW's would be."""
    from opgen.apidiff.inputs import load_side
    from opgen.apidiff.snapshot_format import to_markdown

    folder = CORPUS / scenario
    monkeypatch.chdir(folder)
    (tmp_path / "API.md").write_text(to_markdown(load_side("new", _config(folder))), encoding="utf-8")
    expected = json.loads(_diff(scenario, "json", monkeypatch)[1])["changes"]
    args = argparse.Namespace(old="old", new=str(tmp_path / "API.md"), git=None, format="json", allow_breaking=True)
    out = io.StringIO()
    with redirect_stdout(out):
        run_diff(args, _config(folder))
    changes = json.loads(out.getvalue())["changes"]
    assert [c["rule"] for c in changes] == [c["rule"] for c in expected]
    old_sources = load_side("old", _config(folder))
    for got in changes:
        assert got["location"].startswith("old/"), got
        entry = old_sources.ops[got["op"]]
        assert got["location"] in {str(entry.location), *(str(loc) for _, loc in entry.parts),
                                   *(str(loc) for _, loc in entry.kernel_locations)}, got
        if got.get("override_location"):
            assert got["override_location"].startswith("old/overrides/")


def _git(cwd: Path, *args: str) -> None:
    import subprocess

    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


def _without_paths(changes: list[dict]) -> list[dict]:
    """Changes with each location's file path dropped (line and column kept), the note's too."""
    out = []
    for c in changes:
        c = dict(c)
        for key in ("location", "override_location"):
            if c.get(key):
                c[key] = ":".join(c[key].rsplit(":", 2)[1:])
        if c.get("location_note"):
            what, at = c["location_note"].rsplit(" at ", 1)
            c["location_note"] = f"{what} at " + ":".join(at.rsplit(":", 2)[1:])
        out.append(c)
    return out


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_git_revision_classifies_like_spec_trees(scenario, tmp_path, monkeypatch):
    """OLD committed in a git repository, NEW in its work tree (`opgen diff --git HEAD`): the
    same changes, at the same lines, as `opgen diff old new`."""
    import shutil

    folder = CORPUS / scenario
    expected = _without_paths(json.loads(_diff(scenario, "json", monkeypatch)[1])["changes"])
    repo = tmp_path / "repo"
    shutil.copytree(folder / "old", repo / "tree")
    # the sources declare TF's own ops on purpose: keep them (docs/gathering.md, core ops)
    (repo / "pyproject.toml").write_text(
        '[tool.opgen]\ncore_ops = ["*"]\nsources = ["tree"]\noverrides = "tree/overrides"\n'
    )
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "old")
    shutil.rmtree(repo / "tree")
    shutil.copytree(folder / "new", repo / "tree")
    monkeypatch.chdir(repo)
    args = argparse.Namespace(old=None, new=None, git="HEAD", format="json", allow_breaking=True)
    out = io.StringIO()
    with redirect_stdout(out):
        assert run_diff(args, Config(root=repo, sources=("tree",), overrides="tree/overrides", core_ops=("*",))) == 0
    assert _without_paths(json.loads(out.getvalue())["changes"]) == expected


# An OpList carries neither overrides nor kernels, and names no module of its own (`opgen diff`
# takes the other side's): scenarios about those are left out, and kernel changes are not
# expected from OpLists.
OPLIST_SCENARIOS = [
    s for s in SCENARIOS
    if not (CORPUS / s / "old" / "overrides").exists() and not (CORPUS / s / "new" / "overrides").exists()
    and s != "break_python_function_moved"
]


@pytest.mark.parametrize("scenario", OPLIST_SCENARIOS)
def test_oplist_inputs_classify_like_spec_trees(scenario, tmp_path, monkeypatch):
    """Both sides as OpList files (what `opgen oplist` writes): the same changes (category,
    rule, breaking, message) as from the spec trees, kernel changes aside."""
    from opgen.cli import main

    folder = CORPUS / scenario
    expected = json.loads(_diff(scenario, "json", monkeypatch)[1])["changes"]
    for side in ("old", "new"):  # one file name on both sides: the module name comes from it
        (tmp_path / side).mkdir()
        assert main(["oplist", str(folder / side), "-o", str(tmp_path / side / "ops.pbtxt")]) == 0
    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(old="old/ops.pbtxt", new="new/ops.pbtxt", git=None, format="json",
                              allow_breaking=True)
    out = io.StringIO()
    with redirect_stdout(out):
        assert run_diff(args, _config(tmp_path)) == 0
    keys = ("category", "rule", "breaking", "message")
    changes = json.loads(out.getvalue())["changes"]
    got = [{k: c[k] for k in keys} for c in changes]
    expected = [c for c in expected if c["category"] != "kernel"]
    assert got == [{k: c[k] for k in keys} for c in expected]
    # located alike: a change the spec tree locates at a part (an `.Attr(...)` line, not the
    # REGISTER_OP) is located at that part's entry (or its field) in the OpList, not its `op {`
    from opgen.apidiff.inputs import load_side

    monkeypatch.chdir(folder)
    registered = {str(entry.location) for side in ("old", "new")
                  for entry in load_side(side, _config(folder)).ops.values()}
    monkeypatch.chdir(tmp_path)
    entries = {str(entry.location) for side in ("old", "new")
               for entry in load_side(f"{side}/ops.pbtxt", _config(tmp_path)).ops.values()}
    for want, change in zip(expected, changes):
        if want.get("location") not in registered:
            assert change["location"] not in entries, (want, change)
