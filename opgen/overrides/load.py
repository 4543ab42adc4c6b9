"""Override files compiled into the per-op API model (`opgen.overrides.apidef.ApiModel`), validated.

Layout of an override directory (`[tool.opgen] overrides`, `--overrides DIR`):
* every `*.pbtxt` file is read (`*.md` and dotfiles are skipped, anything else is an
  error, so a misnamed file cannot be silently ignored); each holds either opgen
  `OpGenOverrides` or TF `ApiDefs` (told apart by parsing, see `opgen.overrides.files`), and
  may use TF's `<<END` multi-line strings;
* each directory is one layer; layers load in order: DIR itself, then its subdirectories
  in name order, depth first (TF's `base_api/` then `python_api/`); files of a layer load in
  name order. Later layers merge over earlier ones exactly as TF merges ApiDef directories;
* within one layer an op may be overridden by one entry only, unless
  `merge_overrides = true`, then entries merge in load order.
OpGenOverride entries are translated to ApiDef updates and merged like ApiDefs
(`op_gen_lib.cc` ApiDefMap::LoadApiDef), then TF's UpdateDocs rewrites backquoted renamed names.
Merging keeps, for each part of an op's API, the fields its value comes from
(`opgen.overrides.merge.MergeState.holders`): a field a later one replaced in every part it
set has no effect, and the provenance (`ApiModel.provenance`) lists only fields that have one.

Everything TF ignores or warns about is an error here, reported as `file:line:col`:
unknown ops/args/attrs, parse errors, an entry changing nothing, `skip` (or visibility SKIP)
with any other field, two entries for one op in a layer, renames and aliases that are not
identifiers or collide with a keyword, another parameter, another output field or another
function of the library (the whole OpList is one namespace), bad attr defaults
(`opgen.spec.validate.validate_attr_value`), a rename or default of an inferred attr (no
parameter, so no effect), ApiDef fields TF never merges (`deprecation_message`,
`deprecation_version`), arg_order not a permutation, an endpoint repeating a name of its list
(in its namespace), a field a later layer or merged entry replaces in whole (located at it,
naming the replacing line), any field of an op a layer skips, a field setting a name it has
already, a text to "", visibility to DEFAULT_VISIBILITY, `hide`/`skip` to false (changes
nothing). All errors of all files are
reported together, in file order, then a summary line (`3 errors in 2 files`, as for
gathering); a faulty entry does not hide the other entries' errors.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from google.protobuf import json_format, text_format

from opgen.errors import Location, OpgenError, OpgenErrors, did_you_mean
from opgen.overrides.apidef import ApiModel, default_api_def
from opgen.overrides.files import OverrideFile, read_override_file
from opgen.overrides.merge import (
    MergeState,
    Setter,
    Update,
    bad_identifier,
    check_update,
    merge_update,
    update_docs,
)
from opgen.proto import (
    api_def_pb2,
    op_gen_overrides_pb2,
)
from opgen.python_api.names import MODULE_GLOBALS, endpoint_base_name
from opgen.python_api.signature import (
    ApiView,
    is_private_endpoint,
    python_alias_name,
    python_aliases,
    python_function_name,
    python_params,
)
from opgen.tf_text.proto_positions import Node
from opgen_runtime.proto import (
    attr_value_pb2,
    datatypes,
    op_def_pb2,
)

ApiDef = api_def_pb2.ApiDef
_Entry = TypeVar("_Entry", ApiDef.Attr, ApiDef.Arg)


# An override of an op no source declares (often: one deleted or renamed since).
def _unknown_op_hint(op: str) -> str:
    if op.startswith("_"):  # TF's internal ops are left out of the wrappers unless asked for
        return ("ops whose name starts with '_' are internal and left out: set include_internal = true in "
                "[tool.opgen] (or pass --include-internal) to wrap them, or delete the entry")
    return ("no op of the sources has this name: delete the entry if the op was removed or renamed, or pass the "
            "sources that declare it")


def load_overrides(directory: str | Path | None, op_list: op_def_pb2.OpList, merge: bool = False,
                   known_ops_only: bool = False) -> ApiModel:
    """The ApiModel of `op_list` after the override files under `directory` (a dir or one file);
    with `known_ops_only`, entries of ops `op_list` lacks are passed over (a project's overrides
    applied to a dump of some of its ops), not errors."""
    op_defs = {op.name: op for op in op_list.op}
    model = ApiModel({name: default_api_def(op) for name, op in op_defs.items()})
    if directory is None:
        return model
    errors: list[OpgenError] = []
    states = {name: MergeState() for name in op_defs}
    # ops with a faulty entry: its other fields were not applied, so a clash of function
    # names involving the op may only follow from that and is not reported (every other
    # error is, at once; the entry's own parameter clashes are checked on a copy)
    faulty: set[str] = set()
    for layer in override_layers(Path(directory), _display(Path(directory))):
        first_entry: dict[str, Location] = {}
        for path, display in layer:
            try:
                file = read_override_file(path, display)
            except OpgenError as e:
                errors.append(e)
                continue
            errors.extend(file.errors)
            for update in _updates(file, model.api_defs, op_defs, errors):
                op = update.api.graph_op_name
                if op not in op_defs and known_ops_only:
                    continue
                if op not in op_defs:
                    errors.append(OpgenError(f"unknown op {op!r}", update.loc("graph_op_name"),
                                             hint=did_you_mean(op, op_defs) or _unknown_op_hint(op)))
                    continue
                duplicate = op in first_entry and not merge
                if duplicate:
                    errors.append(OpgenError(
                        f"op {op} is already overridden at {first_entry[op]}", update.entry_loc,
                        hint="keep one entry per op and layer, or set `merge_overrides = true` in "
                        "[tool.opgen] to merge them in load order"))
                first_entry.setdefault(op, update.entry_loc)
                entry_errors = update.problems + check_update(update, op_defs[op])
                if entry_errors or duplicate or update.partial:  # checked on a copy, not applied
                    faulty.add(op)
                    entry_errors += _check_on_copy(model, update, op_defs[op], states[op], params=not duplicate)
                else:
                    entry_errors = _merge_entry(model, update, op_defs[op], states[op])
                errors.extend(entry_errors)
    errors.extend(_check_names(model, op_defs, states, faulty))
    errors.extend(_fields_without_effect(model, states))
    if errors:
        raise OverrideErrors(errors)
    for op, state in states.items():  # the lines that changed something (all, unless a field changed nothing)
        live = {loc for setter in state.live() for loc in setter.field_locs}
        shaped = [loc for loc in model.provenance.pop(op, []) if loc in live]
        if shaped:
            model.provenance[op] = shaped
    renamed_docs = {op: _renamed_docs(model.api_defs[op], state) for op, state in states.items()
                    if state.rename_locs or state.endpoint_loc is not None}
    for api in model.api_defs.values():
        update_docs(api)
    for op, state in states.items():
        renamed_at = {f"{_PART_KINDS[kind]} {name}": loc for (kind, name), loc in state.rename_locs.items()}
        for name, loc in state.default_locs.items():  # an attr's default set, not renamed: that line
            renamed_at.setdefault(f"attr {name}", loc)
        if state.order_loc is not None:  # an input not renamed, placed by arg_order: that line
            renamed_at["arg_order"] = state.order_loc
            for name in model.api_defs[op].arg_order:
                renamed_at.setdefault(f"input {name}", state.order_loc)
        if state.endpoint_loc is not None:
            renamed_at["endpoint"] = state.endpoint_loc
        for name, loc in state.endpoint_locs.items():  # each endpoint's own line (an alias's)
            renamed_at[f"endpoint {name}"] = loc
        if state.visibility_loc is not None:
            renamed_at["visibility"] = state.visibility_loc
        renamed_at.update(_doc_parts(model.api_defs[op], state.doc_locs, renamed_docs.get(op, {})))
        if renamed_at:
            model.renamed_at[op] = renamed_at
    return model


_PART_KINDS = {"in_arg": "input", "out_arg": "output", "attr": "attr"}  # ApiDef field -> OpDef part key


def _doc_args(api: ApiDef) -> Iterator[tuple[str, ApiDef.Arg | ApiDef.Attr]]:
    for kind, args in (("in_arg", api.in_arg), ("out_arg", api.out_arg), ("attr", api.attr)):
        for arg in args:
            yield kind, arg


def _renamed_docs(api: ApiDef, state: MergeState) -> dict[tuple[str, str], Location]:
    """The doc texts (`MergeState.doc_locs` keys) no override field wrote that UpdateDocs
    rewrites for a rename (they quote the old name: `x`), each with that rename's line."""
    renames = [(f"`{arg.name}`", state.rename_locs[(kind, arg.name)]) for kind, arg in _doc_args(api)
               if arg.rename_to and arg.rename_to != arg.name and (kind, arg.name) in state.rename_locs]
    shown = api.endpoint[0].name if api.endpoint else ""
    if is_private_endpoint(api.visibility, shown, api.graph_op_name):  # as `update_docs` names it
        shown = shown[1:]
    if state.endpoint_loc is not None and shown and shown != api.graph_op_name:
        renames.insert(0, (f"`{api.graph_op_name}`", state.endpoint_loc))
    texts = [(("summary", ""), api.summary), (("description", ""), api.description),
             *(((kind, arg.name), arg.description) for kind, arg in _doc_args(api))]
    out = {}
    for key, text in texts:
        at = next((loc for quoted, loc in renames if quoted in text), None) if key not in state.doc_locs else None
        if at is not None:
            out[key] = at
    return out


