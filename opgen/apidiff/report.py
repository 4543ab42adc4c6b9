"""Render a DiffResult as text (colored on a terminal), Markdown, JSON or GitHub annotations."""

from __future__ import annotations

import json
from collections.abc import Callable

from opgen.apidiff.changes import CATEGORIES, Change, DiffResult
from opgen.errors import Location, OpgenError, OpgenErrors, first_names, plural, printable_line
from opgen.output_escape import gh_data, gh_property, md_text

_TITLES = {"graph": "graph compatibility", "python": "Python API", "kernel": "kernels (devices and types)",
           "docs": "docs"}


def _tally(result: DiffResult) -> tuple[int, int, int]:
    """(breaking, compatible, docs-only) changes."""
    breaking = len(result.breaking)
    docs = sum(1 for c in result.changes if c.category == "docs")
    return breaking, len(result.changes) - breaking - docs, docs


def _counts(result: DiffResult) -> str:
    breaking, compatible, docs = _tally(result)
    by_status = {s: sum(1 for o in result.ops if o.status == s) for s in ("added", "removed", "changed")}
    ops = ", ".join(f"{n} {s}" for s, n in by_status.items() if n) or "none"
    return f"{breaking} breaking, {compatible} compatible, {docs} docs-only change(s); ops: {ops}"


def _verdict(c: Change) -> str:
    return "BREAKING" if c.breaking else "docs" if c.category == "docs" else "ok"


def _by_op(result: DiffResult) -> list[tuple[str, str, list[Change]]]:
    status = {o.op: o.status for o in result.ops}
    grouped: dict[str, list[Change]] = {}
    for c in result.changes:
        grouped.setdefault(c.op, []).append(c)
    return [(op, status[op], grouped.get(op, [])) for op in sorted(status)]


