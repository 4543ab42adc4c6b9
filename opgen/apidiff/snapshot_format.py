"""Snapshot files: JSON (lossless, diffable by `opgen diff`) and Markdown (for reviewers)."""

from __future__ import annotations

import json
import re

from google.protobuf import json_format, text_format

from opgen.apidiff.snapshot import Function, OpEntry, Param, Snapshot
from opgen.attr_text import summarize_attr_value
from opgen.errors import Location, OpgenError
from opgen.proto import attr_value_pb2, op_def_pb2
from opgen.proto.op_def_compat import FLAGS, describe_arg
from opgen.spec.kernel_summary import placement_text, runs_on

FORMAT_TAG = "opgen-api-snapshot/1"


# ---- JSON -------------------------------------------------------------------------------

def _attr_value_text(value: attr_value_pb2.AttrValue) -> str:
    return text_format.MessageToString(value, as_one_line=True)


def _arg_json(arg: op_def_pb2.OpDef.ArgDef) -> dict:
    return json_format.MessageToDict(arg, preserving_proto_field_name=True)


def _attr_json(attr: op_def_pb2.OpDef.AttrDef) -> dict:
    out: dict = {"name": attr.name, "type": attr.type}
    if attr.HasField("default_value"):
        out["default"] = _attr_value_text(attr.default_value)
    if attr.has_minimum:
        out["minimum"] = attr.minimum
    if attr.HasField("allowed_values"):
        out["allowed"] = _attr_value_text(attr.allowed_values)
    return out