def _doc_parts(api: ApiDef, written: dict[tuple[str, str], Location],
               renamed: dict[tuple[str, str], Location]) -> dict[str, Location]:
    """`ApiModel.renamed_at`'s doc entries: "doc KEY" the override field that wrote the text,
    "renamed doc KEY" the rename UpdateDocs rewrote it for, KEY as the snapshot's docs name
    it (`summary`, `input values`: an arg by the name the docstring shows)."""
    shown = {(kind, arg.name): arg.rename_to or arg.name for kind, arg in _doc_args(api)}

    def key(kind: str, name: str) -> str:
        return f"{_PART_KINDS[kind]} {shown.get((kind, name), name)}" if name else kind

    return {**{f"doc {key(*k)}": loc for k, loc in written.items()},
            **{f"renamed doc {key(*k)}": loc for k, loc in renamed.items()}}


class OverrideErrors(OpgenErrors):
    """Every error of the override files, in file order (the CLI adds the summary line)."""

    def __init__(self, errors: list[OpgenError]):
        super().__init__(sorted(errors, key=lambda e: e.location or Location("")))


def _check_on_copy(model: ApiModel, update: Update, op_def: op_def_pb2.OpDef, state: MergeState,
                   params: bool) -> list[OpgenError]:
    """The errors merging a faulty entry would give (unknown args, ...) and, with `params`, the
    parameter and output clashes of its renames; the model is left as it was."""
    scratch = ApiDef()
    scratch.CopyFrom(model.api_defs[op_def.name])
    scratch_state = copy.deepcopy(state)
    errors = merge_update(scratch, update, op_def, scratch_state)
    if params and not errors:
        errors = _check_params(op_def.name, op_def, scratch, scratch_state)
    return errors


