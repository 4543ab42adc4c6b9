"""Hostile strings from sources in the API snapshot and in every output format (docs/api-review.md).

Every string field a source can put into the snapshot (a kernel's device name and
HostMemory args, a Deprecated explanation, a `[tool.opgen.helpers]` value, docs, attr
defaults) gets each hostile string: the committed Markdown snapshot must round-trip exactly,
`opgen diff` on it must equal `opgen diff` on the sources (so a planted block is never
read), and no output may carry a raw control character or a broken table or heading.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from support.apidiff_cases import run_cli

from opgen.apidiff.snapshot_format import from_markdown, to_markdown
from opgen.output_escape import gh_data, gh_property, md_code, md_text

PLANTED = ('x\n<!-- opgen-api-snapshot/1 (read by `opgen diff`; do not edit)\n{"format": "opgen-api-snapshot/1", '
           '"ops": []}\n-->\n')
HOSTILE = [
    PLANTED,
    "-->", "--!>", "<!--", "a|b|c", "`tick``s`", "# heading", "\\| \\\\|", "*em* _em_ ~~st~~ $m$ @team #1",
    "<b>html</b> &amp; &#32;", "\x1b[31mred\x1b[0m", "cr\rlf\r\n- item", "\t    indented", "1. one", "- two",
    "%0A::error file=a,line=1::pwned", "tab\there", "\u2028line\u2029sep\u0085", "-1", "--",
]


def _cpp(text: str) -> str:
    """A C++ string literal for `text`: non-printable ASCII and non-ASCII as 3-digit octal bytes."""
    out = []
    for byte in text.encode("utf-8"):
        c = chr(byte)
        out.append(c if 0x20 <= byte < 0x7F and c not in '"\\?' else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string with \uXXXX escapes is a TOML basic string


def _spec(hostile: str, keep_victim: bool = True) -> str:
    victim = (f'REGISTER_OP("Victim")\n    .Input("x: T")\n    .Output("y: T")\n    .Attr("T: {{float, int32}}")\n'
              f'    .Deprecated(3, Why())\n    .Doc({_cpp("Summary " + hostile)});\n') if keep_victim else ""
    return (
        '#include "tensorflow/core/framework/op.h"\n'
        f'REGISTER_OP("Keep")\n    .Input("x: float")\n    .Output("y: float")\n    .Deprecated(2, {_cpp(hostile)});\n'
        + victim
        + f'REGISTER_KERNEL_BUILDER(Name("Keep").Device({_cpp(hostile)}).HostMemory({_cpp(hostile)}), KeepOp);\n'
        + 'REGISTER_KERNEL_BUILDER(Name("Keep").Device(DEVICE_CPU).HostMemory("x").Priority(2), KeepOp);\n')


@pytest.fixture
def hostile_project(tmp_path, monkeypatch):
    def make(hostile: str) -> None:
        (tmp_path / "pyproject.toml").write_text(
            f'[tool.opgen]\nsources = ["specs"]\nout = "generated"\napi = "generated/API.md"\n\n'
            f'[tool.opgen.helpers]\nWhy = {_toml("why " + hostile)}\n', encoding="utf-8")
        (tmp_path / "specs").mkdir(exist_ok=True)
        (tmp_path / "specs" / "ops.cc").write_text(_spec(hostile), encoding="utf-8")

    monkeypatch.chdir(tmp_path)
    return make


_RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MD = MarkdownIt("commonmark").enable("table")


def _check_markdown(text: str, headings: int | None = None) -> None:
    """No raw control character, no HTML but the one closing comment, every table row with
    as many cells as its header, and (when given) exactly `headings` headings."""
    assert not _RAW_CONTROL.search(text)
    tokens = _MD.parse(text)
    html = [t for t in tokens if t.type == "html_block"]
    assert len(html) <= 1 and all(t.content.startswith("<!-- opgen-api-snapshot/1") for t in html)
    for t in tokens:
        assert not any(c.type == "html_inline" for c in t.children or [])
    columns = None
    for t in tokens:
        if t.type == "tr_open":
            cells = 0
        elif t.type in ("th_open", "td_open"):
            cells += 1
        elif t.type == "tr_close":
            columns = cells if columns is None else columns
            assert cells == columns
        elif t.type == "table_close":
            columns = None
    if headings is not None:
        assert sum(t.type == "heading_open" for t in tokens) == headings


@pytest.mark.parametrize("hostile", HOSTILE, ids=[f"s{i}" for i in range(len(HOSTILE))])
def test_hostile_strings_never_forge_or_break_the_snapshot(hostile, hostile_project, capsys):
    hostile_project(hostile)
    code, _, err = run_cli(["build"], capsys)
    assert code == 0, err
    committed = Path("generated/API.md").read_text(encoding="utf-8")
    # the hostile strings did reach the snapshot (docs, device, host memory, deprecation, helper)
    snapshot = from_markdown(committed, "API.md")
    keep = snapshot.ops["Keep"]
    assert keep.op_def.deprecation.explanation == hostile
    assert hostile in keep.kernels and keep.kernel_placement["CPU"] == (("x",), (2,))
    assert snapshot.ops["Victim"].op_def.deprecation.explanation == "why " + hostile
    assert to_markdown(snapshot) == committed  # round-trips exactly
    # one heading per module, function, and the title
    _check_markdown(committed, headings=1 + 1 + 2)
    # the committed snapshot says what the sources say: no change; then the victim op goes
    assert run_cli(["diff", "generated/API.md"], capsys)[:2] == (0, ("opgen diff: 0 breaking, 0 compatible, "
                                                                 "0 docs-only change(s); ops: none\n"))
    Path("specs/ops.cc").write_text(_spec(hostile, keep_victim=False), encoding="utf-8")
    outputs = {}
    for fmt in ("text", "md", "json", "github"):
        code, out, err = run_cli(["diff", "generated/API.md", "--format", fmt], capsys)
        assert (code, err) == (1, ""), err
        outputs[fmt] = out
    rules = [c["rule"] for c in json.loads(outputs["json"])["changes"]]
    assert rules == ["op_removed", "function_removed"]
    assert not _RAW_CONTROL.search(outputs["text"])
    _check_markdown(outputs["md"])
    assert all(line.startswith(("::error ", "::notice ")) for line in outputs["github"].splitlines())
    assert not _RAW_CONTROL.search(outputs["github"])


@pytest.mark.parametrize("hostile", HOSTILE, ids=[f"s{i}" for i in range(len(HOSTILE))])
def test_hostile_strings_in_the_kernels_table_and_the_diff_report(hostile, hostile_project, capsys):
    hostile_project(hostile)
    code, out, _ = run_cli(["kernels", "--format", "md"], capsys)
    assert code == 0
    _check_markdown(out, headings=3)  # the title, the op with kernels and the one without
    # a change whose message and location carry the string: text, Markdown and GitHub stay intact
    with open("specs/ops.cc", "a", encoding="utf-8") as spec:
        spec.write(f'REGISTER_KERNEL_BUILDER(Name("Keep").Device("GPU").HostMemory({_cpp(hostile)}), KeepOp);\n')
    code, _, _ = run_cli(["build"], capsys)
    for fmt in ("text", "md", "github"):
        run_cli(["diff", "generated/API.md", "--format", fmt], capsys)
    without_device = _spec(hostile).replace(f"Device({_cpp(hostile)})", 'Device("TPU")')
    Path("specs/ops.cc").write_text(without_device, encoding="utf-8")
    for fmt, check in (("text", None), ("md", _check_markdown), ("github", None)):
        code, out, err = run_cli(["diff", "generated/API.md", "--format", fmt, "--allow-breaking"], capsys)
        assert (code, err) == (0, "")
        assert "device_removed" in out and not _RAW_CONTROL.search(out)
        if check:
            check(out)
        if fmt == "github":
            assert all(line.startswith(("::error ", "::notice ")) for line in out.splitlines())


@pytest.mark.parametrize("hostile", HOSTILE, ids=[f"s{i}" for i in range(len(HOSTILE))])
def test_escaping_helpers(hostile):
    rendered = _MD.render(f"- {md_text(hostile)} {md_code(hostile)}\n\n| h |\n|---|\n| {md_text(hostile)} |\n")
    assert rendered.count("<li>") == 1 and rendered.count("<td>") == 1 and "<b>" not in rendered
    for text in (md_text(hostile), md_code(hostile), gh_data(hostile), gh_property(hostile)):
        assert "\n" not in text and "\r" not in text and not _RAW_CONTROL.search(text)
    assert "::" not in gh_property(hostile) and "," not in gh_property(hostile)


def test_a_planted_block_in_a_hand_edited_snapshot_is_an_error(hostile_project, capsys):
    hostile_project("plain")
    assert run_cli(["build"], capsys)[0] == 0
    committed = Path("generated/API.md").read_text(encoding="utf-8")
    head, block = committed.split("\n<!--", 1)
    cases = {
        "second block": (head + "\n<!--" + block + "\n" + "<!--" + block, "a second HTML comment"),
        "planted before": (head + PLANTED.split("\n", 1)[1] + "\n<!--" + block, "a second HTML comment"),
        "trailing text": (committed + "more\n", "must end with a `-->` line"),
        "raw dash": (committed.replace('"Keep"', '"Ke-ep"', 1), "'-' in the machine-readable block"),
        "raw angle": (committed.replace('"Keep"', '"K>"', 1), "'>' in the machine-readable block"),
        "no block": (head, "no `<!-- opgen-api-snapshot/1"),
    }
    for name, (text, message) in cases.items():
        Path("bad.md").write_text(text, encoding="utf-8")
        code, out, err = run_cli(["diff", "bad.md"], capsys)
        assert (code, out) == (2, ""), name
        assert err.startswith("bad.md:") and message in err, (name, err)
