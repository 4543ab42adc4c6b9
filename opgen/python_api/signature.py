"""The Python view of an ApiDef that override validation needs before anything is rendered:
the function's name, its aliases and its parameters (names, graph names, defaults), and the
attrs inputs infer. `opgen.python_api.function` builds the full `FunctionApi` on these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from opgen.proto import api_def_pb2
from opgen.python_api.names import avoid_body_builtins, avoid_reserved, endpoint_base_name, function_name
from opgen_runtime.proto import attr_value_pb2, op_def_pb2


@dataclass(frozen=True)
class PyParam:
    """One parameter of an op's Python function (before `name=None`)."""

    name: str  # the Python name: ApiDef rename_to through AvoidPythonReserved
    graph_name: str  # the OpDef name, i.e. the `_apply_op_helper` keyword
    kind: Literal["input", "attr"]
    default: attr_value_pb2.AttrValue | None  # the ApiDef default (attrs only)


def inferred_attrs(op_def: op_def_pb2.OpDef) -> set[str]:
    """Attrs some input refers to (type, type list or length); never parameters (`python_op_gen_internal.cc`
    GenPythonOp: inferred attrs)."""
    names: set[str] = set()
    for arg in op_def.input_arg:
        names.update(n for n in (arg.type_attr, arg.type_list_attr, arg.number_attr) if n)
    return names


def python_params(op_def: op_def_pb2.OpDef, api: api_def_pb2.ApiDef) -> list[PyParam]:
    """Inputs in arg_order, then attrs without default, then attrs with default (`python_op_gen_internal.cc`
    GenPythonOp::Code)."""
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
    """The `def` name (from the first endpoint; `python_op_gen.cc` GetPythonOpsImpl); None for SKIP or a
    dropped reserved name."""
    if api.visibility == api_def_pb2.ApiDef.SKIP:
        return None
    endpoint = api.endpoint[0].name if api.endpoint else api.graph_op_name
    hidden = api.visibility == api_def_pb2.ApiDef.HIDDEN
    if is_private_endpoint(api):  # OpGenOverride `hide`: always `_` + the snake-case name
        return "_" + endpoint_base_name(endpoint[1:])
    return function_name(endpoint_base_name(endpoint), hidden=hidden, hidden_by_api_def=hidden)


def is_private_endpoint(api: api_def_pb2.ApiDef) -> bool:
    """A hidden op whose first endpoint got a `_` its op name lacks (what OpGenOverride `hide`
    writes, `Neg` -> `_Neg`): its function is `_neg`, unlike TF's HIDDEN rule, which keeps
    most names (and turns an op named `_Arg` into `__arg`)."""
    return (api.visibility == api_def_pb2.ApiDef.HIDDEN and bool(api.endpoint)
            and api.endpoint[0].name.startswith("_") and api.endpoint[0].name != api.graph_op_name)


def python_aliases(api: api_def_pb2.ApiDef) -> list[tuple[str, bool]]:
    """Further module-level names of the function, from endpoints 2..n: (name, deprecated).

    Same rule as `opgen.python_api.function`: reserved names get `_` appended, a hidden op's
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