def _merge_entry(model: ApiModel, update: Update, op_def: op_def_pb2.OpDef, state: MergeState) -> list[OpgenError]:
    api = model.api_defs[op_def.name]
    merged_before = len(state.merged)
    errors = merge_update(api, update, op_def, state)
    locs = sorted({loc for setter in state.merged[merged_before:] for loc in setter.field_locs})
    model.provenance.setdefault(op_def.name, []).extend(locs)
    return errors


# Why a later field replaced an earlier one, by the part it took (`MergeState.holders`).
_REPLACED_HOW = {
    "endpoint": "an `endpoint` list (an OpGenOverride `rename_to` or `alias` alike) replaces all the op's names "
                "before it, aliases included",
    "description": "a `description` replaces the whole text before it, prefixes and suffixes included",
}


def _fields_without_effect(model: ApiModel, states: dict[str, MergeState]) -> list[OpgenError]:
    """The merged fields nothing of the API comes from: each part they set was set again by a
    later override (layers merge in order: the last to set a part wins), or the op is skipped."""
    errors: list[OpgenError] = []
    for op, state in states.items():
        live = state.live()
        for setter in state.merged:
            if setter not in live:
                by, part = state.replaced_by[setter]
                errors.append(OpgenError(
                    f"{op}: {setter.what} has no effect: {by.what} at {by.loc} replaces it", setter.loc,
                    hint="remove it, or make the change in the later override: " + _REPLACED_HOW.get(
                        part[0], "of the overrides setting a part, the last merged wins (layers merge in order: "
                        "a directory's files, then its subdirectories)")))
        if model.api_defs[op].visibility == ApiDef.SKIP:
            skip = state.holders[("visibility",)][0]
            errors.extend(OpgenError(f"{op}: the op is skipped at {skip.loc} (it generates no function), so "
                                     f"{setter.what} has no effect", setter.loc, hint="remove it, or the skip")
                          for setter in live - {skip})
    return errors


