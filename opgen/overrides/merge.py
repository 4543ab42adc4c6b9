"""Merging one ApiDef update into the per-op ApiDef (TF's ApiDefMap::LoadApiDef, `op_gen_lib.cc`), with
every condition TF ignores or only warns about turned into a located error, and UpdateDocs.

Both override formats reach this module as ApiDef updates (OpGenOverride entries are
translated by `opgen.overrides.load`), so there is one merge path.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from opgen.errors import Location, OpgenError
from opgen.proto import api_def_pb2
from opgen.python_api.names import endpoint_base_name, identifier_problem, is_reserved
from opgen.python_api.signature import inferred_attrs, is_private_endpoint
from opgen.spec.validate import validate_attr_value
from opgen_runtime.proto import op_def_pb2

ApiDef = api_def_pb2.ApiDef

# An ApiDef endpoint: dotted identifiers (`math.abs`), each lowercased into a function name;
# a leading `_` makes a hidden op's function private (what OpGenOverride `hide` writes).
_ENDPOINT = re.compile(r"_?[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*\Z")


@dataclass(frozen=True)
class Setter:
    """An override field that sets a part of an op's API (a name, a default, a doc text)."""

    loc: Location  # where it is written (an ApiDef arg's `rename_to:` inside its `in_arg { ... }`)
    # the entry's top-level fields holding it (what `ApiModel.provenance` lists): one, or each
    # element of a repeated `arg_order`
    field_locs: tuple[Location, ...]
    what: str  # how messages name it: `input_rename` of 'x'


@dataclass
class Update:
    """One override entry as an ApiDef update, with the file location of each of its parts."""

    api: ApiDef
    entry_loc: Location  # where the entry (`op {`) starts
    # (ApiDef field, index in that repeated field or 0) -> where the user wrote it
    locs: dict[tuple[str, int], Location] = field(default_factory=dict)
    # attr index -> where its default's value is written (a bad default is located there)
    default_locs: dict[int, Location] = field(default_factory=dict)
    # (ApiDef field, index) of an arg or attr -> where its `description` is written
    doc_locs: dict[tuple[str, int], Location] = field(default_factory=dict)
    # (ApiDef field, index, sub-field or "") -> the field that sets that part, where its
    # location or name is not the ApiDef field's own (an arg's `rename_to`, an OpGenOverride field)
    setters: dict[tuple[str, int, str], Setter] = field(default_factory=dict)
    # endpoint indices that keep the op's current endpoint there (OpGenOverride `alias` keeps the
    # function's name, `hide` prefixes it and keeps the aliases): the fields that set it stay in effect
    kept_endpoints: frozenset[int] = frozenset()
    # an OpGenOverride's endpoints only name Python functions (`rename_to: "add"` over op Add's
    # `Add` changes nothing); an ApiDef's are TF's tf_export names too (`endpoint { name: "add" }`)
    python_names_only: bool = False
    problems: list[OpgenError] = field(default_factory=list)  # mistakes found reading the entry
    partial: bool = False  # a field of the entry did not parse (reported with the file)

    def loc(self, field_name: str, index: int = 0) -> Location:
        return self.locs.get((field_name, index), self.entry_loc)

    def setter(self, field_name: str, index: int = 0, sub: str = "") -> Setter:
        """The field that sets that part (by default the ApiDef field itself, all its elements if repeated)."""
        found = self.setters.get((field_name, index, sub))
        if found is not None:
            return found
        loc = self.loc(field_name, index)
        return Setter(loc, tuple(at for (name, _), at in self.locs.items() if name == field_name) or (loc,),
                      f"`{field_name}`")


