"""TensorFlow's graph-compatibility rules for OpDef changes (`op_def_util.cc`
OpDefCompatible, OpDefAttrDefaultsUnchanged).

`graph_issues` lists every violation in the order TF's `OpDefCompatible` and
`OpDefAttrDefaultsUnchanged` check them, each with TF's own reason text, so the first
issue of each family is exactly what TF reports (`op_def_compatible`,
`attr_defaults_unchanged` give TF's full messages).
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.attr_text import summarize_attr_value, summarize_op_def
from opgen.proto import op_def_pb2
from opgen.proto.datatypes import cpp_name

AttrMap = dict[str, op_def_pb2.OpDef.AttrDef]

# Rule ids, in TF's check order. "compatible" rules come from OpDefCompatible (message
# prefixed by "Incompatible Op change: " and followed by both op summaries); "defaults"
# rules from OpDefAttrDefaultsUnchanged (bare reason).
COMPATIBLE_RULES = (
    "name_mismatch",
    "attr_removed",
    "attr_type_changed",
    "allowed_values_narrowed",
    "minimum_raised",
    "attr_added_without_default",
    "input_signature_changed",
    "input_ref_list_changed",
    "input_became_ref",
    "output_signature_changed",
    "output_ref_list_changed",
    "output_lost_ref",
)
DEFAULTS_RULES = ("default_removed", "default_changed")


@dataclass(frozen=True)
class GraphIssue:
    rule: str  # one of COMPATIBLE_RULES or DEFAULTS_RULES
    reason: str  # TF's reason text
    subject: str = ""  # the attr name, or `input 2` / `output 0`, or "" for the whole signature


def _attr_map(op: op_def_pb2.OpDef) -> AttrMap:
    return {attr.name: attr for attr in op.attr}  # later duplicates win, like FillAttrMap


def _allowed_str(attr: op_def_pb2.OpDef.AttrDef) -> str:
    return summarize_attr_value(attr.allowed_values) if attr.HasField("allowed_values") else "no restriction"


def _min_str(attr: op_def_pb2.OpDef.AttrDef) -> str:
    return str(attr.minimum) if attr.has_minimum else "no minimum"


def _default_str(attr: op_def_pb2.OpDef.AttrDef) -> str:
    return summarize_attr_value(attr.default_value) if attr.HasField("default_value") else "no default"


def _more_restrictive(old: op_def_pb2.OpDef.AttrDef, new: op_def_pb2.OpDef.AttrDef) -> bool:
    if not new.HasField("allowed_values"):
        return False
    if not old.HasField("allowed_values"):
        return True
    old_list, new_list = old.allowed_values.list, new.allowed_values.list
    return not set(old_list.type) <= set(new_list.type) or not set(old_list.s) <= set(new_list.s)


def _higher_minimum(old: op_def_pb2.OpDef.AttrDef, new: op_def_pb2.OpDef.AttrDef) -> bool:
    if not new.has_minimum:
        return False
    return not old.has_minimum or new.minimum > old.minimum


def attr_values_equal(a, b) -> bool:
    """TF's AreAttrValuesEqual for defaults: equal serialized protos (deterministic)."""
    return a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)


def arg_signature(args, old_attrs: AttrMap, new_attrs: AttrMap, names: bool) -> tuple[str, list[bool]]:
    """TF's ComputeArgSignature: args flattened, attrs new since `old` replaced by their defaults."""
    items: list[str] = []
    refs: list[bool] = []
    for arg in args:
        prefix = f"{arg.name}:" if names else ""
        if arg.type_list_attr:
            if arg.type_list_attr in old_attrs:
                items.append(prefix + arg.type_list_attr)
                refs.append(arg.is_ref)
            else:
                new_attr = new_attrs.get(arg.type_list_attr)
                for dtype in new_attr.default_value.list.type if new_attr else ():
                    items.append(prefix + cpp_name(dtype))
                    refs.append(arg.is_ref)
            continue
        count = 1
        text = prefix
        if arg.number_attr:
            if arg.number_attr in old_attrs:
                text += f"{arg.number_attr} * "
            else:
                new_attr = new_attrs.get(arg.number_attr)
                count = new_attr.default_value.i if new_attr else 0
        if arg.type:
            text += cpp_name(arg.type)
        elif arg.type_attr in old_attrs:
            text += arg.type_attr
        else:
            new_attr = new_attrs.get(arg.type_attr)
            text += cpp_name(new_attr.default_value.type if new_attr else 0)
        for _ in range(count):
            items.append(text)
            refs.append(arg.is_ref)
    return ", ".join(items), refs