def _display(path: Path) -> str:
    """How messages name `path`: relative to the working directory when it lies below it."""
    if path.is_absolute():
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            pass
    return str(path)


def override_layers(root: Path, display: str) -> list[list[tuple[Path, str]]]:
    """The override files under `root` (a directory or one file) as layers in load order:
    (path, path as shown in messages) per file."""
    if not root.exists():
        raise OpgenError("override directory does not exist", Location(display),
                         hint="create it, or point --overrides / [tool.opgen] overrides elsewhere")
    if root.is_file():
        return [[(root, display)]]
    layers: list[list[tuple[Path, str]]] = []

    def walk(directory: Path, shown: str) -> None:
        entries = [p for p in sorted(directory.iterdir(), key=lambda p: p.name) if not p.name.startswith(".")]
        layer = []
        for p in entries:  # anything but a directory is read (a FIFO is rejected when read)
            if p.is_dir():
                continue
            if p.suffix == ".pbtxt":
                layer.append((p, f"{shown}/{p.name}"))
            elif p.suffix != ".md":
                raise OpgenError("not an override file", Location(f"{shown}/{p.name}"),
                                 hint="override files end in .pbtxt (documentation in .md files is allowed)")
        layers.append(layer)
        for sub in entries:
            if sub.is_dir() and sub.name == "java_api":  # TF's api_def tree: not a layer of the Python API
                raise OpgenError("java_api is TensorFlow's ApiDef layer for its Java generator; its Python "
                                 "generator merges base_api and python_api only", Location(f"{shown}/{sub.name}"),
                                 hint="remove the java_api directory from the overrides")
            if sub.is_dir():
                walk(sub, f"{shown}/{sub.name}")

    walk(root, display.rstrip("/") or ".")
    return layers


def _updates(file: OverrideFile, api_defs: dict[str, ApiDef], op_defs: Mapping[str, object],
             errors: list[OpgenError]) -> Iterator[Update]:
    """An Update for each entry of `file`; entries of known ops that change nothing are errors
    (an unknown op's is yielded: that it is unknown is what is wrong with it)."""
    for index, entry in enumerate(file.message.op):
        node = file.root.nth("op", index)
        if file.format == "apidef":
            update = _apidef_update(entry, node)
        else:
            update = _opgen_update(entry, node, api_defs)
        changes = [f.name for f, _ in update.api.ListFields() if f.name != "graph_op_name"]
        if index in file.partial:  # a field did not parse (reported): check what is left
            update.partial = True
            if update.api.graph_op_name:
                yield update
            continue
        if not update.api.graph_op_name:
            key = "graph_op_name" if file.format == "apidef" else "name"
            errors.append(OpgenError(f"override entry has no `{key}`", node.loc,
                                     hint=f"start the entry with `{key}: \"OpName\"`"))
        elif not changes and update.api.graph_op_name in op_defs:
            errors.append(OpgenError(f"override entry for {update.api.graph_op_name} changes nothing",
                                     node.loc, hint="remove the entry or add the fields it should change"))
        else:
            yield update