@dataclass
class MergeState:
    """Where the current value of each renamed/re-pointed part of an op was last set."""

    endpoint_loc: Location | None = None
    endpoint_locs: dict[str, Location] = field(default_factory=dict)  # endpoint name -> its line
    rename_locs: dict[tuple[str, str], Location] = field(default_factory=dict)  # (kind, name)
    default_locs: dict[str, Location] = field(default_factory=dict)  # attr name -> its attr_default entry
    order_loc: Location | None = None  # the arg_order that placed the inputs
    visibility_loc: Location | None = None  # the visibility (OpGenOverride `hide`) that set it
    # ("summary", "") / ("description", "") / (ApiDef field, arg or attr name) -> the field
    # that last wrote that doc text (`description`, else `description_prefix` or `_suffix`)
    doc_locs: dict[tuple[str, str], Location] = field(default_factory=dict)
    # each part of the API a field set ("visibility", ("endpoint", "0"), ("in_arg", "x", "rename_to"),
    # ...) -> the fields its value comes from now: one, or several (`description_prefix` over
    # a `description`, `hide` prefixing the name a `rename_to` chose)
    holders: dict[tuple[str, ...], list[Setter]] = field(default_factory=dict)
    merged: list[Setter] = field(default_factory=list)  # every field merged, in merge order
    # a field -> the last field that took a part it set, and that part
    replaced_by: dict[Setter, tuple[Setter, tuple[str, ...]]] = field(default_factory=dict)

    def set_part(self, part: tuple[str, ...], setter: Setter, keep: bool = False) -> None:
        """`setter` sets `part`: over the fields that set it (`keep`: a prefix or suffix), or instead of them."""
        if not keep:
            for old in self.holders.get(part, []):
                self.replaced_by[old] = (setter, part)
        self.holders[part] = [*self.holders.get(part, []), setter] if keep else [setter]
        if setter not in self.merged:
            self.merged.append(setter)

    def set_endpoints(self, update: Update) -> None:
        """`update`'s endpoint list replaces the op's (TF replaces the whole list): the fields
        that set an endpoint it does not keep no longer set anything."""
        count = len(update.api.endpoint)
        # the endpoints a field of the update sets (all but those kept as they are)
        own = [i for i in range(count) if i not in update.kept_endpoints or ("endpoint", i, "") in update.setters]
        for part in [part for part in self.holders if part[0] == "endpoint" and int(part[1]) >= count]:
            for setter in self.holders.pop(part):  # (a longer list before)
                self.replaced_by[setter] = (update.setter("endpoint", own[0]), part)
        for index in own:
            self.set_part(("endpoint", str(index)), update.setter("endpoint", index),
                          keep=index in update.kept_endpoints)

    def live(self) -> set[Setter]:
        """The fields some part of the API still comes from."""
        return {setter for held in self.holders.values() for setter in held}