def format_text(result: DiffResult, color: bool = False) -> str:
    """Per op its graph and Python changes, then the docs changes apart."""

    def paint(code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if color else text

    def line(c: Change) -> str:
        tag = paint("31;1" if c.breaking else "2" if c.category == "docs" else "32", f"{_verdict(c):<8}")
        where = paint("2", f"  [{printable_line(_where(c))}]") if c.location else ""
        return f"  {tag} {c.category:<6} {c.rule}: {printable_line(c.message)}{where}"

    lines = [paint("1", "opgen diff: " + _counts(result))]
    docs: list[Change] = []
    for op, status, changes in _by_op(result):
        api = [c for c in changes if c.category != "docs"]
        docs += [c for c in changes if c.category == "docs"]
        if api or status != "changed":
            lines += ["", paint("1", printable_line(op)) + f" ({status})", *map(line, api)]
    if docs:
        lines += ["", paint("1", "Docs-only changes:")]
        lines += [line(c).replace(f" docs   {c.rule}:", f" {printable_line(c.op)}: {c.rule}:", 1) for c in docs]
    return "\n".join(lines) + "\n"


def format_markdown(result: DiffResult) -> str:
    lines = ["## opgen API diff", "", _counts(result), ""]
    if not result.changes:
        lines.append("No API changes.")
        return "\n".join(lines) + "\n"
    if result.breaking:
        lines += [f":x: **{len(result.breaking)} breaking change(s)**", ""]
    else:
        lines += [":white_check_mark: no breaking changes", ""]
    for category in CATEGORIES:
        changes = [c for c in result.changes if c.category == category]
        if not changes:
            continue
        lines += [f"### {_TITLES[category]}", "", "| op | change | rule | details | where |",
                  "|---|---|---|---|---|"]
        for c in changes:
            verdict = "**breaking**" if c.breaking else "docs" if c.category == "docs" else "compatible"
            # table cells are escaped text, never code spans (see opgen.output_escape)
            note = _location_note(c)
            where = md_text(str(c.location)) + (f" ({md_text(note)})" if note else "") + (
                f" (override {md_text(str(c.override_location))})" if c.override_location else "") if c.location else ""
            lines.append(f"| {md_text(c.op)} | {verdict} | `{c.rule}` | {md_text(c.message)} | {where} |")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _location_note(c: Change) -> str:
    """The other place of a change whose text is written elsewhere than it is used (a macro's
    argument and the #define using it, a #define or constant and where it is used: `Location.
    expanded_from`), as `used in expansion of macro 'M' at common.h:30:13`; else ''."""
    if c.location is None or c.location.expanded_from is None:
        return ""
    what, at = c.location.expanded_from
    return f"{what} at {at}"


def _where(c: Change) -> str:
    note = _location_note(c)
    where = f"{c.location} ({note})" if note else str(c.location)
    return f"{where}; override {c.override_location}" if c.override_location else where


def format_json(result: DiffResult) -> str:
    breaking, compatible, docs = _tally(result)
    data = {
        "breaking": breaking,
        "compatible": compatible,
        "docs_only": docs,
        "ops": [{"op": o.op, "status": o.status} for o in result.ops],
        "changes": [
            {
                "op": c.op,
                "category": c.category,
                "rule": c.rule,
                "breaking": c.breaking,
                "message": c.message,
                **({"location": str(c.location)} if c.location else {}),
                **({"location_note": note} if (note := _location_note(c)) else {}),
                **({"override_location": str(c.override_location)} if c.override_location else {}),
                **({"tf_message": c.tf_message} if c.tf_message else {}),
            }
            for c in result.changes
        ],
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def format_github(result: DiffResult) -> str:
    """GitHub workflow commands: `::error` for breaking changes, `::notice` for the rest.

    A Python-API change of an op whose graph did not change is the work of its override, and
    a docs change whose text an override field wrote (`summary:`) is that field's
    (`Change.by_override`): the annotation stands at the override's line (where the pull
    request changed something; for a line only a git revision has, such as a dropped
    `arg_order`, where the work tree's file deleted it), naming the op's declaration in its
    message; any other change stands at the source line.
    A location in a git revision (an attr removed since `--git REV`) names no file of the
    work tree, whose lines differ: the annotation attaches to the op's declaration there when
    the work tree has the op (`Change.work_tree_op`), else to the line of the work tree's
    version of the file where the revision's line is now or was deleted
    (`DiffResult.work_tree_lines`: a removed op at the line after its deleted registration),
    and is shown without a file only when the work tree lacks the file; either way it names
    the place in its message. Changes at one place are one annotation, listing them."""
    # One annotation per place: a change in a shared constant or macro stands at one line for
    # every op using it, and GitHub shows only the first few annotations of a step (trial32 #3:
    # 24 identical `::error` lines for one constant of 12 ops).
    places: dict[tuple[str, ...], list[tuple[Change, str]]] = {}
    for c in result.changes:
        at, other = c.location, c.override_location
        if other and c.by_override and (not other.revision or other in result.work_tree_lines):
            at, other = other, at
            also = f" (op declared at {other})" if other else ""
        else:
            also = f" (override: {other})" if other else ""
        props = []
        if at and at.revision:
            also = f" (at {at})" + also
            at = (c.work_tree_op if at == c.location else None) or result.work_tree_lines.get(at)
        if at:
            props.append(f"file={gh_property(at.path)}")
            if at.line:
                props.append(f"line={at.line}")
            if at.col:
                props.append(f"col={at.col}")
        note = _location_note(c)
        places.setdefault(tuple(props), []).append((c, c.message + also + (f" ({note})" if note else "")))
    lines = []
    for place, changes in places.items():
        level = "error" if any(c.breaking for c, _ in changes) else "notice"
        ops = list(dict.fromkeys(c.op for c, _ in changes))
        if len(ops) == 1:  # (an op removed: its graph and Python changes at its registration)
            title = f"opgen {', '.join(dict.fromkeys(f'{c.category} {c.rule}' for c, _ in changes))} ({ops[0]})"
            text = "\n".join(text for _, text in changes)
        else:
            breaking = sum(c.breaking for c, _ in changes)
            title = (f"opgen: {len(changes)} changes ({breaking} breaking) of {plural(len(ops), 'op')} "
                     f"({first_names(ops, 3)})")
            text = "\n".join(f"{'BREAKING ' if c.breaking else ''}{c.category} {c.rule} ({c.op}): {text}"
                              for c, text in changes)
        lines.append(f"::{level} {','.join([*place, f'title={gh_property(title)}'])}::{gh_data(text)}")
    return "\n".join(lines) + ("\n" if lines else "")


def format_github_errors(error: OpgenError,
                         placing: tuple[Callable[[Location], Location], dict[Location, Location]] | None) -> str:
    """`::error` workflow commands for the errors that stopped `opgen diff` (a bad override at a
    revision, a spec that does not build), each at its file and line as `format_github` places a
    change's (`placing`: `compare._annotation_place`); one in a revision's file whose lines the work
    tree holds changed stands at the file's mapped line, or at none (its message names the place)."""
    lines = []
    for e in error.errors if isinstance(error, OpgenErrors) else [error]:
        props = []
        at = e.location
        if at is not None and placing is not None:
            move, work_tree_lines = placing
            at = move(at)
            at = work_tree_lines.get(at, at)
        if at is not None and not at.revision:
            props.append(f"file={gh_property(at.path)}")
            if at.line:
                props.append(f"line={at.line}")
            if at.col:
                props.append(f"col={at.col}")
        props.append(f"title={gh_property('opgen diff: error')}")
        lines.append(f"::error {','.join(props)}::{gh_data(e.format())}")
    return "\n".join(lines) + "\n"


FORMATTERS = {"text": format_text, "md": format_markdown, "json": format_json, "github": format_github}