def _apidef_update(entry: ApiDef, node: Node) -> Update:
    update = Update(ApiDef(), node.loc)
    update.api.CopyFrom(entry)
    seen: Counter[str] = Counter()  # each field's occurrences so far
    for child in node.children:
        occurrence = seen[child.name]
        seen[child.name] += 1
        update.locs[(child.name, occurrence)] = child.loc
        if child.name == "attr" and child.all("default_value"):  # a bad default is located at it
            update.default_locs[occurrence] = child.first("default_value").loc
        if child.name in _PART_KINDS and child.all("description"):  # the line a doc change names
            update.doc_locs[(child.name, occurrence)] = child.first("description").loc
        if child.name == "endpoint":  # (messages name an endpoint or visibility by its value)
            update.setters[("endpoint", occurrence, "")] = Setter(
                child.loc, (child.loc,), f"`endpoint {{ name: {json.dumps(child.first('name').value)} }}`")
        if child.name == "visibility":
            update.setters[("visibility", 0, "")] = Setter(child.loc, (child.loc,), f"`visibility: {child.value}`")
        if child.name == "visibility" and child.value == "DEFAULT_VISIBILITY":  # (TF merges any other value)
            update.problems.append(OpgenError(
                f"{entry.graph_op_name}: `visibility: DEFAULT_VISIBILITY` changes nothing: it is never merged "
                "(TF skips it too)", child.loc, hint="remove it"))
        if child.name in _EMPTY_SKIPPED and child.value == "":
            update.problems.append(_empty_field(entry.graph_op_name, child))
        for empty in (c for c in child.children if child.name in _PART_KINDS and c.name in ("rename_to", "description")
                      and c.value == ""):
            update.problems.append(_empty_field(entry.graph_op_name, empty))
        for sub in ("rename_to", "default_value", "description") if child.name in _PART_KINDS else ():
            if child.all(sub):  # (an arg's fields merge one by one: each is located at itself)
                update.setters[(child.name, occurrence, sub)] = Setter(
                    child.first(sub).loc, (child.loc,), f"the `{sub}` of {child.name} {child.first('name').value!r}")
    return update


# The ApiDef text fields TF's merge passes over when empty (`op_gen_lib.cc` MergeApiDefs sets
# each only `if (!...empty())`), an arg's or attr's `rename_to` and `description` too.
_EMPTY_SKIPPED = ("summary", "description", "description_prefix", "description_suffix", "deprecation_message")


def _empty_field(op: str, node: Node) -> OpgenError:
    """An override field written as "": the merge passes over it, so it has no effect."""
    return OpgenError(f'{op}: `{node.name}: ""` changes nothing: an empty value is never merged (TF skips it too)',
                      node.loc, hint="remove it")