def check_update(update: Update, op_def: op_def_pb2.OpDef) -> list[OpgenError]:
    """Checks of one entry on its own: skip with other fields, duplicates, names, defaults."""
    api = update.api
    errors: list[OpgenError] = []

    def err(message: str, loc: Location, hint: str | None = None) -> None:
        errors.append(OpgenError(f"{api.graph_op_name}: {message}", loc, hint))

    if api.visibility not in ApiDef.Visibility.values():  # a number protobuf keeps but names nothing
        names = ", ".join(ApiDef.Visibility.keys())
        err(f"visibility {api.visibility} is not one of {names}", update.loc("visibility"),
            hint="write visibility: HIDDEN (or VISIBLE, SKIP)")
    if api.visibility == ApiDef.SKIP:
        others = [f.name for f, _ in api.ListFields() if f.name not in ("graph_op_name", "visibility")]
        if others:
            err(f"a skipped op generates no function, so {', '.join(others)} would be ignored",
                update.loc("visibility"), hint="remove the other fields, or the skip")
    for unmerged in ("deprecation_message", "deprecation_version"):
        if getattr(api, unmerged):
            err(f"{unmerged} is never merged into the API (TF ignores it too)", update.loc(unmerged),
                hint="deprecate a name with `endpoint { name: ... deprecated: true }`")
    seen_endpoints: dict[tuple[str, str], int] = {}  # (namespace, Python base name) -> first endpoint index
    # (OpGenOverride `hide`: the `_` its first endpoint gets is given to the aliases too)
    private = bool(api.endpoint) and is_private_endpoint(api.visibility, api.endpoint[0].name, api.graph_op_name)
    for index, endpoint in enumerate(api.endpoint):
        if not _ENDPOINT.match(endpoint.name):
            err(f"API name {endpoint.name!r} is not a (dotted) Python identifier", update.loc("endpoint", index),
                hint='write a Python name, maybe in a namespace: endpoint { name: "math.my_op" } gives my_op')
            continue
        name = endpoint.name[1:] if index == 0 and private else endpoint.name
        first = seen_endpoints.setdefault((name.rpartition(".")[0], endpoint_base_name(name)), index)
        if first != index:
            errors.append(_duplicate_endpoint(update, first, index))
    if api.endpoint and api.endpoint[0].deprecated:
        err(f"endpoint {api.endpoint[0].name!r} names the function, so `deprecated: true` would have no effect "
            "on it (a deprecated endpoint binds an alias that warns when called)", update.loc("endpoint", 0),
            hint="list the name to keep first (it names the function) and this one after it; to deprecate the "
                 "op itself, use REGISTER_OP's .Deprecated(version, why)")
    for kind, args in (("in_arg", api.in_arg), ("out_arg", api.out_arg), ("attr", api.attr)):
        seen: set[str] = set()
        for index, arg in enumerate(args):
            if arg.name in seen:
                err(f"{_KIND_WORDS[kind]} {arg.name!r} is overridden twice in one entry", update.loc(kind, index),
                    hint=f"put the fields of both {kind} blocks in one")
            seen.add(arg.name)
            if arg.rename_to:
                message = bad_identifier(arg.rename_to)
                if message:
                    err(f"cannot rename {_KIND_WORDS[kind]} {arg.name!r} to {arg.rename_to!r}: {message}",
                        update.loc(kind, index), hint="choose another name" if "keyword" in message
                        else "rename_to takes a Python name: letters, digits and _, starting with a letter")
    attr_defs = {a.name: a for a in op_def.attr}
    inferred = inferred_attrs(op_def)
    for index, attr in enumerate(api.attr):
        if attr.name in inferred and (attr.rename_to or attr.HasField("default_value")):
            source = next(
                a.name for a in op_def.input_arg if attr.name in (a.type_attr, a.type_list_attr, a.number_attr)
            )
            err(f"attr {attr.name!r} is inferred from input {source!r} and is no parameter, so its "
                f"{'rename' if attr.rename_to else 'default'} would have no effect", update.loc("attr", index),
                hint="remove it")
            continue
        if attr.HasField("default_value") and attr.name in attr_defs:
            problem = validate_attr_value(attr.default_value, attr_defs[attr.name])
            if problem:
                problem = problem.replace("\n\t for attr", " for attr")
                err(f"bad attr default: {problem}", update.default_locs.get(index, update.loc("attr", index)),
                    hint=_default_hint(attr_defs[attr.name].type) if "with type" in problem else None)
    return sorted(errors, key=lambda e: e.location or update.entry_loc)


_KIND_WORDS = {"in_arg": "input", "out_arg": "output", "attr": "attr"}


