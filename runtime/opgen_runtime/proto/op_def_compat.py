"""How a new OpDef differs from an old one, by TensorFlow's graph-compatibility rules.

`breaking_changes` lists what TF's `OpDefCompatible` and `OpDefAttrDefaultsUnchanged`
(`tensorflow/core/framework/op_def_util.cc`) reject, in the order TF checks them;
`accepted_changes` lists the differences TF accepts. Both name each change by a rule id
and its subject only: `opgen diff` (`opgen.apidiff`) words them for reviews, with TF's own
reason texts, and the runtime (`opgen_runtime.tf.op_libraries`) for the stale-library check. Pure
Python over the runtime's protos, beside them: it imports nothing but them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Protocol, TypeVar

from opgen_runtime.proto import attr_value_pb2, op_def_pb2
from opgen_runtime.proto.datatypes import cpp_name

AttrMap = dict[str, op_def_pb2.OpDef.AttrDef]

# Rule ids of `breaking_changes`, in TF's check order: OpDefCompatible's, then
# OpDefAttrDefaultsUnchanged's.
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

# Rule ids of `accepted_changes`.
ACCEPTED_RULES = (
    "attr_added",
    "allowed_values_unrestricted",
    "allowed_values_widened",
    "minimum_lowered",
    "default_added",
    "inputs_renamed",
    "inputs_changed_compatibly",
    "outputs_changed_compatibly",
    "flag_changed",
    "control_outputs_changed",
    "op_deprecated",
    "op_undeprecated",
    "attrs_reordered",
)

# The OpDef's boolean flags.
FLAGS = ("is_commutative", "is_aggregate", "is_stateful", "allows_uninitialized_input",
         "is_distributed_communication")


class OpDefChange(NamedTuple):
    rule: str  # one of COMPATIBLE_RULES, DEFAULTS_RULES or ACCEPTED_RULES
    # The attr name (attr rules), `input 2` / `output 0` (ref rules), the flag (flag_changed),
    # or "" for the whole op or signature.
    subject: str = ""


def attr_map(op: op_def_pb2.OpDef) -> AttrMap:
    return {attr.name: attr for attr in op.attr}  # later duplicates win, like FillAttrMap


def attr_values_equal(a: attr_value_pb2.AttrValue, b: attr_value_pb2.AttrValue) -> bool:
    """TF's AreAttrValuesEqual for defaults: equal serialized protos (deterministic)."""
    # Typed locals: SerializeToString is Any to mypy (protobuf's Message has no stubs here).
    serialized_a: bytes = a.SerializeToString(deterministic=True)
    serialized_b: bytes = b.SerializeToString(deterministic=True)
    return serialized_a == serialized_b


def describe_arg(arg: op_def_pb2.OpDef.ArgDef) -> str:
    """`x: T`, `values: N * T`, `ref: Ref(float)`, `args: list(Tin)`."""
    if arg.type_list_attr:
        kind = f"list({arg.type_list_attr})"
    else:
        kind = cpp_name(arg.type) if arg.type else arg.type_attr
        if arg.number_attr:
            kind = f"{arg.number_attr} * {kind}"
    if arg.is_ref:
        kind = f"Ref({kind})"
    return f"{arg.name}: {kind}"


def allowed_text(attr: op_def_pb2.OpDef.AttrDef, summarize: Callable[[Any], str]) -> str:
    """The attr's allowed values as `summarize` writes an AttrValue, as TF's messages word them."""
    return summarize(attr.allowed_values) if attr.HasField("allowed_values") else "no restriction"


def minimum_text(attr: op_def_pb2.OpDef.AttrDef) -> str:
    return str(attr.minimum) if attr.has_minimum else "no minimum"


def default_text(attr: op_def_pb2.OpDef.AttrDef, summarize: Callable[[Any], str]) -> str:
    return summarize(attr.default_value) if attr.HasField("default_value") else "no default"


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


def arg_signature(
    args: Iterable[op_def_pb2.OpDef.ArgDef], old_attrs: AttrMap, new_attrs: AttrMap, names: bool
) -> tuple[str, list[bool]]:
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