def _opgen_update(entry: op_gen_overrides_pb2.OpGenOverride, node: Node, api_defs: dict[str, ApiDef]) -> Update:
    """An OpGenOverride as an ApiDef update, keeping the location of each part (and the
    entry's own mistakes as the update's problems)."""
    update = Update(ApiDef(graph_op_name=entry.name), node.loc, {("graph_op_name", 0): node.first("name").loc},
                    python_names_only=True)
    api = update.api
    errors = update.problems
    if node.all("rename_to") and not entry.rename_to:
        errors.append(_empty_field(entry.name, node.first("rename_to")))
    for flag in ("skip", "hide"):
        if node.all(flag) and not getattr(entry, flag):
            errors.append(OpgenError(f"{entry.name}: `{flag}: false` changes nothing: it is the default",
                                     node.first(flag).loc, hint="remove it"))
    if entry.skip:
        others = [f.name for f, _ in entry.ListFields() if f.name not in ("name", "skip")]
        if others:
            errors.append(OpgenError(
                f"{entry.name}: a skipped op generates no function, so {', '.join(others)} would be ignored",
                node.first("skip").loc, hint="remove the other fields, or remove `skip: true`"))
            api.visibility = ApiDef.SKIP
            update.locs[("visibility", 0)] = node.first("skip").loc
            return update
        api.visibility = ApiDef.SKIP
        update.locs[("visibility", 0)] = node.first("skip").loc
        update.setters[("visibility", 0, "")] = _field_setter(node.first("skip"), "`skip: true`")
    if entry.hide:
        api.visibility = ApiDef.HIDDEN
        update.locs[("visibility", 0)] = node.first("hide").loc
        update.setters[("visibility", 0, "")] = _field_setter(node.first("hide"), "`hide: true`")
    if entry.rename_to or entry.alias or entry.hide:
        current = api_defs.get(entry.name)
        main = entry.rename_to or (current.endpoint[0].name if current is not None else entry.name)
        api.endpoint.add(name=main)
        update.locs[("endpoint", 0)] = node.first(
            "rename_to" if entry.rename_to else "alias" if entry.alias else "hide"
        ).loc
        kept = set()  # (the fields that set a kept endpoint stay in effect)
        if entry.rename_to:
            update.setters[("endpoint", 0, "")] = _field_setter(node.first("rename_to"),
                                                                f"`rename_to: {json.dumps(entry.rename_to)}`")
        else:  # the function keeps its name (`hide` prefixes it)
            kept.add(0)
            if entry.hide:
                update.setters[("endpoint", 0, "")] = update.setters[("visibility", 0, "")]
        for i, alias in enumerate(entry.alias):
            api.endpoint.add(name=alias)
            update.locs[("endpoint", i + 1)] = node.nth("alias", i).loc
            update.setters[("endpoint", i + 1, "")] = _field_setter(node.nth("alias", i),
                                                                    f"`alias: {json.dumps(alias)}`")
        if entry.hide:
            if not entry.alias and current is not None:  # keep the aliases set earlier
                for endpoint in current.endpoint[1:]:
                    kept.add(len(api.endpoint))
                    api.endpoint.add().CopyFrom(endpoint)
            # OpGenOverride's `hide` makes the function private: `_`-prefixed (ApiDef HIDDEN
            # alone keeps TF's rule, `python_op_gen.cc`, which prefixes only some names).
            if not main.startswith("_"):  # `python_api.signature.is_private_endpoint`
                api.endpoint[0].name = "_" + main
        update.kept_endpoints = frozenset(kept)
    attrs: dict[str, ApiDef.Attr] = {}
    positions: dict[str, int] = {}  # each attr's index in `attrs` (insertion order)
    for i, default in enumerate(entry.attr_default):
        loc = node.nth("attr_default", i).loc
        attr = _entry_for(attrs, api.attr, default.name, update, "attr", loc)
        positions.setdefault(default.name, len(positions))
        if attr.HasField("default_value"):
            errors.append(OpgenError(f"{entry.name}: attr_default for {default.name!r} given twice", loc))
        if not default.HasField("value"):
            errors.append(OpgenError(f"{entry.name}: attr_default for {default.name!r} has no `value`", loc))
            continue
        attr.default_value.CopyFrom(default.value)
        update.default_locs[positions[default.name]] = node.nth("attr_default", i).first("value").loc
        update.setters[("attr", positions[default.name], "default_value")] = _field_setter(
            node.nth("attr_default", i), f"`attr_default` of {default.name!r}")
    for field_name, kind, repeated, by_name in (("attr_rename", "attr", api.attr, attrs),
                                                ("input_rename", "in_arg", api.in_arg, {}),
                                                ("output_rename", "out_arg", api.out_arg, {})):
        for i, rename in enumerate(getattr(entry, field_name)):
            loc = node.nth(field_name, i).loc
            target = _entry_for(by_name, repeated, getattr(rename, "from"), update, kind, loc)
            update.setters[(kind, list(by_name).index(target.name), "rename_to")] = _field_setter(
                node.nth(field_name, i), f"`{field_name}` of {target.name!r}")
            if target.rename_to:
                errors.append(OpgenError(f"{entry.name}: {field_name} renames {target.name!r} twice", loc))
            if not rename.to:
                errors.append(OpgenError(f"{entry.name}: {field_name} of {target.name!r} has an empty `to`", loc))
            target.rename_to = rename.to
    return update


def _field_setter(node: Node, what: str) -> Setter:
    """An OpGenOverride field, which sets its part of the API on its own."""
    return Setter(node.loc, (node.loc,), what)