def _duplicate_endpoint(update: Update, first: int, index: int) -> OpgenError:
    """Endpoint `index` of `update` names what endpoint `first` does: one name in the same namespace.

    TF does not check this either (its ApiDef merge copies the list, `op_gen_lib.cc`
    MergeApiDefs; its generator lists every endpoint in `tf_export`, `python_op_gen_internal.cc`
    GenPythonOp::AddExport, so the name is exported once, or is both the canonical and a deprecated
    name); endpoints in different namespaces (`math.acos`, `acos`) are TF's two names of one
    function, and one name here (`opgen.python_api.signature.python_aliases`)."""
    api = update.api
    endpoint, other = api.endpoint[index], api.endpoint[first]
    first_loc, loc = update.loc("endpoint", first), update.loc("endpoint", index)
    head = "is listed twice" if other.name == endpoint.name else f"gives the same Python name as {other.name!r}"
    if first == 0 and first_loc == loc:  # an OpGenOverride `alias` beside no `rename_to`: the op's name stays
        head, where, effect = "names the function already", "", "this alias would bind nothing"
        hint = "remove it, or write the alias's own name"
    elif first == 0:
        where = f": the one at {first_loc} names the function"
        effect = "this one's `deprecated: true` would have no effect (the function itself cannot be deprecated)" \
            if endpoint.deprecated else "this one would bind no alias"
        hint = ('remove it; to deprecate an old name, list that name instead: endpoint { name: "old_name" '
                'deprecated: true }' if endpoint.deprecated else "remove it, or write the alias's own name")
    else:
        where, effect = f": the one at {first_loc} binds that alias already", "this one would bind nothing"
        hint = "keep one of the two" + (" (the first one's `deprecated` is kept)" if endpoint.deprecated !=
                                         other.deprecated else "")
    message = f"API name {endpoint.name!r} {head}{where}, so {effect}"
    return OpgenError(f"{api.graph_op_name}: {message}", loc, hint)


def _arg_order_hint(order: Sequence[str], api: ApiDef) -> str:
    """arg_order names inputs by their OpDef names (TF's ApiDef): when the order is a
    permutation once renamed inputs are named so, the hint says which."""
    graph_name = {a.rename_to: a.name for a in api.in_arg if a.rename_to and a.rename_to != a.name}
    if sorted(graph_name.get(n, n) for n in order) == sorted(api.arg_order):
        renames = ", ".join(f"{graph_name[n]!r} for {n!r}" for n in order if n in graph_name)
        return f"arg_order takes the inputs' OpDef names, not their renames: write {renames}"
    return "list every input exactly once"


# A default of each attr type, as a hint's example (`b: true`).
_DEFAULT_EXAMPLES = {"int": "i: 1", "float": "f: 0.5", "bool": "b: true", "string": 's: "x"', "type": "type: DT_FLOAT",
                     "shape": "shape { dim { size: 2 } }", "func": 'func { name: "F" }', "tensor": "tensor { ... }"}


def _default_hint(attr_type: str) -> str:
    inner = attr_type[5:-1] if attr_type.startswith("list(") else None
    example = _DEFAULT_EXAMPLES.get(inner or attr_type, "...")
    if inner is not None:
        example = f"list {{ {example} }}"
    article = "an" if attr_type[0] in "aeiou" else "a"
    return f"the attr is {article} {attr_type}: write a default like `{example}`"


def bad_identifier(name: str) -> str | None:
    """Why `name` cannot be a parameter, namedtuple field or function name; None if it can."""
    if is_reserved(name):
        return "collides with a Python keyword or reserved name"
    # opgen.python_api.names's identifier policy, and no leading `_` (like an OpDef arg name; the
    # wrapper's own names start with `_`)
    if identifier_problem(name) or name.startswith("_"):
        return "not a Python identifier starting with a letter"
    return None


