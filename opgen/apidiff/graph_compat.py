"""TensorFlow's graph-compatibility rules for OpDef changes (`op_def_util.cc`
OpDefCompatible, OpDefAttrDefaultsUnchanged).

`graph_issues` lists every violation in the order TF's `OpDefCompatible` and
`OpDefAttrDefaultsUnchanged` check them, each with TF's own reason text, so the first
issue of each family is exactly what TF reports (`op_def_compatible`,
`attr_defaults_unchanged` give TF's full messages), and with opgen's message: TF's
wording, its attr values spelled as a Python signature spells them (`attr_value_for_review`).
The rules themselves are `opgen_runtime.proto.op_def_compat` (the runtime's stale-library
check applies them too); this module words them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from opgen.python_api.literals import attr_value_for_review
from opgen.tf_text.attr_text import summarize_attr_value, summarize_op_def
from opgen_runtime.proto import attr_value_pb2, op_def_pb2
from opgen_runtime.proto.op_def_compat import (
    COMPATIBLE_RULES,
    DEFAULTS_RULES,
    OpDefChange,
    allowed_text,
    arg_signature,
    attr_map,
    attr_values_equal,
    breaking_changes,
    default_text,
    minimum_text,
)

__all__ = ["COMPATIBLE_RULES", "DEFAULTS_RULES", "GraphIssue", "attr_defaults_unchanged", "attr_values_equal",
           "compatible_message", "graph_issues", "op_def_compatible"]


@dataclass(frozen=True)
class GraphIssue:
    rule: str  # one of COMPATIBLE_RULES or DEFAULTS_RULES
    reason: str  # TF's reason text
    message: str  # the reason as opgen reports it: its attr values spelled by `attr_value_for_review`
    subject: str = ""  # the attr name, or `input 2` / `output 0`, or "" for the whole signature


_Speller = Callable[[attr_value_pb2.AttrValue], str]


def _from_to(old: op_def_pb2.OpDef.AttrDef, new: op_def_pb2.OpDef.AttrDef,
             text: Callable[[op_def_pb2.OpDef.AttrDef, _Speller], str], spell: _Speller) -> str:
    """`from X to Y` of an attr's allowed values or default; when `spell` writes two different
    values alike (floats a signature rounds to 6 digits), TF's exact spelling, which tells them apart."""
    was, now = text(old, spell), text(new, spell)
    if was == now:
        was, now = text(old, summarize_attr_value), text(new, summarize_attr_value)
    return f"from {was} to {now}"


def _reason(change: OpDefChange, old: op_def_pb2.OpDef, new: op_def_pb2.OpDef, spell: _Speller) -> str:
    """TF's reason text for a breaking change (`op_def_util.cc` OpDefCompatible, ...DefaultsUnchanged),
    attr values as `spell` writes them (TF's `summarize_attr_value` for TF's text)."""
    rule, name = change
    old_attrs, new_attrs = attr_map(old), attr_map(new)
    if rule == "name_mismatch":
        return "Name mismatch"
    if rule == "attr_removed":
        return f"Attr '{name}' removed"
    if rule == "attr_type_changed":
        return f"Attr '{name}' changed type '{old_attrs[name].type}' -> '{new_attrs[name].type}'"
    if rule == "allowed_values_narrowed":
        return (f"Attr '{name}' has a stricter set of allowed values; "
                f"{_from_to(old_attrs[name], new_attrs[name], allowed_text, spell)}")
    if rule == "minimum_raised":
        return (f"Attr '{name}' has a higher minimum; "
                f"from {minimum_text(old_attrs[name])} to {minimum_text(new_attrs[name])}")
    if rule == "attr_added_without_default":
        return f"Attr '{name}' added without default"
    if rule in ("input_signature_changed", "output_signature_changed"):
        direction, old_args, new_args = (("Input", old.input_arg, new.input_arg) if rule.startswith("input")
                                         else ("Output", old.output_arg, new.output_arg))
        old_sig = arg_signature(old_args, old_attrs, new_attrs, direction == "Output")[0]
        new_sig = arg_signature(new_args, old_attrs, new_attrs, direction == "Output")[0]
        return f"{direction} signature mismatch '{old_sig}' vs. '{new_sig}'"
    if rule == "input_ref_list_changed":
        return "Unexpected change in input ref lists."  # TF's two texts differ by the period
    if rule == "output_ref_list_changed":
        return "Unexpected change in output ref lists"
    if rule == "input_became_ref":
        return f"Input {name.split()[1]} changed from non-ref to ref"
    if rule == "output_lost_ref":
        return f"Output {name.split()[1]} changed from ref to non-ref"
    if rule == "default_removed":
        return (f"Attr '{name}' has removed it's default; "
                f"{_from_to(old_attrs[name], new_attrs[name], default_text, spell)}")
    assert rule == "default_changed", rule
    return (f"Attr '{name}' has changed it's default value; "
            f"{_from_to(old_attrs[name], new_attrs[name], default_text, spell)}")


def graph_issues(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> list[GraphIssue]:
    """Every graph-incompatible difference of `new` against `old`, in TF's check order."""
    return [GraphIssue(change.rule, _reason(change, old, new, summarize_attr_value),
                       _reason(change, old, new, attr_value_for_review), change.subject)
            for change in breaking_changes(old, new)]


def compatible_message(issue: GraphIssue, old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> str:
    """The text TF reports for `issue` (OpDefCompatible's carries both op summaries)."""
    if issue.rule in DEFAULTS_RULES:
        return issue.reason
    return f"Incompatible Op change: {issue.reason}; old: {summarize_op_def(old)}; new: {summarize_op_def(new)}"


def op_def_compatible(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> str | None:
    """TF's `OpDefCompatible(old, new)`: None when compatible, else its error message."""
    issues = [issue for issue in graph_issues(old, new) if issue.rule not in DEFAULTS_RULES]
    return compatible_message(issues[0], old, new) if issues else None


def attr_defaults_unchanged(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> str | None:
    """TF's `OpDefAttrDefaultsUnchanged(old, new)`: None when fine, else its error message."""
    issues = [issue for issue in graph_issues(old, new) if issue.rule in DEFAULTS_RULES]
    return issues[0].reason if issues else None