def _compatible_changes(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> list[OpDefChange]:
    """What TF's OpDefCompatible rejects."""
    changes: list[OpDefChange] = []
    if old.name != new.name:
        changes.append(OpDefChange("name_mismatch"))
    old_attrs, new_attrs = attr_map(old), attr_map(new)
    for old_attr in old.attr:
        name = old_attr.name
        new_attr = new_attrs.get(name)
        if new_attr is None:
            changes.append(OpDefChange("attr_removed", name))
            continue
        if old_attr.type != new_attr.type:
            changes.append(OpDefChange("attr_type_changed", name))
            continue
        if _more_restrictive(old_attr, new_attr):
            changes.append(OpDefChange("allowed_values_narrowed", name))
        if _higher_minimum(old_attr, new_attr):
            changes.append(OpDefChange("minimum_raised", name))
    for new_attr in new.attr:
        if new_attr.name not in old_attrs and not new_attr.HasField("default_value"):
            changes.append(OpDefChange("attr_added_without_default", new_attr.name))
    for kind, old_args, new_args in (("input", old.input_arg, new.input_arg),
                                     ("output", old.output_arg, new.output_arg)):
        names = kind == "output"
        old_sig, old_refs = arg_signature(old_args, old_attrs, new_attrs, names)
        new_sig, new_refs = arg_signature(new_args, old_attrs, new_attrs, names)
        if old_sig != new_sig:
            changes.append(OpDefChange(f"{kind}_signature_changed"))
            continue
        if len(old_refs) != len(new_refs):
            changes.append(OpDefChange(f"{kind}_ref_list_changed"))
            continue
        for i, (was_ref, is_ref) in enumerate(zip(old_refs, new_refs)):
            if kind == "input" and is_ref and not was_ref:
                changes.append(OpDefChange("input_became_ref", f"input {i}"))
            if kind == "output" and was_ref and not is_ref:
                changes.append(OpDefChange("output_lost_ref", f"output {i}"))
    return changes


def _defaults_changes(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> list[OpDefChange]:
    """What TF's OpDefAttrDefaultsUnchanged rejects."""
    changes: list[OpDefChange] = []
    new_attrs = attr_map(new)
    for old_attr in old.attr:
        new_attr = new_attrs.get(old_attr.name)
        if new_attr is None or not old_attr.HasField("default_value"):
            continue  # removal is reported by OpDefCompatible; adding a default is safe
        if not new_attr.HasField("default_value"):
            changes.append(OpDefChange("default_removed", old_attr.name))
        elif not attr_values_equal(old_attr.default_value, new_attr.default_value):
            changes.append(OpDefChange("default_changed", old_attr.name))
    return changes


def breaking_changes(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> list[OpDefChange]:
    """Every graph-incompatible difference of `new` against `old`, in TF's check order."""
    return _compatible_changes(old, new) + _defaults_changes(old, new)


class _Change(Protocol):
    @property
    def rule(self) -> str: ...
    @property
    def subject(self) -> str: ...


C = TypeVar("C", bound=_Change)


def without_restatements(changes: list[C]) -> list[C]:
    """`changes` less the default "changes" of attrs that were retyped or removed: those
    only restate that (TF reports both; people need one)."""
    restated = {c.subject for c in changes if c.rule in ("attr_type_changed", "attr_removed")}
    return [c for c in changes if c.rule not in DEFAULTS_RULES or c.subject not in restated]


def accepted_changes(old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> list[OpDefChange]:
    """The differences TF's rules accept (an arg list's change restates a breaking signature change of it)."""
    changes: list[OpDefChange] = []
    old_attrs = attr_map(old)
    for attr in new.attr:
        before = old_attrs.get(attr.name)
        if before is None:
            if attr.HasField("default_value"):  # without one it is breaking: attr_added_without_default
                changes.append(OpDefChange("attr_added", attr.name))
            continue
        if before.type != attr.type:
            continue
        was, now = before.allowed_values, attr.allowed_values
        if before.HasField("allowed_values") and not attr.HasField("allowed_values"):
            changes.append(OpDefChange("allowed_values_unrestricted", attr.name))
        elif (before.HasField("allowed_values") and attr.HasField("allowed_values") and not attr_values_equal(was, now)
              and set(was.list.type) <= set(now.list.type) and set(was.list.s) <= set(now.list.s)):
            changes.append(OpDefChange("allowed_values_widened", attr.name))
        if before.has_minimum and (not attr.has_minimum or attr.minimum < before.minimum):
            changes.append(OpDefChange("minimum_lowered", attr.name))
        if not before.HasField("default_value") and attr.HasField("default_value"):
            changes.append(OpDefChange("default_added", attr.name))
    old_in = [describe_arg(a) for a in old.input_arg]
    new_in = [describe_arg(a) for a in new.input_arg]
    if old_in != new_in:
        only_names = [a.split(": ", 1)[1] for a in old_in] == [a.split(": ", 1)[1] for a in new_in]
        changes.append(OpDefChange("inputs_renamed" if only_names else "inputs_changed_compatibly"))
    if [describe_arg(a) for a in old.output_arg] != [describe_arg(a) for a in new.output_arg]:
        changes.append(OpDefChange("outputs_changed_compatibly"))
    for flag in FLAGS:
        if getattr(old, flag) != getattr(new, flag):
            changes.append(OpDefChange("flag_changed", flag))
    if sorted(old.control_output) != sorted(new.control_output):
        changes.append(OpDefChange("control_outputs_changed"))
    if old.deprecation != new.deprecation:
        changes.append(OpDefChange("op_deprecated" if new.HasField("deprecation") else "op_undeprecated"))
    kept_order = [a.name for a in new.attr if a.name in old_attrs]
    if set(old_attrs) <= set(kept_order) and kept_order != [a.name for a in old.attr]:
        changes.append(OpDefChange("attrs_reordered"))
    return changes