def merge_update(api: ApiDef, update: Update, op_def: op_def_pb2.OpDef, state: MergeState) -> list[OpgenError]:
    """Apply `update` to `api` in place exactly as TF's LoadApiDef merges (`op_gen_lib.cc`)."""
    new = update.api
    errors: list[OpgenError] = []
    op = api.graph_op_name
    # a field setting a part to the value it has already -> that value, and where it comes from
    unchanged: dict[Setter, str] = {}

    def already(part: tuple[str, ...], setter: Setter, value: str) -> None:
        holders = state.holders.get(part)
        since = f"set so at {holders[-1].loc}" if holders else "as the op declares it"
        unchanged[setter] = f"{value} already ({since})"

    if new.visibility != ApiDef.DEFAULT_VISIBILITY:
        api.visibility = new.visibility
        state.visibility_loc = update.loc("visibility")
        state.set_part(("visibility",), update.setter("visibility"))
    if new.endpoint and not update.kept_endpoints and _endpoint_names(new, update) == _endpoint_names(api, update):
        names = ", ".join(name + (" (deprecated)" if deprecated else "") for name, deprecated in
                          _endpoint_names(new, update))
        already(("endpoint", "0"), update.setter("endpoint", 0),
                f"the op's {'Python names are' if update.python_names_only else 'endpoints are'} {names}")
    elif new.endpoint:
        del api.endpoint[:]
        api.endpoint.extend(new.endpoint)
        state.endpoint_loc = update.loc("endpoint")
        state.endpoint_locs = {endpoint.name: update.loc("endpoint", i) for i, endpoint in enumerate(new.endpoint)}
        state.set_endpoints(update)
    for kind, current, updates in (("in_arg", api.in_arg, new.in_arg), ("out_arg", api.out_arg, new.out_arg)):
        by_name = {a.name: a for a in current}
        for index, arg in enumerate(updates):
            target = by_name.get(arg.name)
            if target is None:
                errors.append(_unknown(op_def, _KIND_WORDS[kind], arg.name, current, updates,
                                       update.loc(kind, index)))
                continue
            if arg.rename_to and arg.rename_to == target.rename_to:
                already((kind, arg.name, "rename_to"), update.setter(kind, index, "rename_to"),
                        f"{_KIND_WORDS[kind]} {arg.name!r} is named {arg.rename_to!r}")
            elif arg.rename_to:
                target.rename_to = arg.rename_to
                state.rename_locs[(kind, arg.name)] = update.loc(kind, index)
                state.set_part((kind, arg.name, "rename_to"), update.setter(kind, index, "rename_to"))
            if arg.description:
                target.description = arg.description
                state.doc_locs[(kind, arg.name)] = update.doc_locs.get((kind, index), update.loc(kind, index))
                state.set_part((kind, arg.name, "description"), update.setter(kind, index, "description"))
    if new.arg_order:
        if sorted(new.arg_order) != sorted(api.arg_order):
            errors.append(OpgenError(
                f"{op}: arg_order [{', '.join(new.arg_order)}] is not a permutation of the inputs "
                f"[{', '.join(api.arg_order)}]", update.loc("arg_order"),
                hint=_arg_order_hint(new.arg_order, api)))
        else:
            del api.arg_order[:]
            api.arg_order.extend(new.arg_order)
            state.order_loc = update.loc("arg_order")
            state.set_part(("arg_order",), update.setter("arg_order"))
    attrs = {a.name: a for a in api.attr}
    for index, attr in enumerate(new.attr):
        target = attrs.get(attr.name)
        if target is None:
            errors.append(_unknown(op_def, "attr", attr.name, api.attr, new.attr, update.loc("attr", index)))
            continue
        if attr.rename_to and attr.rename_to == target.rename_to:
            already(("attr", attr.name, "rename_to"), update.setter("attr", index, "rename_to"),
                    f"attr {attr.name!r} is named {attr.rename_to!r}")
        elif attr.rename_to:
            target.rename_to = attr.rename_to
            state.rename_locs[("attr", attr.name)] = update.loc("attr", index)
            state.set_part(("attr", attr.name, "rename_to"), update.setter("attr", index, "rename_to"))
        if attr.HasField("default_value"):  # (TF's own files restate the op's default: api_def_Squeeze.pbtxt)
            target.default_value.CopyFrom(attr.default_value)
            state.default_locs[attr.name] = update.default_locs.get(index, update.loc("attr", index))
            state.set_part(("attr", attr.name, "default_value"), update.setter("attr", index, "default_value"))
        if attr.description:
            target.description = attr.description
            state.doc_locs[("attr", attr.name)] = update.doc_locs.get(("attr", index), update.loc("attr", index))
            state.set_part(("attr", attr.name, "description"), update.setter("attr", index, "description"))
    if new.summary:
        api.summary = new.summary
        state.doc_locs[("summary", "")] = update.loc("summary")
        state.set_part(("summary",), update.setter("summary"))
    if new.description:  # (TF's order: the text, then the prefix and suffix around it)
        api.description = new.description
        state.set_part(("description",), update.setter("description"))
    if new.description_prefix:
        api.description = new.description_prefix + "\n" + api.description
        state.set_part(("description",), update.setter("description_prefix"), keep=True)
    if new.description_suffix:
        api.description = api.description + "\n" + new.description_suffix
        state.set_part(("description",), update.setter("description_suffix"), keep=True)
    wrote = next((f for f in ("description", "description_prefix", "description_suffix") if getattr(new, f)), None)
    if wrote is not None:
        state.doc_locs[("description", "")] = update.loc(wrote)
    # (a field that also set another part, as `hide` sets the visibility and the name, has an effect)
    errors.extend(OpgenError(f"{op}: {setter.what} changes nothing: {value}", setter.loc, hint="remove it")
                  for setter, value in unchanged.items() if setter not in state.merged)
    return errors