def _graph_json(op: op_def_pb2.OpDef) -> dict:
    out: dict = {
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


def _function_json(fn: Function) -> dict:
    return {
        "module": fn.module,
        "name": fn.name,
        "visible": fn.visible,
        "aliases": list(fn.aliases),
        "signature": fn.signature,
        "params": [{"name": p.name, "binds": p.binds, **({"default": p.default} if p.default is not None else {})}
                   for p in fn.params],
        "outputs": list(fn.outputs),
        "output_type": fn.output_type,
    }


def to_json(snapshot: Snapshot) -> str:
    ops = []
    for entry in snapshot.sorted_ops():
        item: dict = {"op": entry.name}
        if entry.location:
            item["location"] = str(entry.location)
        if entry.api_locations:
            item["api_locations"] = [str(loc) for loc in entry.api_locations]
        if entry.parts:
            item["parts"] = {key: str(loc) for key, loc in entry.parts}
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
        if entry.kernel_locations:
            item["kernel_locations"] = {device: str(loc) for device, loc in entry.kernel_locations}
        ops.append(item)
    return json.dumps({"format": FORMAT_TAG, "ops": ops}, indent=1, ensure_ascii=False) + "\n"


_LOCATION = re.compile(r"^(?P<path>.*?)(?::(?P<line>\d+))?(?::(?P<col>\d+))?$")


def parse_location(text: str) -> Location:
    m = _LOCATION.match(text)
    assert m is not None  # the pattern matches every string
    return Location(m["path"], int(m["line"] or 0), int(m["col"] or 0))


def _op_def_from_json(name: str, graph: dict) -> op_def_pb2.OpDef:
    op = op_def_pb2.OpDef(name=name)
    for arg in graph.get("inputs", []):
        json_format.ParseDict(arg, op.input_arg.add())
    for arg in graph.get("outputs", []):
        json_format.ParseDict(arg, op.output_arg.add())
    for item in graph.get("attrs", []):
        attr = op.attr.add(name=item["name"], type=item["type"])
        if "default" in item:
            text_format.Parse(item["default"], attr.default_value)
        if "minimum" in item:
            attr.has_minimum = True
            attr.minimum = int(item["minimum"])
        if "allowed" in item:
            text_format.Parse(item["allowed"], attr.allowed_values)
    for flag in graph.get("flags", []):
        if flag not in FLAGS:
            raise ValueError(f"unknown flag {flag!r}")
        setattr(op, flag, True)
    op.control_output.extend(graph.get("control_outputs", []))
    if "deprecation" in graph:
        op.deprecation.version = int(graph["deprecation"]["version"])
        op.deprecation.explanation = graph["deprecation"].get("explanation", "")
    return op


def _function_from_json(item: dict) -> Function:
    return Function(
        module=item["module"],
        name=item["name"],
        visible=bool(item["visible"]),
        signature=item["signature"],
        aliases=tuple(item.get("aliases", ())),
        params=tuple(Param(p["name"], p["binds"], p.get("default")) for p in item.get("params", ())),
        outputs=tuple(item.get("outputs", ())),
        output_type=item.get("output_type"),
    )


def _kernels_from_json(data: dict) -> dict[str, dict[str, tuple[str, ...] | None]]:
    return {device: {attr: None if types == "any" else tuple(types) for attr, types in per_attr.items()}
            for device, per_attr in data.items()}


def from_json(text: str, path: str) -> Snapshot:
    """Parse a snapshot written by `to_json`; OpgenError (located at `path`) when it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise OpgenError(f"not valid JSON: {e.msg}", Location(path, e.lineno, e.colno)) from None
    except RecursionError:
        raise OpgenError("JSON nested too deeply to be an API snapshot", Location(path)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT_TAG:
        raise OpgenError(f"not an opgen API snapshot (expected \"format\": \"{FORMAT_TAG}\")", Location(path),
                         hint="write one with `opgen api --format json -o FILE`")
    snapshot = Snapshot()
    try:
        for item in data["ops"]:
            fn = item.get("function")
            entry = OpEntry(
                op_def=_op_def_from_json(item["op"], item.get("graph", {})),
                function=_function_from_json(fn) if fn else None,
                docs=tuple(sorted(item.get("docs", {}).items())),
                location=parse_location(item["location"]) if item.get("location") else None,
                api_locations=tuple(parse_location(t) for t in item.get("api_locations", ())),
                skip_reason=item.get("skip_reason", ""),
                kernels=_kernels_from_json(item["kernels"]) if "kernels" in item else None,
                kernel_locations=tuple((d, parse_location(t)) for d, t in item.get("kernel_locations", {}).items()),
                kernel_placement={device: (tuple(p["host_memory"]), tuple(int(v) for v in p["priority"]))
                                  for device, p in item.get("kernel_placement", {}).items()},
                parts=tuple((key, parse_location(text)) for key, text in item.get("parts", {}).items()),
            )
            snapshot.ops[entry.name] = entry
    except (KeyError, TypeError, ValueError, json_format.ParseError, text_format.ParseError) as e:
        raise OpgenError(f"malformed API snapshot: {type(e).__name__}: {e}", Location(path)) from None
    return snapshot


# ---- Markdown -----------------------------------------------------------------------------

def describe_attr(attr: op_def_pb2.OpDef.AttrDef) -> str:
    """`T: type, allowed=[DT_HALF, DT_FLOAT]`, `N: int, min=2`, `padding: string, default="SAME"`."""
    text = f"{attr.name}: {attr.type}"
    if attr.HasField("default_value"):
        text += f", default={summarize_attr_value(attr.default_value)}"
    if attr.has_minimum:
        text += f", min={attr.minimum}"
    if attr.HasField("allowed_values"):
        text += f", allowed={summarize_attr_value(attr.allowed_values)}"
    return text


def _code_list(items: list[str]) -> str:
    return ", ".join(f"`{i}`" for i in items) if items else "none"


def _kernel_lines(entry: OpEntry) -> list[str]:
    """`- kernels: CPU (float32, int32), GPU (float32)` when the op has kernels, and
    `- kernel placement: GPU (host memory: shape; priority 1)` when some device's differ
    from the default."""
    lines = [f"- kernels: {runs_on(entry.kernels)}"] if entry.kernels else []
    if entry.kernel_placement:
        lines.append(f"- kernel placement: {placement_text(entry.kernel_placement)}")
    return lines


def _graph_lines(op: op_def_pb2.OpDef) -> list[str]:
    lines = [
        f"- inputs: {_code_list([describe_arg(a) for a in op.input_arg])}",
        f"- outputs: {_code_list([describe_arg(a) for a in op.output_arg])}",
    ]
    if op.attr:
        lines.append("- attrs:")
        lines.extend(f"  - `{describe_attr(a)}`" for a in op.attr)
    flags = [f for f in FLAGS if getattr(op, f)]
    if flags:
        lines.append(f"- flags: {_code_list(flags)}")
    if op.control_output:
        lines.append(f"- control outputs: {_code_list(list(op.control_output))}")
    if op.HasField("deprecation"):
        lines.append(f"- deprecated in GraphDef version {op.deprecation.version}: {op.deprecation.explanation}")
    return lines


def to_markdown(snapshot: Snapshot, title: str = "API snapshot") -> str:
    """Modules (sorted), their functions (sorted), then ops without a Python function."""
    by_module: dict[str, list[OpEntry]] = {}
    without: list[OpEntry] = []
    for entry in snapshot.sorted_ops():
        if entry.function is None:
            without.append(entry)
        else:
            by_module.setdefault(entry.function.module, []).append(entry)
    out = [f"# {title}", "",
           "Generated by `opgen api`: the Python functions and graph-level op facts. Do not edit.", ""]
    for module in sorted(by_module):
        out += [f"## {module}", ""]
        for entry in sorted(by_module[module], key=lambda e: (e.function.name, e.name)):  # type: ignore[union-attr]
            fn = entry.function
            assert fn is not None
            out += [f"### {fn.name}", "", "```python", f"{fn.signature} -> {fn.returns()}", "```", ""]
            facts = [f"op `{entry.name}`", "visible" if fn.visible else "hidden"]
            if fn.aliases:
                facts.append("aliases " + _code_list(list(fn.aliases)))
            out.append("- " + "; ".join(facts))
            out += _graph_lines(entry.op_def) + _kernel_lines(entry) + [""]
    if without:
        out += ["## Ops without a Python function", ""]
        for entry in without:
            out += [f"### {entry.name}", "", f"- {entry.skip_reason or 'skipped'}"]
            out += _graph_lines(entry.op_def) + _kernel_lines(entry) + [""]
    # The whole snapshot, machine-readable, so `opgen diff generated/API.md` reads the committed
    # file; in an HTML comment (invisible when rendered) with every `>` escaped, so no text
    # inside can end the comment.
    out += ["", f"{_MD_BLOCK_START} (read by `opgen diff`; do not edit)", to_json(snapshot).replace(">", "\\u003e")
            .rstrip("\n"), "-->"]
    return "\n".join(out).rstrip("\n") + "\n"


_MD_BLOCK_START = f"<!-- {FORMAT_TAG}"


def from_markdown(text: str, path: str) -> Snapshot:
    """The snapshot embedded in a Markdown snapshot written by `to_markdown`."""
    start = text.find("\n" + _MD_BLOCK_START)
    body_start = text.find("\n", start + 1) + 1 if start >= 0 else -1
    end = text.find("\n-->", body_start) if body_start > 0 else -1
    if end < 0:
        raise OpgenError(f"not an opgen API snapshot: no `{_MD_BLOCK_START}` block (the one `opgen build` and "
                         "`opgen api` embed at the end)", Location(path),
                         hint="regenerate it with `opgen build` (or `opgen api -o FILE.md`)")
    line = text.count("\n", 0, body_start)
    try:
        return from_json(text[body_start:end], path)
    except OpgenError as e:
        if e.location is not None and e.location.line > 0:
            e.location = Location(path, e.location.line + line, e.location.col)
        raise