def _entry_for(
    by_name: dict[str, _Entry], repeated: Any, name: str, update: Update, kind: str, loc: Location
) -> _Entry:
    """The update's arg/attr entry for `name`, created (and located) on first use (`repeated`:
    the ApiDef's field the entry is added to, a protobuf container: Any without protobuf's stubs)."""
    if name not in by_name:
        update.locs[(kind, len(repeated))] = loc
        by_name[name] = repeated.add(name=name)
    return by_name[name]


def _check_names(model: ApiModel, op_defs: dict[str, op_def_pb2.OpDef],
                 states: dict[str, MergeState], faulty: set[str]) -> list[OpgenError]:
    """Collisions the merged model would render: functions, parameters, namedtuple fields;
    none involving a `faulty` op (an entry of it was not applied)."""
    errors: list[OpgenError] = []
    functions: dict[str, str] = {}  # Python name -> op
    for op in sorted(op_defs, key=lambda n: (states[n].endpoint_loc is not None, n)):
        api, state = model.api_defs[op], states[op]
        if api.visibility == ApiDef.SKIP:
            continue
        view = ApiView.of(api)
        main = python_function_name(view)
        if main is None:
            if state.endpoint_loc is not None:
                errors.append(OpgenError(
                    f"{op}: API name {api.endpoint[0].name!r} gives function name "
                    f"{endpoint_base_name(api.endpoint[0].name)!r}, a Python keyword or reserved name",
                    state.endpoint_loc, hint="choose another name, or hide the op"))
            continue
        private = is_private_endpoint(api.visibility, api.endpoint[0].name if api.endpoint else "", op)
        names = [(main, None)] + [(python_alias_name(api.visibility, e.name, private), endpoint_base_name(e.name))
                                  for e in api.endpoint[1:]]
        for name, alias_base in names:
            problem = "the module's own imports" if name in MODULE_GLOBALS else None
            if name in functions:
                other = functions[name]
                if faulty & {op, other} or other == op:  # (`math.acos` and `acos`: one name)
                    continue
                named_at = f" (named at {states[other].endpoint_loc})" if states[other].endpoint_loc else ""
                problem = f"the function of op {other}{named_at}"
            elif alias_base is not None and bad_identifier(alias_base):
                problem = "a Python keyword or reserved name"
                name = alias_base
            if problem and state.endpoint_loc is not None:
                errors.append(OpgenError(f"{op}: function name {name!r} collides with {problem}",
                                         state.endpoint_loc, hint="choose another rename_to/alias or endpoint"))
            functions.setdefault(name, op)
        if op not in faulty:
            errors.extend(_check_params(op, op_defs[op], api, state))
    return errors


def _check_params(op: str, op_def: op_def_pb2.OpDef, api: ApiDef, state: MergeState) -> list[OpgenError]:
    """Parameter and namedtuple-field clashes, at the rename that caused each (whichever of
    the two names comes first)."""
    errors: list[OpgenError] = []
    # Python name -> (what it binds, where it was renamed to that name or None)
    seen: dict[str, tuple[str, Location | None]] = {"name": ("the `name` parameter", None)}
    for param in python_params(op_def, ApiView.of(api)):
        kind = "in_arg" if param.kind == "input" else "attr"
        what = f"{'input' if kind == 'in_arg' else 'attr'} {param.graph_name!r}"
        loc = state.rename_locs.get((kind, param.graph_name))
        if param.name in seen:
            other, other_loc = seen[param.name]
            if loc is not None:
                errors.append(OpgenError(f"{op}: renaming {what} to {param.name!r} collides with {other}",
                                         loc, hint="parameter names must be unique"))
            elif other_loc is not None:
                errors.append(OpgenError(f"{op}: renaming {other} to {param.name!r} collides with {what}",
                                         other_loc, hint="parameter names must be unique"))
        seen.setdefault(param.name, (what, loc))
    fields: dict[str, tuple[str, Location | None]] = {}
    for out in api.out_arg:
        name = out.rename_to or out.name
        loc = state.rename_locs.get(("out_arg", out.name))
        if name in fields:
            other, other_loc = fields[name]
            if loc is not None or other_loc is not None:
                renamed, kept = (out.name, other) if loc is not None else (other, out.name)
                errors.append(OpgenError(f"{op}: renaming output {renamed!r} to {name!r} collides with output "
                                         f"{kept!r}", loc or other_loc,
                                         hint="output (namedtuple field) names must be unique"))
        fields.setdefault(name, (out.name, loc))
    return errors