def _compatible_issues(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> list[GraphIssue]:
    issues: list[GraphIssue] = []
    if old.name != new.name:
        issues.append(GraphIssue("name_mismatch", "Name mismatch"))
    old_attrs, new_attrs = _attr_map(old), _attr_map(new)
    for old_attr in old.attr:
        name = old_attr.name
        new_attr = new_attrs.get(name)
        if new_attr is None:
            issues.append(GraphIssue("attr_removed", f"Attr '{name}' removed", name))
            continue
        if old_attr.type != new_attr.type:
            issues.append(GraphIssue(
                "attr_type_changed", f"Attr '{name}' changed type '{old_attr.type}' -> '{new_attr.type}'", name))
            continue
        if _more_restrictive(old_attr, new_attr):
            issues.append(GraphIssue(
                "allowed_values_narrowed",
                f"Attr '{name}' has a stricter set of allowed values; from {_allowed_str(old_attr)} "
                f"to {_allowed_str(new_attr)}",
                name,
            ))
        if _higher_minimum(old_attr, new_attr):
            issues.append(GraphIssue(
                "minimum_raised",
                f"Attr '{name}' has a higher minimum; from {_min_str(old_attr)} to {_min_str(new_attr)}",
                name,
            ))
    for new_attr in new.attr:
        if new_attr.name not in old_attrs and not new_attr.HasField("default_value"):
            issues.append(GraphIssue(
                "attr_added_without_default", f"Attr '{new_attr.name}' added without default", new_attr.name))
    for direction, old_args, new_args in (("Input", old.input_arg, new.input_arg),
                                          ("Output", old.output_arg, new.output_arg)):
        names = direction == "Output"
        old_sig, old_refs = arg_signature(old_args, old_attrs, new_attrs, names)
        new_sig, new_refs = arg_signature(new_args, old_attrs, new_attrs, names)
        kind = direction.lower()
        if old_sig != new_sig:
            issues.append(GraphIssue(
                f"{kind}_signature_changed", f"{direction} signature mismatch '{old_sig}' vs. '{new_sig}'"))
            continue
        if len(old_refs) != len(new_refs):
            period = "." if direction == "Input" else ""  # TF's two texts differ by the period
            issues.append(GraphIssue(f"{kind}_ref_list_changed", f"Unexpected change in {kind} ref lists{period}"))
            continue
        for i, (was_ref, is_ref) in enumerate(zip(old_refs, new_refs)):
            if direction == "Input" and is_ref and not was_ref:
                issues.append(GraphIssue("input_became_ref", f"Input {i} changed from non-ref to ref", f"input {i}"))
            if direction == "Output" and was_ref and not is_ref:
                issues.append(GraphIssue("output_lost_ref", f"Output {i} changed from ref to non-ref", f"output {i}"))
    return issues


def _defaults_issues(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> list[GraphIssue]:
    issues: list[GraphIssue] = []
    new_attrs = _attr_map(new)
    for old_attr in old.attr:
        new_attr = new_attrs.get(old_attr.name)
        if new_attr is None or not old_attr.HasField("default_value"):
            continue  # removal is reported by OpDefCompatible; adding a default is safe
        name = old_attr.name
        if not new_attr.HasField("default_value"):
            issues.append(GraphIssue(
                "default_removed",
                f"Attr '{name}' has removed it's default; from {_default_str(old_attr)} to {_default_str(new_attr)}",
                name,
            ))
        elif not attr_values_equal(old_attr.default_value, new_attr.default_value):
            issues.append(GraphIssue(
                "default_changed",
                f"Attr '{name}' has changed it's default value; from {_default_str(old_attr)} "
                f"to {_default_str(new_attr)}",
                name,
            ))
    return issues


def graph_issues(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> list[GraphIssue]:
    """Every graph-incompatible difference of `new` against `old`, in TF's check order."""
    return _compatible_issues(old, new) + _defaults_issues(old, new)


def compatible_message(issue: GraphIssue, old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> str:
    """The text TF reports for `issue` (OpDefCompatible's carries both op summaries)."""
    if issue.rule in DEFAULTS_RULES:
        return issue.reason
    return f"Incompatible Op change: {issue.reason}; old: {summarize_op_def(old)}; new: {summarize_op_def(new)}"


def op_def_compatible(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> str | None:
    """TF's `OpDefCompatible(old, new)`: None when compatible, else its error message."""
    issues = _compatible_issues(old, new)
    return compatible_message(issues[0], old, new) if issues else None


def attr_defaults_unchanged(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> str | None:
    """TF's `OpDefAttrDefaultsUnchanged(old, new)`: None when fine, else its error message."""
    issues = _defaults_issues(old, new)
    return issues[0].reason if issues else None
