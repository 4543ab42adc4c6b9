"""Snapshot files: JSON (lossless, diffable by `opgen diff`) and Markdown (for reviewers).

The Markdown snapshot is the human-readable part, every input string escaped
(`opgen.output_escape`), then exactly one machine-readable block at the end: the JSON
snapshot inside an HTML comment, written so that no input string can end or repeat the block
(`_comment_safe_json`). `from_markdown` reads only that block and accepts nothing else in
its place: what `opgen diff generated/API.md` compares is what `opgen build` wrote.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from google.protobuf import json_format, text_format

from opgen.apidiff.snapshot import Function, OpEntry, Param, Snapshot
from opgen.apidiff.snapshot_schema import FORMAT_TAG, snapshot_problem
from opgen.errors import Location, OpgenError, opgen_command, plain_proto_names
from opgen.json_input import JsonProblem, field_location, load_json
from opgen.output_escape import md_code, md_code_block, md_text
from opgen.python_api.function import signature_text
from opgen.python_api.literals import attr_value_for_review
from opgen.spec.kernel_summary import placement_text, runs_on
from opgen.spec.oplist_io import op_def_problem
from opgen_runtime.proto import attr_value_pb2, op_def_pb2
from opgen_runtime.proto.op_def_compat import FLAGS, describe_arg

__all__ = ["FORMAT_TAG", "describe_attr", "from_json", "from_markdown",
           "to_json", "to_markdown"]


# ---- JSON -------------------------------------------------------------------------------

# Typed locals: protobuf's text_format and json_format are Any to mypy (no stubs).
def _attr_value_text(value: attr_value_pb2.AttrValue) -> str:
    text: str = text_format.MessageToString(value, as_one_line=True)
    return text


def _arg_json(arg: op_def_pb2.OpDef.ArgDef) -> dict[str, Any]:
    data: dict[str, Any] = json_format.MessageToDict(arg, preserving_proto_field_name=True)
    return data


def _attr_json(attr: op_def_pb2.OpDef.AttrDef) -> dict[str, Any]:
    out: dict[str, Any] = {"name": attr.name, "type": attr.type}
    if attr.HasField("default_value"):
        out["default"] = _attr_value_text(attr.default_value)
    if attr.has_minimum:
        out["minimum"] = attr.minimum
    if attr.HasField("allowed_values"):
        out["allowed"] = _attr_value_text(attr.allowed_values)
    return out


def _graph_json(op: op_def_pb2.OpDef) -> dict[str, Any]:
    out: dict[str, Any] = {
        "inputs": [_arg_json(a) for a in op.input_arg],
        "outputs": [_arg_json(a) for a in op.output_arg],
        "attrs": [_attr_json(a) for a in op.attr],
        "flags": [f for f in FLAGS if getattr(op, f)],
    }
    if op.control_output:
        out["control_outputs"] = list(op.control_output)
    if op.HasField("deprecation"):
        out["deprecation"] = {"version": op.deprecation.version, "explanation": op.deprecation.explanation}
    return out


def _function_json(fn: Function) -> dict[str, Any]:
    return {
        "module": fn.module,
        "name": fn.name,
        "visible": fn.visible,
        "aliases": list(fn.aliases),
        # only when there are some: snapshots written before deprecated aliases were recorded read alike
        **({"deprecated_aliases": list(fn.deprecated_aliases)} if fn.deprecated_aliases else {}),
        "signature": fn.signature,
        "params": [{"name": p.name, "binds": p.binds, **({"default": p.default} if p.default is not None else {})}
                   for p in fn.params],
        "outputs": list(fn.outputs),
        "output_type": fn.output_type,
    }


def _snapshot_data(snapshot: Snapshot) -> dict[str, Any]:
    ops = []
    for entry in snapshot.sorted_ops():
        # no locations: a snapshot changes only when the API or the graph facts do (snapshot.py)
        item: dict[str, Any] = {"op": entry.name}
        item["function"] = _function_json(entry.function) if entry.function else None
        if entry.skip_reason:
            item["skip_reason"] = entry.skip_reason
        item["graph"] = _graph_json(entry.op_def)
        item["docs"] = dict(entry.docs)
        if entry.kernels is not None:
            item["kernels"] = {device: {attr: list(types) if types is not None else "any"
                                        for attr, types in per_attr.items()}
                               for device, per_attr in entry.kernels.items()}
        if entry.kernel_placement:
            item["kernel_placement"] = {device: {"host_memory": list(host), "priority": list(priorities)}
                                        for device, (host, priorities) in entry.kernel_placement.items()}
        ops.append(item)
    return {"format": FORMAT_TAG, "ops": ops}


def to_json(snapshot: Snapshot) -> str:
    return json.dumps(_snapshot_data(snapshot), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _comment_safe_json(snapshot: Snapshot) -> str:
    """The JSON snapshot as printable ASCII in which `<`, `>`, `&` never occur and `-` only as
    a number's sign (followed by a digit): every one inside a string is a `\\uXXXX` escape.
    So no input string can end the HTML comment (`-->`, `--!>`), open another (`<!--`), or
    spell the block's first or last line; JSON readers decode it unchanged.

    Compact, one op entry a line (the format first, `]}` last): a change to an op changes
    that op's line alone, next to its readable lines in a diff of API.md. The reader takes
    any JSON layout, so the pretty-printed blocks older opgen wrote still read."""
    data = _snapshot_data(snapshot)
    entries = [_compact_json(op) for op in data["ops"]]
    lines = ['{"format":' + _compact_json(data["format"]) + ',"ops":[',
             *[entry + "," for entry in entries[:-1]], *entries[-1:], "]}"]
    text = "\n".join(lines)
    text = _JSON_STRING.sub(lambda m: m.group().replace("-", "\\u002d"), text)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _text_value(text: str, message: attr_value_pb2.AttrValue, where: str) -> None:
    try:
        text_format.Parse(text, message)
    except text_format.ParseError as e:
        raise JsonProblem(where, f"not a text-format {message.DESCRIPTOR.name}: {plain_proto_names(str(e))}") from None


def _op_def_from_json(name: str, graph: dict[str, Any], where: str) -> op_def_pb2.OpDef:
    """The OpDef of `graph` (checked by the schema); JsonProblem when a value inside is not one."""
    op = op_def_pb2.OpDef(name=name)
    for key, args in (("inputs", op.input_arg), ("outputs", op.output_arg)):
        for i, arg in enumerate(graph[key]):
            try:
                json_format.ParseDict(arg, args.add())
            except json_format.ParseError as e:  # what the schema leaves: bad base64, ...
                raise JsonProblem(f"{where}.{key}[{i}]", str(e)) from None
    for i, item in enumerate(graph["attrs"]):
        attr = op.attr.add(name=item["name"], type=item["type"])
        if "default" in item:
            _text_value(item["default"], attr.default_value, f"{where}.attrs[{i}].default")
        if "minimum" in item:
            attr.has_minimum = True
            attr.minimum = item["minimum"]
        if "allowed" in item:
            _text_value(item["allowed"], attr.allowed_values, f"{where}.attrs[{i}].allowed")
    for flag in graph["flags"]:
        setattr(op, flag, True)
    op.control_output.extend(graph.get("control_outputs", []))
    if "deprecation" in graph:
        op.deprecation.version = graph["deprecation"]["version"]
        op.deprecation.explanation = graph["deprecation"].get("explanation", "")
    problem = op_def_problem(op)
    if problem:
        raise JsonProblem(where, f"not an OpDef TensorFlow accepts: {problem}")
    return op


def _function_from_json(item: dict[str, Any]) -> Function:
    return Function(
        module=item["module"],
        name=item["name"],
        visible=item["visible"],
        signature=item["signature"],
        aliases=tuple(item.get("aliases", ())),
        deprecated_aliases=tuple(item.get("deprecated_aliases", ())),
        params=tuple(Param(p["name"], p["binds"], p.get("default")) for p in item.get("params", ())),
        outputs=tuple(item.get("outputs", ())),
        output_type=item.get("output_type"),
    )


def _check_signature(fn: dict[str, Any], where: str) -> None:
    """A function's `signature` is what its name and params give (a hand edit of one alone
    would show one API and compare another)."""
    expected = signature_text(fn["name"], [(p["name"], p.get("default")) for p in fn.get("params", ())])
    if fn["signature"] != expected:
        raise JsonProblem(f"{where}.signature", f"{fn['signature']!r} is not the signature its name and params give, "
                                                f"{expected!r}")


def _kernels_from_json(data: dict[str, Any]) -> dict[str, dict[str, tuple[str, ...] | None]]:
    return {device: {attr: None if types == "any" else tuple(types) for attr, types in per_attr.items()}
            for device, per_attr in data.items()}


def from_json(text: str, path: str) -> Snapshot:
    """Parse a snapshot written by `to_json`, each op located at its entry in `path`;
    OpgenError naming the field when it is not one."""
    return _located_at_entries(_read_json(text, path, 1), path, _json_entry_lines(text))


def _read_json(text: str, path: str, first_line: int) -> Snapshot:
    """The snapshot in `text`, whose first line is line `first_line` of `path`; OpgenError
    (located there) naming the field when it is not one."""
    data = load_json(text, path, "API snapshot", first_line)
    where = Location(path, first_line)
    if not isinstance(data, dict) or data.get("format") != FORMAT_TAG:
        raise OpgenError(f"not an opgen API snapshot (expected \"format\": \"{FORMAT_TAG}\")", where,
                         hint=f"write one with `{opgen_command('api --format json -o FILE')}`")
    snapshot = Snapshot()
    try:
        problem = snapshot_problem(data)
        if problem is not None:
            raise problem
        for i, item in enumerate(data["ops"]):
            if item["op"] in snapshot.ops:
                raise JsonProblem(f"ops[{i}].op", f"op {item['op']!r} is listed twice")
            fn = item.get("function")
            if fn:
                _check_signature(fn, f"ops[{i}].function")
            entry = OpEntry(
                op_def=_op_def_from_json(item["op"], item["graph"], f"ops[{i}].graph"),
                function=_function_from_json(fn) if fn else None,
                docs=tuple(sorted(item.get("docs", {}).items())),
                skip_reason=item.get("skip_reason", ""),
                kernels=_kernels_from_json(item["kernels"]) if "kernels" in item else None,
                kernel_placement={device: (tuple(p["host_memory"]), tuple(p["priority"]))
                                  for device, p in item.get("kernel_placement", {}).items()},
            )
            snapshot.ops[entry.name] = entry
    except JsonProblem as e:
        raise OpgenError(f"malformed API snapshot: {e}", field_location(text, e.field, path, first_line),
                         hint=f"regenerate it with `{opgen_command('build')}` (or `{opgen_command('api')}`): opgen "
                              "never writes a snapshot like this") from None
    return snapshot


def _located_at_entries(snapshot: Snapshot, path: str, lines: dict[str, int]) -> Snapshot:
    """The snapshot read from `path`, each op located at its entry there (line 0 when not found):
    a file records no source lines, so this is where `opgen diff` points for its side."""
    snapshot.snapshot_file = path
    snapshot.ops = {name: replace(entry, location=Location(path, lines.get(name, 0), 1 if name in lines else 0))
                    for name, entry in snapshot.ops.items()}
    return snapshot


_JSON_OP_KEY = re.compile(r'^\s*"op": ("(?:[^"\\]|\\.)*"),?\s*$', re.MULTILINE)


def _json_entry_lines(text: str) -> dict[str, int]:
    """Op name -> line of its `"op": NAME` key, as `to_json` lays entries out (one key a line;
    only an entry's own key is "op")."""
    lines: dict[str, int] = {}
    for m in _JSON_OP_KEY.finditer(text):
        lines.setdefault(json.loads(m[1]), text.count("\n", 0, m.start()) + 1)
    return lines


# ---- Markdown -----------------------------------------------------------------------------

def describe_attr(attr: op_def_pb2.OpDef.AttrDef) -> str:
    """`T: type, allowed=[DT_HALF, DT_FLOAT]`, `N: int, min=2`, `scale: float, default=1.0`
    (values as `attr_value_for_review` spells them)."""
    text = f"{attr.name}: {attr.type}"
    if attr.HasField("default_value"):
        text += f", default={attr_value_for_review(attr.default_value)}"
    if attr.has_minimum:
        text += f", min={attr.minimum}"
    if attr.HasField("allowed_values"):
        text += f", allowed={attr_value_for_review(attr.allowed_values)}"
    return text


def _code_list(items: list[str]) -> str:
    return ", ".join(map(md_code, items)) if items else "none"


def _kernel_lines(entry: OpEntry) -> list[str]:
    """`- kernels: CPU (float32, int32), GPU (float32)` when the op has kernels, and
    `- kernel placement: GPU (host memory: shape; priority 1)` when some device's differ
    from the default."""
    lines = [f"- kernels: {md_text(runs_on(entry.kernels))}"] if entry.kernels else []
    if entry.kernel_placement:
        lines.append(f"- kernel placement: {md_text(placement_text(entry.kernel_placement))}")
    return lines


def _graph_lines(op: op_def_pb2.OpDef) -> list[str]:
    lines = [
        f"- inputs: {_code_list([describe_arg(a) for a in op.input_arg])}",
        f"- outputs: {_code_list([describe_arg(a) for a in op.output_arg])}",
    ]
    if op.attr:
        lines.append("- attrs:")
        lines.extend(f"  - {md_code(describe_attr(a))}" for a in op.attr)
    flags = [f for f in FLAGS if getattr(op, f)]
    if flags:
        lines.append(f"- flags: {_code_list(flags)}")
    if op.control_output:
        lines.append(f"- control outputs: {_code_list(list(op.control_output))}")
    if op.HasField("deprecation"):
        lines.append(f"- deprecated in GraphDef version {op.deprecation.version}: "
                     f"{md_text(op.deprecation.explanation)}")
    return lines


_MD_BLOCK_OPEN = f"<!-- {FORMAT_TAG} (read by `opgen diff`; do not edit)"
_MD_BLOCK_CLOSE = "-->"


def to_markdown(snapshot: Snapshot, title: str = "API snapshot") -> str:
    """Modules (sorted), their functions (sorted), then ops without a Python function; then
    the machine-readable block."""
    by_module: dict[str, list[OpEntry]] = {}
    without: list[OpEntry] = []
    for entry in snapshot.sorted_ops():
        if entry.function is None:
            without.append(entry)
        else:
            by_module.setdefault(entry.function.module, []).append(entry)
    out = [f"# {md_text(title)}", "",
           # one wording for both commands that write it
           ("Generated by opgen (`opgen build` writes it, `opgen api` prints it): the Python functions and "
            "graph-level op facts. Do not edit."), ""]
    for module in sorted(by_module):
        out += [f"## {md_text(module)}", ""]
        for entry in sorted(by_module[module], key=lambda e: (e.function.name, e.name)):  # type: ignore[union-attr]
            fn = entry.function
            assert fn is not None
            out += [f"### {md_text(fn.name)}", "", *md_code_block(f"{fn.signature} -> {fn.returns()}", "python"), ""]
            # (an internal op kept by include_internal is visible to TF's ApiDef but, named `_...`, not in `__all__`)
            shown = "hidden" if not fn.visible else "internal" if fn.name.startswith("_") else "visible"
            facts = [f"op {md_code(entry.name)}", shown]
            if fn.aliases:
                facts.append("aliases " + ", ".join(md_code(a) + (" (deprecated)" if a in fn.deprecated_aliases else "")
                                                    for a in fn.aliases))
            out.append("- " + "; ".join(facts))
            out += _graph_lines(entry.op_def) + _kernel_lines(entry) + [""]
    if without:
        out += [_WITHOUT_FUNCTION, ""]
        for entry in without:
            out += [f"### {md_text(entry.name)}", "", f"- {md_text(entry.skip_reason or 'skipped')}"]
            out += _graph_lines(entry.op_def) + _kernel_lines(entry) + [""]
    # The whole snapshot, machine-readable, so `opgen diff generated/API.md` reads the committed
    # file: one HTML comment (invisible when rendered) ending the file, its JSON escaped so that
    # nothing inside can end it; no line above can start one (every input string is escaped).
    out += ["", _MD_BLOCK_OPEN, _comment_safe_json(snapshot), _MD_BLOCK_CLOSE]
    return "\n".join(out) + "\n"


# What the block's JSON never has: anything but printable ASCII, `<`, `>`, `&`, and `-` other
# than a number's sign (`_comment_safe_json`).
_NOT_IN_BLOCK = re.compile(r"[^\x20-\x7e\n]|[<>&]|-(?!\d)")


_WITHOUT_FUNCTION = "## Ops without a Python function"


def from_markdown(text: str, path: str) -> Snapshot:
    """The snapshot in the one machine-readable block of a Markdown snapshot written by
    `to_markdown`: the file's only line starting with `<!--`, followed by the escaped JSON
    and the closing `-->` as the file's last line. Anything else is a located error."""
    lines = text.replace("\r\n", "\n").split("\n")  # a checkout may have CRLF line ends
    if lines[-1] == "":
        lines.pop()
    opens = [i for i, line in enumerate(lines) if line.startswith("<!--")]
    regenerate = f"regenerate it with `{opgen_command('build')}` (or `{opgen_command('api -o FILE.md')}`)"
    if not opens:
        raise OpgenError(f"not an opgen API snapshot: no `{_MD_BLOCK_OPEN}` block (the one `opgen build` and "
                         "`opgen api` write at the end)", Location(path), hint=regenerate)
    if len(opens) > 1:
        raise OpgenError("a second HTML comment: a Markdown API snapshot has exactly one, the machine-readable "
                         f"block at its end (line {opens[-1] + 1})", Location(path, opens[0] + 1, 1), hint=regenerate)
    first = opens[0]
    if lines[first] != _MD_BLOCK_OPEN:
        raise OpgenError(f"the machine-readable block must start with the line `{_MD_BLOCK_OPEN}`",
                         Location(path, first + 1, 1), hint=regenerate)
    if len(lines) < first + 3 or lines[-1] != _MD_BLOCK_CLOSE:
        raise OpgenError(f"the machine-readable block must end with a `{_MD_BLOCK_CLOSE}` line that ends the file",
                         Location(path, len(lines), 1), hint=regenerate)
    body = "\n".join(lines[first + 1:-1])
    bad = _NOT_IN_BLOCK.search(body)
    if bad is not None:
        line = first + 2 + body.count("\n", 0, bad.start())
        col = bad.start() - (body.rfind("\n", 0, bad.start()) + 1) + 1
        raise OpgenError(f"{bad.group()!r} in the machine-readable block, where opgen writes it escaped (every `-`, "
                         "`<`, `>`, `&` in a string as \\u002d, \\u003c, \\u003e, \\u0026; only ASCII)",
                         Location(path, line, col), hint=regenerate)
    snapshot = _read_json(body, path, first + 2)
    names = {md_text(name): name for name in snapshot.ops}
    entry_lines = {names.get(written, written): line for written, line in _markdown_entry_lines(lines[:first]).items()}
    return _located_at_entries(snapshot, path, entry_lines)


def _markdown_entry_lines(lines: list[str]) -> dict[str, int]:
    """Op name as written -> line of its `### ` heading in the readable part `to_markdown`
    writes: a function's heading is followed by its `- op `NAME`` line; under "Ops without a
    Python function" the heading is the op's name (Markdown-escaped)."""
    found: dict[str, int] = {}
    heading = 0
    without = False
    for number, line in enumerate(lines, start=1):
        if line.startswith("## "):
            without = line == _WITHOUT_FUNCTION
        elif line.startswith("### "):
            heading = number
            if without:
                found.setdefault(line[4:], number)
        elif line.startswith("- op `") and heading and not without:
            found.setdefault(line[6:].split("`", 1)[0], heading)
    return found