# --- `opgen oplist --api`: the model, readably ---


def api_model_entries(model: ApiModel, op_list: op_def_pb2.OpList | None = None) -> list[dict[str, Any]]:
    """Per op (sorted by name): the Python function it renders to (None when it gets none, and
    why), its parameters with their defaults (None without its OpDef), visibility, aliases, the
    override lines that shaped it, and its ApiDef after merging and UpdateDocs (as protobuf's
    JSON mapping gives it)."""
    op_defs = {op.name: op for op in op_list.op} if op_list is not None else {}
    entries = []
    for name in sorted(model.api_defs):
        api = model.api_defs[name]
        view = ApiView.of(api)
        fn = python_function_name(view)
        params = None
        if fn is not None and name in op_defs:
            params = [{"name": p.name, "default": None if p.default is None else attr_value_text(p.default)}
                      for p in python_params(op_defs[name], view)]
        entries.append({
            "op": name,
            "function": fn,
            "no_function": None if fn is not None else (
                "skipped" if api.visibility == ApiDef.SKIP else "a visible op named like a Python keyword"),
            "params": params,
            "visibility": ApiDef.Visibility.Name(api.visibility),
            "aliases": [{"name": a, "deprecated": d} for a, d in python_aliases(view)],
            "changed_by": [str(loc) for loc in model.provenance.get(name, ())],
            "api_def": json_format.MessageToDict(api, preserving_proto_field_name=True),
            "api_def_text": text_format.MessageToString(api, as_utf8=True, indent=2).rstrip("\n"),
        })
    return entries


def describe_api_model(model: ApiModel, op_list: op_def_pb2.OpList | None = None, fmt: str = "text") -> str:
    """`api_model_entries` as JSON (`fmt` "json"), or readably: per op, the Python signature it
    renders to, aliases, the override lines that shaped it, then its ApiDef as text proto."""
    entries = api_model_entries(model, op_list)
    if fmt == "json":
        for entry in entries:
            del entry["api_def_text"]
        return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"
    blocks = []
    for entry in entries:
        lines = [f"== {entry['op']}"]
        visibility = entry["visibility"]
        if entry["function"] is None:
            lines.append(f"python: (no function: {entry['no_function']}) [{visibility}]")
        elif entry["params"] is not None:
            params = [p["name"] + ("" if p["default"] is None else "=" + p["default"]) for p in entry["params"]]
            lines.append(f"python: def {entry['function']}({', '.join([*params, 'name=None'])}) [{visibility}]")
        else:
            lines.append(f"python: def {entry['function']}(...) [{visibility}]")
        if entry["aliases"]:
            lines.append("aliases: " + ", ".join(a["name"] + (" (deprecated)" if a["deprecated"] else "")
                                                 for a in entry["aliases"]))
        if entry["changed_by"]:
            lines.append("changed by: " + ", ".join(entry["changed_by"]))
        lines.append(entry["api_def_text"])
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n" if blocks else ""


def attr_value_text(value: attr_value_pb2.AttrValue) -> str:
    """A short Python-like spelling of an attr value (for the signature line only)."""
    kind = value.WhichOneof("value")
    if kind == "list":
        for field_name in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(value.list, field_name)
            if len(items):
                return "[" + ", ".join(_scalar_text(field_name, v) for v in items) + "]"
        return "[]"
    return _scalar_text(kind, getattr(value, kind)) if kind else "?"


def _scalar_text(kind: str, v: Any) -> str:  # v: the AttrValue field `kind` names
    if kind == "s":
        return repr(v.decode("utf-8", "backslashreplace"))
    if kind == "b":
        return "True" if v else "False"
    if kind == "type":
        return f"_dtypes.{datatypes.BY_ENUM[v].generator}" if v in datatypes.BY_ENUM else f"<DataType {v}>"
    if kind == "shape":
        return "None" if v.unknown_rank else "[" + ", ".join(str(d.size) for d in v.dim) + "]"
    if kind in ("tensor", "func"):
        return f"<{kind}>"
    return repr(v)