def _endpoint_names(api: ApiDef, update: Update) -> list[tuple[str, bool]]:
    """What `api`'s endpoint list means for `update`'s format: the Python names (an
    OpGenOverride), or the endpoints as written (an ApiDef: TF's tf_export names)."""
    return [(endpoint_base_name(e.name) if update.python_names_only else e.name, e.deprecated)
            for e in api.endpoint]


# An ApiDef's arg or attr entry (`name`, `rename_to`).
_Entry = api_def_pb2.ApiDef.Arg | api_def_pb2.ApiDef.Attr


def _unknown(op_def: op_def_pb2.OpDef, kind: str, name: str, current: Sequence[_Entry], updates: Sequence[_Entry],
             loc: Location) -> OpgenError:
    """No `kind` (input, output, attr) `name` among the `current` entries (the op's): say so, and
    what the name is when it is another kind, or the Python name an entry renames one to."""
    known = [e.name for e in current]
    other = next((f"{word} ({field} {{ name: \"{name}\" ... }})" for word, field, args in (
        ("an input", "in_arg", op_def.input_arg), ("an output", "out_arg", op_def.output_arg),
        ("an attr", "attr", op_def.attr)) if word != f"an {kind}" and any(a.name == name for a in args)), None)
    renamed = next((e.name for e in (*current, *updates) if e.rename_to == name and e.name != name), None)
    if renamed is not None:
        other = (f"the Python name {kind} {renamed!r} is renamed to; entries name {kind}s as the op declares them "
                 f"({renamed!r})")
    hint = f"its {kind}s: {', '.join(known) if known else '(none)'}"
    return OpgenError(f"op {op_def.name} has no {kind} named {name!r}", loc,
                      hint=f"{name!r} is {other}; {hint}" if other else hint)


def update_docs(api: ApiDef) -> None:
    """TF's ApiDefMap::UpdateDocs (`op_gen_lib.cc`): rewrite backquoted renamed names in every doc string, in order."""
    # The `_` of a private endpoint (OpGenOverride `hide`) names the function, not the op.
    shown = api.endpoint[0].name if api.endpoint else ""
    if is_private_endpoint(api.visibility, shown, api.graph_op_name):
        shown = shown[1:]
    if shown and shown != api.graph_op_name:
        _rename_in_docs(api, api.graph_op_name, shown)
    for args in (api.in_arg, api.out_arg, api.attr):
        for arg in args:
            if arg.rename_to and arg.name != arg.rename_to:
                _rename_in_docs(api, arg.name, arg.rename_to)


def _rename_in_docs(api: ApiDef, old: str, new: str) -> None:
    old_q, new_q = f"`{old}`", f"`{new}`"
    for args in (api.in_arg, api.out_arg, api.attr):
        for arg in args:
            arg.description = arg.description.replace(old_q, new_q)
    api.summary = api.summary.replace(old_q, new_q)
    api.description = api.description.replace(old_q, new_q)
