"""The per-op Python API model: one `ApiDef` per op, as TF's ApiDefMap holds it.

Overrides (OpGenOverride files and TF ApiDef files) compile into this model
(`opgen.overrides`); rendering and API snapshots consume only this model, so there is
one code path for both override formats. Mapping of OpGenOverride fields (tf_semantics I9):
skip -> visibility SKIP, hide -> HIDDEN, rename_to -> endpoint[0].name, alias -> further
endpoints, attr_default -> attr.default_value, *_rename -> arg/attr rename_to.

The Python function is named after the FIRST ENDPOINT (its last dotted component, F4
snake case, F3 hidden/reserved rules), further endpoints become module-level aliases.
TF itself always names the function after the op and uses endpoints only for
`tf_export`; the two agree whenever endpoint[0] is the op name (the default, and every
ApiDef file in tests/data/tf_python_api).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from opgen.errors import Location
from opgen.naming import avoid_body_builtins, avoid_reserved, endpoint_base_name, function_name
from opgen.proto import api_def_pb2, attr_value_pb2, op_def_pb2


def default_api_def(op_def: op_def_pb2.OpDef) -> api_def_pb2.ApiDef:
    """TF's ApiDefMap seed for an op (tf_semantics I4): visible, one endpoint named like the op."""
    api = api_def_pb2.ApiDef(
        graph_op_name=op_def.name,
        visibility=api_def_pb2.ApiDef.VISIBLE,
        summary=op_def.summary,
        description=op_def.description,
    )
    api.endpoint.add(name=op_def.name)
    for arg in op_def.input_arg:
        api.in_arg.add(name=arg.name, rename_to=arg.name, description=arg.description)
        api.arg_order.append(arg.name)
    for arg in op_def.output_arg:
        api.out_arg.add(name=arg.name, rename_to=arg.name, description=arg.description)
    for attr in op_def.attr:
        entry = api.attr.add(name=attr.name, rename_to=attr.name, description=attr.description)
        if attr.HasField("default_value"):
            entry.default_value.CopyFrom(attr.default_value)
    return api


@dataclass
class ApiModel:
    """ApiDefs by graph op name (after merging and UpdateDocs) and where each was shaped."""

    api_defs: dict[str, api_def_pb2.ApiDef]
    # op name -> the override file lines that changed its API (for the source map and diffs)
    provenance: dict[str, list[Location]] = field(default_factory=dict)

    def get(self, op_def: op_def_pb2.OpDef) -> api_def_pb2.ApiDef:
        api = self.api_defs.get(op_def.name)
        return api if api is not None else default_api_def(op_def)


def default_api_model(op_list: op_def_pb2.OpList) -> ApiModel:
    return ApiModel({op.name: default_api_def(op) for op in op_list.op})


# --- The Python view of an ApiDef (F3, F6, F7): shared by override validation and render ---


@dataclass(frozen=True)
class PyParam:
    """One parameter of an op's Python function (before `name=None`)."""

    name: str  # the Python name: ApiDef rename_to through AvoidPythonReserved
    graph_name: str  # the OpDef name, i.e. the `_apply_op_helper` keyword
    kind: Literal["input", "attr"]
    default: attr_value_pb2.AttrValue | None  # the ApiDef default (attrs only)


def inferred_attrs(op_def: op_def_pb2.OpDef) -> set[str]:
    """F6: attrs some input refers to (type, type list or length); never parameters."""
    names: set[str] = set()
    for arg in op_def.input_arg:
        names.update(n for n in (arg.type_attr, arg.type_list_attr, arg.number_attr) if n)
    return names


def python_params(op_def: op_def_pb2.OpDef, api: api_def_pb2.ApiDef) -> list[PyParam]:
    """F7: inputs in arg_order, then attrs without default, then attrs with default."""
    in_args = {a.name: a for a in api.in_arg}
    params = [
        PyParam(avoid_reserved(in_args[n].rename_to or n), n, "input", None)
        for n in (api.arg_order or [a.name for a in op_def.input_arg])
    ]
    api_attrs = {a.name: a for a in api.attr}
    inferred = inferred_attrs(op_def)
    required: list[PyParam] = []
    defaulted: list[PyParam] = []
    for attr in op_def.attr:
        if attr.name in inferred:
            continue
        entry = api_attrs.get(attr.name)
        rename = entry.rename_to if entry is not None and entry.rename_to else attr.name
        if entry is not None and entry.HasField("default_value"):
            defaulted.append(PyParam(avoid_reserved(rename), attr.name, "attr", entry.default_value))
        else:
            required.append(PyParam(avoid_reserved(rename), attr.name, "attr", None))
    return params + required + defaulted


def python_function_name(api: api_def_pb2.ApiDef) -> str | None:
    """The `def` name (F3 from the first endpoint, I9); None for SKIP or a dropped reserved name."""
    if api.visibility == api_def_pb2.ApiDef.SKIP:
        return None
    endpoint = api.endpoint[0].name if api.endpoint else api.graph_op_name
    hidden = api.visibility == api_def_pb2.ApiDef.HIDDEN
    return function_name(endpoint_base_name(endpoint), hidden=hidden, hidden_by_api_def=hidden)


def python_aliases(api: api_def_pb2.ApiDef) -> list[tuple[str, bool]]:
    """Further module-level names of the function, from endpoints 2..n: (name, deprecated).

    Same rule as `opgen.render.pyapi`: reserved names get `_` appended, a hidden op's
    aliases are `_`-prefixed like the op.
    """
    main = python_function_name(api)
    if main is None:
        return []
    seen = {main}
    aliases = []
    for endpoint in api.endpoint[1:]:
        name = python_alias_name(api, endpoint.name)
        if name not in seen:
            seen.add(name)
            aliases.append((name, endpoint.deprecated))
    return aliases


def python_alias_name(api: api_def_pb2.ApiDef, endpoint: str) -> str:
    """The module-level name an extra endpoint gives the function of `api`."""
    name = avoid_body_builtins(avoid_reserved(endpoint_base_name(endpoint)))
    if api.visibility == api_def_pb2.ApiDef.HIDDEN and not name.startswith("_"):
        name = "_" + name
    return name
