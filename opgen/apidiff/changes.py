"""Compare two snapshots: every added, removed or changed op and function, classified.

Each `Change` has a category (graph, python, docs), a stable rule id, whether it breaks
existing users, a message, and the location to annotate (the line declaring the changed part, else the
REGISTER_OP; for Python and docs changes also the override line that shaped the API).

Rules (B = breaking):
* graph, TF's OpDefCompatible / OpDefAttrDefaultsUnchanged (graph_compat; messages are TF's, attr
  values spelled as in the Python signature; `tf_message` is TF's text exactly):
  op_removed B, attr_removed B, attr_type_changed B, allowed_values_narrowed B,
  minimum_raised B, attr_added_without_default B, input_signature_changed B,
  input_became_ref B, output_signature_changed B, output_lost_ref B, default_removed B,
  default_changed B; accepted by TF and reported: op_added, attr_added,
  allowed_values_widened, allowed_values_unrestricted, minimum_lowered, default_added,
  inputs_renamed, inputs_changed_compatibly, outputs_changed_compatibly, flag_changed,
  control_outputs_changed, op_deprecated, op_undeprecated, attrs_reordered; and, accepted by TF
  but breaking graphs saved before: inputs_reordered B (inputs of one type permuted),
  stateful_removed B (SetIsStateful dropped). attr_renamed B replaces attr_removed and
  attr_added when the only attr gone and the only attr new differ in name alone.
* python (breaking only for exported functions; hidden ones are private):
  function_removed B, function_renamed B, function_moved B (other module of a project; a side
  read from one file takes the other side's modules), function_hidden B, function_retired B (its
  op deprecated at a GraphDef version TF 2.21 produces: every call raises), function_restored,
  alias_removed B, param_removed B, param_renamed B, param_moved B, required_param_added B,
  param_default_changed B, param_default_removed B, output_arity_changed B,
  output_fields_changed B (namedtuple fields); function_added, function_exposed,
  alias_added, alias_deprecated (its calls warn), alias_undeprecated, param_added (with
  default; before `name`, which the message notes), param_default_added.
* kernel (what a device runs; compared when both sides were read from C++):
  device_removed B (no unlabelled kernel on a device any more), types_narrowed B (a type a
  device's kernels accepted for an attr is gone); device_added, types_widened; and, on a
  device both sides have, host_memory_added (an arg some kernel now keeps in host memory),
  host_memory_removed, priority_changed: placement, not what runs, so reported, not breaking.
* docs (never breaking): doc_added, doc_removed, doc_changed (summary, description, or an
  argument's doc as the docstring shows it after overrides).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from opgen.apidiff.graph_compat import compatible_message, graph_issues
from opgen.apidiff.snapshot import Function, OpEntry, Param, Snapshot, kernel_type_key
from opgen.apidiff.snapshot_format import describe_attr
from opgen.errors import Location
from opgen.python_api.function import is_retired
from opgen.python_api.literals import attr_value_for_review
from opgen.spec.kernel_summary import device_key, runs_on
from opgen_runtime.graph.graph import GRAPH_DEF_VERSION
from opgen_runtime.proto import op_def_pb2
from opgen_runtime.proto.op_def_compat import accepted_changes, attr_map, describe_arg, without_restatements

Category = Literal["graph", "python", "kernel", "docs"]
CATEGORIES: tuple[Category, ...] = ("graph", "python", "kernel", "docs")


@dataclass(frozen=True)
class Change:
    op: str
    category: Category
    rule: str  # stable id, e.g. "attr_removed", "param_renamed", "summary_changed"
    breaking: bool
    message: str  # one line for people
    location: Location | None = None
    tf_message: str | None = None  # graph rules: TF's full error text (OpDefCompatible / ...DefaultsUnchanged)
    override_location: Location | None = None  # the override line that shaped the op's Python API
    # a change located in a git revision (an attr removed since `--git REV`): the op's declaration
    # in the work tree, which a GitHub annotation can attach to (`report.format_github`)
    work_tree_op: Location | None = None
    # the override line made the change (a Python-API change of an op whose graph did not
    # change, a doc text an override field wrote): a GitHub annotation stands there
    by_override: bool = False


@dataclass(frozen=True)
class OpStatus:
    op: str
    status: Literal["added", "removed", "changed"]


@dataclass
class DiffResult:
    changes: list[Change]
    ops: list[OpStatus]  # every op that differs, sorted by name
    # for GitHub annotations: a git revision's location (`REV:path:line`) in a file the work tree
    # holds changed -> the line of the work tree's file where it is now, or where it was deleted
    work_tree_lines: dict[Location, Location] = field(default_factory=dict)

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.breaking]


# The field of a part that a rule changes: an OpList file's op is located field by field
# (`opgen.spec.oplist_parts`: `attr T default_value`), a C++ registration's part by part (one
# builder call each), so a C++ side falls back to the part's line.
_RULE_FIELDS = {"attr_type_changed": "type", "allowed_values_narrowed": "allowed_values",
                "allowed_values_widened": "allowed_values", "minimum_raised": "minimum", "minimum_lowered": "minimum",
                "default_changed": "default_value", "default_added": "default_value", "input_became_ref": "is_ref",
                "param_default_changed": "default_value", "param_default_added": "default_value",
                "param_renamed": "name"}


def _graph_location(entry: OpEntry, part: str = "", fields: Sequence[str] = ()) -> Location | None:
    """The line of the first of `fields` of the changed part the side locates (an OpList
    entry's `default_value`), else of the part (`.Attr(...)`, `.Input(...)`, a flag, an OpList
    entry's `attr {`) when known, else the op's REGISTER_OP (or OpList entry)."""
    if not part:
        return entry.location
    found = (entry.part_location(f"{part} {name}") for name in fields)
    return next((loc for loc in found if loc is not None), None) or entry.part_location(part) or entry.location


def _python_change(entry: OpEntry, rule: str, breaking: bool, message: str, part: str = "",
                   category: Category = "python", other: OpEntry | None = None,
                   override: Location | None = None) -> Change:
    """A Python-API (or docs) change: at the changed part's line, with the `override` line
    that made it when given, else the override line that renamed the part, else the first
    that shaped the op's API (if any), as its second location; when only the `other` side
    has an override line for the part (an alias or a rename the change dropped), that line."""
    override = override or entry.override_location(part) or (
        other.override_location(part) if other and part else None)
    fields = (_RULE_FIELDS[rule],) if rule in _RULE_FIELDS else ()
    return Change(entry.name, category, rule, breaking, message, _graph_location(entry, part, fields),
                  override_location=override)


def _moved_by(old: OpEntry, new: OpEntry, rule: str, part: str) -> Location | None:
    """The `arg_order` line behind a moved input parameter: NEW's, else OLD's (an `arg_order`
    dropped). Inputs come first, in `arg_order` when one is given, so when either side has
    one it placed them (one both sides have alike moves none); None for anything else (an
    attr's place follows the OpDef and its default)."""
    if rule != "param_moved" or not part.startswith("input "):
        return None
    return new.override_location("arg_order") or old.override_location("arg_order")


def _issue_part(entry: OpEntry, subject: str) -> str:
    """`GraphIssue.subject` (an attr name, `input 2`, `output 0`) as a part key."""
    kind, _, index = subject.partition(" ")
    if kind in ("input", "output") and index.isdigit():
        args = entry.op_def.input_arg if kind == "input" else entry.op_def.output_arg
        return f"{kind} {args[int(index)].name}" if int(index) < len(args) else ""
    return f"attr {subject}" if subject else ""


_ARG_FIELDS = ("name", "type", "type_attr", "number_attr", "type_list_attr", "is_ref")


def _first_changed(
    old_args: Sequence[op_def_pb2.OpDef.ArgDef], new_args: Sequence[op_def_pb2.OpDef.ArgDef], kind: str
) -> tuple[str, tuple[str, ...]]:
    """The part key of the first new arg that differs from the old one at its position, and the
    fields that differ (those the new arg sets first: the lines an OpList entry has)."""
    for i, arg in enumerate(new_args):
        if i >= len(old_args) or describe_arg(old_args[i]) != describe_arg(arg):
            differ = [name for name in _ARG_FIELDS if i < len(old_args) and getattr(old_args[i], name) !=
                      getattr(arg, name)]
            return f"{kind} {arg.name}", tuple(sorted(differ, key=lambda name: not getattr(arg, name)))
    return "", ()


def _changed_arg(old: OpEntry, new: OpEntry, kind: str) -> tuple[OpEntry, str, tuple[str, ...]]:
    """The side, part key and changed fields of where the `kind` (input/output) list changed:
    the first new arg whose declaration differs; when the new list only lacks old args at its
    end, the first of them on OLD's side (NEW has no line for it)."""
    old_args, new_args = ((old.op_def.input_arg, new.op_def.input_arg) if kind == "input"
                          else (old.op_def.output_arg, new.op_def.output_arg))
    part, fields = _first_changed(old_args, new_args, kind)
    if not part and len(old_args) > len(new_args):
        return old, f"{kind} {old_args[len(new_args)].name}", ()
    return new, part, fields


def _args_location(old: OpEntry, new: OpEntry, kind: str) -> Location | None:
    """Where the `kind` (input/output) list changed (`_changed_arg`)."""
    return _graph_location(*_changed_arg(old, new, kind))


# ---- graph ------------------------------------------------------------------------------

def _compatible_graph_changes(old: op_def_pb2.OpDef,
                              new: op_def_pb2.OpDef) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """Graph changes TF accepts, as (rule, message, changed part, its changed fields: `_RULE_FIELDS`);
    reported so reviewers see them."""
    out: list[tuple[str, str, str, tuple[str, ...]]] = []
    old_attrs, new_attrs = attr_map(old), attr_map(new)

    def listed(items: Iterable[str]) -> str:
        return ", ".join(items) or "none"

    for rule, subject in accepted_changes(old, new):
        part = f"attr {subject}"
        fields: tuple[str, ...] = (_RULE_FIELDS[rule],) if rule in _RULE_FIELDS else ()
        if rule == "attr_added":
            message = f"Attr '{subject}' added with default: `{describe_attr(new_attrs[subject])}`"
        elif rule == "allowed_values_unrestricted":
            message = f"Attr '{subject}' no longer restricts its values"
        elif rule == "allowed_values_widened":
            was, now = old_attrs[subject].allowed_values, new_attrs[subject].allowed_values
            values = f"from {attr_value_for_review(was)} to {attr_value_for_review(now)}"
            message = f"Attr '{subject}' allows more values; {values}"
        elif rule == "minimum_lowered":
            attr = new_attrs[subject]
            new_min = str(attr.minimum) if attr.has_minimum else "no minimum"
            message = f"Attr '{subject}' has a lower minimum; from {old_attrs[subject].minimum} to {new_min}"
        elif rule == "default_added":
            message = f"Attr '{subject}' has a default now: {attr_value_for_review(new_attrs[subject].default_value)}"
        elif rule in ("inputs_renamed", "inputs_changed_compatibly"):
            what = "renamed" if rule == "inputs_renamed" else "changed compatibly"
            message = (f"Inputs {what}: {listed(describe_arg(a) for a in old.input_arg)} -> "
                       f"{listed(describe_arg(a) for a in new.input_arg)}")
            part, fields = _first_changed(old.input_arg, new.input_arg, "input")
        elif rule == "outputs_changed_compatibly":
            message = (f"Outputs changed compatibly: {listed(describe_arg(a) for a in old.output_arg)} -> "
                       f"{listed(describe_arg(a) for a in new.output_arg)}")
            part, fields = _first_changed(old.output_arg, new.output_arg, "output")
        elif rule == "flag_changed":
            was_set, is_set = getattr(old, subject), getattr(new, subject)
            message = f"{subject} changed from {str(was_set).lower()} to {str(is_set).lower()}"
            part = f"flag {subject}"
        elif rule == "control_outputs_changed":
            message = f"Control outputs changed: {listed(old.control_output)} -> {listed(new.control_output)}"
            part = ""
        elif rule == "op_deprecated":
            version, why = new.deprecation.version, new.deprecation.explanation
            message = f"Op is deprecated from GraphDef version {version}: {why}"
            part = "deprecation"
        elif rule == "op_undeprecated":
            message, part = "Op is no longer deprecated", ""
        else:
            assert rule == "attrs_reordered", rule
            message, part = "Attrs reordered (Python parameter order may follow)", ""
        out.append((rule, message, part, fields))
    return out


def _graph_changes(old: OpEntry, new: OpEntry) -> list[Change]:
    changes = []
    issues = graph_issues(old.op_def, new.op_def)
    for issue in without_restatements(issues):
        kind = issue.rule.split("_")[0]
        # a signature or ref-list rule names no arg: TF compares the flattened lists
        if kind in ("input", "output") and not issue.subject:
            where = _args_location(old, new, kind)
        elif issue.rule == "attr_removed":  # where it stood on the old side (the new side has no line for it)
            where = _graph_location(old, _issue_part(old, issue.subject))
        else:
            fields: tuple[str, ...] = (_RULE_FIELDS[issue.rule],) if issue.rule in _RULE_FIELDS else ()
            where = _graph_location(new, _issue_part(new, issue.subject), fields)
        changes.append(Change(new.name, "graph", issue.rule, True, issue.message, where,
                              compatible_message(issue, old.op_def, new.op_def)))
    # Every accepted change is listed beside the breaking ones (TF's check stops at the first
    # incompatibility; a review needs them all), except the arg lists' compatible wording when
    # TF rejects that list: it would restate the signature change.
    rejected = {issue.rule.split("_")[0] for issue in issues if issue.rule.startswith(("input_", "output_"))}
    for rule, message, part, fields in _compatible_graph_changes(old.op_def, new.op_def):
        if rule.split("_")[0].removesuffix("s") in rejected:
            continue
        rule, breaking, message = _beyond_tf(rule, message, old.op_def, new.op_def)
        # a part only the old side declares (SetIsStateful() dropped) is located where it stood
        dropped = part and new.part_location(part) is None and old.part_location(part)
        changes.append(Change(new.name, "graph", rule, breaking, message,
                              dropped or _graph_location(new, part, fields)))
    return _attr_rename(changes, old, new)


_ATTR_ADDED = ("attr_added", "attr_added_without_default")


def _attr_rename(changes: list[Change], old: OpEntry, new: OpEntry) -> list[Change]:
    """`changes` with an attr removed and an attr added as one `attr_renamed` change, when
    that is what they look like: the only attr gone and the only attr new, alike but for the
    name (type, default, allowed values, minimum). Still breaking: a GraphDef or SavedModel
    written before names the old attr, which the op no longer has. Anything less clear (two
    gone, or the new attr differs) stays two changes."""
    old_attrs, new_attrs = attr_map(old.op_def), attr_map(new.op_def)
    gone = [name for name in old_attrs if name not in new_attrs]
    came = [name for name in new_attrs if name not in old_attrs]
    if len(gone) != 1 or len(came) != 1:
        return changes
    was, now = op_def_pb2.OpDef.AttrDef(), op_def_pb2.OpDef.AttrDef()
    was.CopyFrom(old_attrs[gone[0]])
    now.CopyFrom(new_attrs[came[0]])
    for attr in (was, now):
        attr.ClearField("name")
        attr.ClearField("description")  # (a doc change is reported as one)
    removed = next((c for c in changes if c.rule == "attr_removed"), None)
    if was != now or removed is None:
        return changes
    renamed = replace(removed, rule="attr_renamed", location=_graph_location(new, f"attr {came[0]}"), message=(
        f"Attr '{gone[0]}' renamed to '{came[0]}' (same type and default); TF sees '{gone[0]}' removed: graphs "
        f"and SavedModels saved before set '{gone[0]}' and fail to load"))
    # An arg sized or typed by the attr changes signature with the rename alone (`n * T` read
    # with `n` new and no default: TF's empty signature): the rename says it all.
    implied = {"input_signature_changed", "output_signature_changed"} - {
        issue.rule for issue in graph_issues(_with_attr_renamed(old.op_def, gone[0], came[0]), new.op_def)}
    return [renamed if c is removed else c for c in changes if c.rule not in _ATTR_ADDED and c.rule not in implied]


def _with_attr_renamed(op_def: op_def_pb2.OpDef, was: str, now: str) -> op_def_pb2.OpDef:
    """A copy of `op_def` with attr `was` named `now`, in its AttrDef and the args that name it."""
    renamed = op_def_pb2.OpDef()
    renamed.CopyFrom(op_def)
    for attr in renamed.attr:
        if attr.name == was:
            attr.name = now
    for arg in (*renamed.input_arg, *renamed.output_arg):
        for ref in ("type_attr", "number_attr", "type_list_attr"):
            if getattr(arg, ref) == was:
                setattr(arg, ref, now)
    return renamed


def _beyond_tf(rule: str, message: str, old: op_def_pb2.OpDef, new: op_def_pb2.OpDef) -> tuple[str, bool, str]:
    """Two changes TF's OpDefCompatible accepts (it compares types, not meaning) that still
    break graphs saved before them: inputs of one type reordered (a NodeDef lists its inputs by
    position, so each old graph feeds one into the other's place), and a stateful op made
    stateless (TF may then merge identical calls or fold one into a constant: a random op
    returns the same values). (rule, breaking, message) of the accepted change."""
    if rule == "inputs_renamed":
        old_names, new_names = [a.name for a in old.input_arg], [a.name for a in new.input_arg]
        # an input both sides have at another position (whatever else was renamed meanwhile)
        if any(name in old_names and old_names.index(name) != i for i, name in enumerate(new_names)):
            return ("inputs_reordered", True, (f"Inputs reordered: {', '.join(old_names)} -> {', '.join(new_names)} "
                    "(TF accepts it, the types being the same, but a graph saved before feeds each input by "
                    "position: into another's place)"))
    if rule == "flag_changed" and old.is_stateful and not new.is_stateful:
        return ("stateful_removed", True, (f"{message} (TF accepts it, but may now merge identical calls or fold one "
                "into a constant: graphs saved before get one result for calls meant to differ)"))
    return rule, False, message


# ---- python -----------------------------------------------------------------------------

def _qualified(fn: Function) -> str:
    return f"{fn.module}.{fn.name}"


def _python_changes(old: OpEntry, new: OpEntry) -> list[Change]:
    a, b = old.function, new.function
    out: list[Change] = []

    def add(rule: str, breaking: bool, message: str, part: str = "") -> None:
        out.append(_python_change(new, rule, breaking, message, part, other=old))

    def alias_part(alias: str) -> str:  # its endpoint's line, where an override gives it one
        part = f"alias {alias}"
        return part if new.override_location(part) or old.override_location(part) else "endpoint"

    if a is None and b is None:
        return out
    if a is None:
        assert b is not None
        add("function_added", False, f"{_qualified(b)} added: {b.signature}")
        return out
    if b is None:
        add("function_removed", a.visible, f"{_qualified(a)} removed ({new.skip_reason or 'no Python function'})")
        return out
    public = a.visible  # hidden functions are private: their changes never break users
    if a.visible and not b.visible:
        add("function_hidden", True, f"{_qualified(a)} is no longer exported (hidden, defined as {b.name})",
            "visibility")
    elif b.visible and not a.visible:
        add("function_exposed", False, f"{_qualified(b)} is exported now (was hidden as {a.name})", "visibility")
    elif (a.module, a.name) != (b.module, b.name):
        kept = b.module == a.module and a.name in b.aliases
        rule = "function_moved" if a.name == b.name else "function_renamed"
        # (a deprecated alias warns at each call: trial37 #5)
        how = "a deprecated alias: calls warn" if a.name in b.deprecated_aliases else "alias"
        add(
            rule,
            public and not kept,
            f"{_qualified(a)} -> {_qualified(b)}" + (f" (old name kept as {how})" if kept else ""),
            "module" if rule == "function_moved" else "endpoint",  # a move: the modules glob that placed it
        )
    if is_retired(new.op_def) != is_retired(old.op_def):
        # (the graph side says `op_deprecated`, which TF accepts: graphs saved before still load)
        if is_retired(new.op_def):
            add("function_retired", public,
                f"{_qualified(b)} raises on every call now: its op is deprecated from GraphDef version "
                f"{new.op_def.deprecation.version}, which TensorFlow 2.21 already produces ({GRAPH_DEF_VERSION}) "
                "(NotImplementedError; eagerly tf.errors.UnimplementedError)", "deprecation")
        else:
            add("function_restored", False, f"{_qualified(b)} runs again: its op is no longer deprecated at a GraphDef "
                f"version TensorFlow 2.21 produces", "deprecation")
    for alias in a.aliases:
        if alias not in b.aliases and alias != b.name:
            add("alias_removed", public, f"alias {a.module}.{alias} of {_qualified(a)} removed", alias_part(alias))
    for alias in b.aliases:
        if alias not in a.aliases:
            # (a deprecated one warns at each call: trial37 #5)
            add("alias_added", False, f"alias {b.module}.{alias} added for {_qualified(b)}"
                + (" (deprecated: calls warn)" if alias in b.deprecated_aliases else ""), alias_part(alias))
        elif (alias in b.deprecated_aliases) != (alias in a.deprecated_aliases):
            # compatible: a call still works (a deprecated alias warns); callers should move off it
            deprecated = alias in b.deprecated_aliases
            add("alias_deprecated" if deprecated else "alias_undeprecated", False,
                f"alias {b.module}.{alias} of {_qualified(b)} " + ("deprecated: calls warn" if deprecated else
                                                                    "no longer deprecated"), alias_part(alias))
    # (a removed parameter whose part the new side no longer declares is located on the old side)
    out += [_python_change(old if rule == "param_removed" and new.part_location(part) is None else new, rule,
                           public and breaking, message, part, override=_moved_by(old, new, rule, part))
            for rule, breaking, message, part in _param_changes(a, b)]
    if len(a.outputs) != len(b.outputs):
        entry, part, _ = _changed_arg(old, new, "output")
        out.append(_python_change(entry, "output_arity_changed", public,
                                  f"{_qualified(b)} returns {_result_text(b)} instead of {_result_text(a)}", part))
    elif a.outputs != b.outputs and len(a.outputs) > 1:
        part = next((f"output {arg.name}" for arg, x, y in zip(new.op_def.output_arg, a.outputs, b.outputs) if x != y),
                    "")
        add("output_fields_changed", public,
            f"{_qualified(b)} result fields ({', '.join(a.outputs)}) -> ({', '.join(b.outputs)})", part)
    return out


def _result_text(fn: Function) -> str:
    if not fn.outputs:
        return "the Operation"
    if len(fn.outputs) == 1:
        return "1 output"
    return f"{len(fn.outputs)} outputs"


def _param_changes(a: Function, b: Function) -> list[tuple[str, bool, str, str]]:
    """Parameters pair up by Python name, else by what they bind (a parameter an override
    renamed), else by position and kind (an input or attr renamed in the OpDef: the graph
    side reports `inputs_renamed`); each change as (rule, breaking, message, what the
    parameter binds: `attr T`, `input x`)."""
    out: list[tuple[str, bool, str, str]] = []
    fn = _qualified(b)
    new_by_name = {p.name: (i, p) for i, p in enumerate(b.params)}
    new_by_binding = {p.binds: (i, p) for i, p in enumerate(b.params)}
    old_names = {p.name for p in a.params}
    pairs: dict[int, tuple[int, Param]] = {}
    for i, p in enumerate(a.params):
        found = new_by_name.get(p.name)
        if found is None and p.binds in new_by_binding and new_by_binding[p.binds][1].name not in old_names:
            found = new_by_binding[p.binds]
        if found is not None:
            pairs[i] = found
    taken = {j for j, _ in pairs.values()}

    def kinds(params: Sequence[Param]) -> list[str]:  # `input` or `attr` (`binds`: `input x`, `attr T`)
        return [param.binds.split(" ")[0] for param in params]

    # (only where the parameters' kinds line up: inputs that became one list input are no rename)
    if kinds(a.params) == kinds(b.params):
        for i in range(len(a.params)):
            if i not in pairs and i not in taken and b.params[i].name not in old_names:
                pairs[i] = (i, b.params[i])
                taken.add(i)
    matched: set[str] = set()
    for i, p in enumerate(a.params):
        found = pairs.get(i)
        if found is None:
            out.append(("param_removed", True, f"{fn}: parameter '{p.name}' removed", p.binds))
            continue
        j, q = found
        matched.add(q.name)
        if p.name != q.name:
            out.append(("param_renamed", True, f"{fn}: parameter '{p.name}' renamed to '{q.name}'", q.binds))
        if i != j:
            out.append(
                ("param_moved", True, f"{fn}: parameter '{q.name}' moved from position {i + 1} to {j + 1}", q.binds)
            )
        if p.default is not None and q.default is None:
            message = f"{fn}: parameter '{q.name}' is required now (default was {p.default})"
            out.append(("param_default_removed", True, message, q.binds))
        elif p.default is None and q.default is not None:
            out.append(
                ("param_default_added", False, f"{fn}: parameter '{q.name}' has a default now: {q.default}", q.binds)
            )
        elif p.default != q.default:
            out.append(
                (
                    "param_default_changed",
                    True,
                    f"{fn}: parameter '{q.name}' default {p.default} -> {q.default}",
                    q.binds,
                )
            )
    for q in b.params:
        if q.name in matched:
            continue
        if q.default is None:
            out.append(("required_param_added", True, f"{fn}: required parameter '{q.name}' added", q.binds))
        else:
            # Every parameter stands before `name`: those added after the old ones move only
            # `name`, which TF's wrappers are called with by keyword (TF adds defaulted attrs so),
            # so compatible; the message says what a name passed by position binds now.
            message = f"{fn}: parameter '{q.name}={q.default}' added"
            if b.params.index(q) == len(a.params):
                message += " before 'name' (a name passed by position goes to it now)"
            out.append(("param_added", False, message, q.binds))
    return out


# ---- kernels ----------------------------------------------------------------------------

def _kernel_changes(old: OpEntry, new: OpEntry) -> list[Change]:
    if old.kernels is None or new.kernels is None:
        return []
    out: list[Change] = []
    old_at, new_at = dict(old.kernel_locations), dict(new.kernel_locations)

    def add(rule: str, breaking: bool, message: str, old_key: str = "", new_key: str = "") -> None:
        # at the device's (first) kernel on the new side, else where it stood on the old side; a
        # type no kernel accepts any more where its kernel stood on the old side (`old_key`), a
        # type accepted now at the first kernel accepting it (`new_key`; trial37 #6)
        where = (old_at.get(old_key) if old_key else None) or (new_at.get(new_key) if new_key else None) or (
            new_at.get(device) or (old_at.get(device) if rule == "device_removed" else None))
        out.append(Change(new.name, "kernel", rule, breaking, message, where or _graph_location(new)))

    for device in sorted(set(old.kernels) | set(new.kernels), key=device_key):
        before, after = old.kernels.get(device), new.kernels.get(device)
        if after is None:
            add(
                "device_removed", True, f"no {device} kernel any more (it ran {runs_on({device: old.kernels[device]})})"
            )
            continue
        if before is None:
            add("device_added", False, f"{device} kernel added: {runs_on({device: after})}")
            continue
        for attr in sorted(set(before) | set(after)):
            a, b = before.get(attr), after.get(attr)  # None: any type
            if a == b:
                continue
            lost = [] if b is None else ["any other type"] if a is None else [t for t in a if t not in b]
            gained = [] if a is None else ["any type"] if b is None else [t for t in b if t not in a]
            if lost:
                add("types_narrowed", True, f"{device} kernels no longer accept {', '.join(lost)} for attr '{attr}'",
                    kernel_type_key(device, attr, lost[0]))
            if gained:
                add("types_widened", False, f"{device} kernels accept {', '.join(gained)} for attr '{attr}' now",
                    new_key=kernel_type_key(device, attr, gained[0]))
        (host_before, priority_before), (host_after, priority_after) = (
            side.kernel_placement.get(device, ((), (0,))) for side in (old, new))
        for arg in host_after:
            if arg not in host_before:
                add("host_memory_added", False, f"{device} kernels keep '{arg}' in host memory now")
        for arg in host_before:
            if arg not in host_after:
                add("host_memory_removed", False, f"{device} kernels no longer keep '{arg}' in host memory")
        if priority_before != priority_after:
            add("priority_changed", False, f"{device} kernel priority {_priorities(priority_before)} -> "
                f"{_priorities(priority_after)}")
    return out


def _priorities(values: tuple[int, ...]) -> str:
    return ", ".join(map(str, values))


# ---- docs -------------------------------------------------------------------------------

def _doc_label(key: str) -> str:
    """`summary`, `description`, or `doc of input 'x'` for a docs key like `input x`."""
    kind, _, name = key.partition(" ")
    return f"doc of {kind} '{name}'" if name else kind


def _docs_changes(old: OpEntry, new: OpEntry) -> list[Change]:
    a, b = dict(old.docs), dict(new.docs)
    # a doc that only follows a renamed argument (same kind, same text) is not a docs change
    for key in sorted(set(a) - set(b)):
        moved = next((k for k in sorted(set(b) - set(a)) if k.split(" ")[0] == key.split(" ")[0] and b[k] == a[key]),
                     None)
        if moved is not None:
            del a[key], b[moved]
    out = []
    for key in sorted(set(a) | set(b)):
        if a.get(key, "") != b.get(key, ""):
            what = "added" if key not in a else "removed" if key not in b else "changed"
            # at the `.Doc(` that says it (an OpList entry's field: `summary:`; else the
            # REGISTER_OP or OpList entry), with the override field that wrote the text
            # (`summary:`, an arg's `description:`), else the rename UpdateDocs rewrote it for
            # (it quotes the old name); OLD's when only OLD has one
            written = new.override_location(f"doc {key}") or old.override_location(f"doc {key}")
            renamed = new.override_location(f"renamed doc {key}") or old.override_location(f"renamed doc {key}")
            out.append(Change(new.name, "docs", f"doc_{what}", False, f"{_doc_label(key)} {what}",
                              _graph_location(new, "doc", (key,)), override_location=written or renamed,
                              by_override=written is not None))
    return out


# ---- whole snapshots --------------------------------------------------------------------

def _modules_from(side: Snapshot, other: Snapshot) -> Snapshot:
    """`side` with each op whose module only repeats its file's name in the module the other
    side gives that op; an op the other side lacks takes the other side's module when all its
    functions share one."""
    modules = {name: entry.function.module for name, entry in other.ops.items() if entry.function}
    shared = set(modules.values())
    only = shared.pop() if len(shared) == 1 else None
    ops = {}
    for name, entry in side.ops.items():
        module = modules.get(name, only) if name in side.modules_from_file_name else None
        if entry.function is not None and module is not None:
            entry = replace(entry, function=replace(entry.function, module=module))
        ops[name] = entry
    return replace(side, ops=ops)


def _located_in_sources(entry: OpEntry, sources_entry: OpEntry) -> OpEntry:
    """`entry` (read from a snapshot file, located at its entry there) located at the lines of
    the same op in the other side's sources, which know them."""
    return replace(entry, location=sources_entry.location, api_locations=sources_entry.api_locations,
                   api_parts=sources_entry.api_parts,
                   kernel_locations=sources_entry.kernel_locations, parts=sources_entry.parts)


def _in_changed_text(before: OpEntry, after: OpEntry) -> tuple[OpEntry, OpEntry]:
    """Both sides with each part a macro argument supplied text to (located at that argument)
    located in the #define instead when the argument's text is the same on both sides: what
    changed, if the part did, is then the #define's text (`.Attr("T: {" Types ", half}")`), the
    line the review shows. A side read from a snapshot file has none (its text is unknown):
    the parts stay at the argument."""
    supplied = {key: text for key, text, _ in before.argument_parts}
    same = {key for key, text, _ in after.argument_parts if supplied.get(key) == text}

    def in_body(entry: OpEntry) -> OpEntry:
        body = {key: at for key, _, at in entry.argument_parts if key in same}
        return replace(entry, parts=tuple((key, body.get(key, at)) for key, at in entry.parts))

    return (in_body(before), in_body(after)) if same else (before, after)


def diff_snapshots(old: Snapshot, new: Snapshot) -> DiffResult:
    """The changes NEW - OLD. A side read from one file (an OpList or C++ file, e.g. a
    `--from-library` dump) names its modules after that file, which says nothing about where
    the functions live: such ops take the other side's modules (NEW's when both sides are
    single files), so `function_moved` only reports a move between a project's modules.

    Changes are located on NEW's side (OLD's for what NEW lacks); when one side was read from
    a snapshot file (which records no source lines) and the other from sources, at the
    sources' lines (what only the snapshot's side has: at its op's REGISTER_OP there)."""
    if old.modules_from_file_name:
        old = _modules_from(old, new)
    elif new.modules_from_file_name:
        new = _modules_from(new, old)
    changes: list[Change] = []
    ops: list[OpStatus] = []
    for name in sorted(set(old.ops) | set(new.ops)):
        before, after = old.ops.get(name), new.ops.get(name)
        if after is None:
            assert before is not None
            ops.append(OpStatus(name, "removed"))
            changes.append(Change(name, "graph", "op_removed", True, f"Op {name} removed",
                                  _graph_location(before)))
            if before.function is not None:
                changes.append(_python_change(before, "function_removed", before.function.visible,
                                              f"{_qualified(before.function)} removed with its op"))
            continue
        if new.snapshot_file is not None and old.snapshot_file is None and before is not None:
            after = _located_in_sources(after, before)
        elif old.snapshot_file is not None and new.snapshot_file is None and before is not None:
            # what only OLD had (a removed attr) is then at the op's REGISTER_OP in NEW's sources,
            # a line a review can point at, not at a heading of the snapshot file
            before = _located_in_sources(before, after)
        if before is not None:
            before, after = _in_changed_text(before, after)
        if before is None:
            ops.append(OpStatus(name, "added"))
            changes.append(Change(name, "graph", "op_added", False, f"Op {name} added", _graph_location(after)))
            if after.function is not None:
                changes.append(_python_change(after, "function_added", False,
                                              f"{_qualified(after.function)} added: {after.function.signature}"))
            continue
        op_changes = (_graph_changes(before, after) + _python_changes(before, after) + _kernel_changes(before, after)
                      + _docs_changes(before, after))
        if not any(c.category == "graph" for c in op_changes):  # the Python API changed by its overrides
            op_changes = [replace(c, by_override=True) if c.category == "python" and c.override_location else c
                          for c in op_changes]
        if after.location is not None and not after.location.revision:
            op_changes = [replace(c, work_tree_op=after.location) if c.location and c.location.revision else c
                          for c in op_changes]
        if op_changes:
            ops.append(OpStatus(name, "changed"))
            changes += op_changes
    return DiffResult(changes, ops)
