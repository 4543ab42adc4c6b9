"""The Python view of an ApiDef that override validation needs before anything is rendered:
the function's name, its aliases and its parameters (names, graph names, defaults), and the
attrs inputs infer. `opgen.python_api.function` builds the full `FunctionApi` on these."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Literal, NamedTuple

from opgen.proto import api_def_pb2
from opgen.python_api.names import avoid_reserved, avoid_shadowing_builtins, endpoint_base_name, function_name
from opgen_runtime.proto import attr_value_pb2, op_def_pb2


class PyParam(NamedTuple):  # a tuple: built for every parameter of every op, faster than a frozen dataclass
    """One parameter of an op's Python function (before `name=None`)."""

    name: str  # the Python name: ApiDef rename_to through AvoidPythonReserved
    graph_name: str  # the OpDef name, i.e. the `_apply_op_helper` keyword
    kind: Literal["input", "attr"]
    default: attr_value_pb2.AttrValue | None  # the ApiDef default (attrs only)


class ApiView(NamedTuple):  # a tuple, as PyParam
    """The fields of an op's ApiDef that its Python API reads, as plain values read once (each
    read of a protobuf field builds new Python objects).

    `ApiView.seed(op_def)` is TF's seed ApiDef (`opgen.overrides.apidef.default_api_def`) read
    straight from the OpDef, so rendering an op without overrides builds no ApiDef;
    tests/render/test_api_view.py checks both give the same API for every op.
    """

    graph_op_name: str
    visibility: int  # api_def_pb2.ApiDef.Visibility
    endpoints: tuple[tuple[str, bool], ...]  # (name, deprecated)
    summary: str
    description: str
    arg_order: tuple[str, ...]
    in_args: dict[str, tuple[str, str]]  # OpDef name -> (rename_to, description)
    out_args: dict[str, tuple[str, str]]  # OpDef name -> (rename_to, description)
    # OpDef name -> (rename_to, description, default)
    attrs: dict[str, tuple[str, str, attr_value_pb2.AttrValue | None]]

    @classmethod
    def of(cls, api: api_def_pb2.ApiDef) -> ApiView:
        return cls(
            api.graph_op_name,
            api.visibility,
            tuple((e.name, e.deprecated) for e in api.endpoint),
            api.summary,
            api.description,
            tuple(api.arg_order),
            {a.name: (a.rename_to, a.description) for a in api.in_arg},
            {a.name: (a.rename_to, a.description) for a in api.out_arg},
            {a.name: (a.rename_to, a.description, a.default_value if a.HasField("default_value") else None)
             for a in api.attr},
        )

    @classmethod
    def seed(cls, op_def: op_def_pb2.OpDef) -> ApiView:
        """`ApiView.of(default_api_def(op_def))`, without the ApiDef."""
        name = op_def.name
        inputs = [(a.name, a.description) for a in op_def.input_arg]
        return cls(
            name,
            api_def_pb2.ApiDef.VISIBLE,
            ((name, False),),
            op_def.summary,
            op_def.description,
            tuple([n for n, _ in inputs]),
            {n: (n, d) for n, d in inputs},
            {a.name: (a.name, a.description) for a in op_def.output_arg},
            {a.name: (a.name, a.description, a.default_value if a.HasField("default_value") else None)
             for a in op_def.attr},
        )


def inferred_attrs(op_def: op_def_pb2.OpDef) -> set[str]:
    """Attrs some input refers to (type, type list or length); never parameters (`python_op_gen_internal.cc`
    GenPythonOp: inferred attrs)."""
    names: set[str] = set()
    for arg in op_def.input_arg:
        names.update(n for n in (arg.type_attr, arg.type_list_attr, arg.number_attr) if n)
    return names


def python_params(
    op_def: op_def_pb2.OpDef, api: ApiView, inferred: AbstractSet[str] | None = None
) -> list[PyParam]:
    """Inputs in arg_order, then attrs without default, then attrs with default (`python_op_gen_internal.cc`
    GenPythonOp::Code); `inferred` is `inferred_attrs(op_def)` when the caller has it."""
    in_args = api.in_args
    params = [
        PyParam(avoid_reserved(in_args[n][0] or n), n, "input", None)
        for n in (api.arg_order or [a.name for a in op_def.input_arg])
    ]
    if inferred is None:
        inferred = inferred_attrs(op_def)
    api_attrs = api.attrs
    required: list[PyParam] = []
    defaulted: list[PyParam] = []
    for attr in op_def.attr:
        name = attr.name
        if name in inferred:
            continue
        entry = api_attrs.get(name)
        if entry is None:
            required.append(PyParam(avoid_reserved(name), name, "attr", None))
            continue
        rename, _, default = entry
        param = PyParam(avoid_reserved(rename or name), name, "attr", default)
        (required if default is None else defaulted).append(param)
    return params + required + defaulted


def python_function_name(api: ApiView) -> str | None:
    """The `def` name (from the first endpoint; `python_op_gen.cc` GetPythonOpsImpl); None for SKIP or a
    dropped reserved name."""
    if api.visibility == api_def_pb2.ApiDef.SKIP:
        return None
    endpoint = api.endpoints[0][0] if api.endpoints else api.graph_op_name
    hidden = api.visibility == api_def_pb2.ApiDef.HIDDEN
    if is_private_endpoint(api.visibility, endpoint if api.endpoints else "", api.graph_op_name):
        # OpGenOverride `hide`: always `_` + the snake-case name
        return "_" + endpoint_base_name(endpoint[1:])
    return function_name(endpoint_base_name(endpoint), hidden=hidden, hidden_by_api_def=hidden)


def is_private_endpoint(visibility: int, first_endpoint: str, graph_op_name: str) -> bool:
    """A hidden op whose first endpoint (\"\" for none) got a `_` its op name lacks (what
    OpGenOverride `hide` writes, `Neg` -> `_Neg`): its function is `_neg`, unlike TF's HIDDEN
    rule, which keeps most names (and turns an op named `_Arg` into `__arg`)."""
    return (visibility == api_def_pb2.ApiDef.HIDDEN and first_endpoint.startswith("_")
            and first_endpoint != graph_op_name)


def python_aliases(api: ApiView) -> list[tuple[str, bool]]:
    """Further module-level names of the function, from endpoints 2..n: (name, deprecated).

    Reserved names get `_` appended; a hidden op's aliases get a `_` prefix as its function
    does (`python_alias_name`). Endpoints whose names coincide once their namespace is dropped
    (TF's `math.acos` and `acos`) give one name.
    """
    if len(api.endpoints) < 2:
        return []
    main = python_function_name(api)
    if main is None:
        return []
    seen = {main}
    aliases = []
    private = is_private_endpoint(api.visibility, api.endpoints[0][0], api.graph_op_name)
    for endpoint, deprecated in api.endpoints[1:]:
        name = python_alias_name(api.visibility, endpoint, private)
        if name not in seen:
            seen.add(name)
            aliases.append((name, deprecated))
    return aliases


def python_alias_name(visibility: int, endpoint: str, private: bool) -> str:
    """The module-level name an extra endpoint gives the function of an op of that (ApiDef)
    visibility: with a `_` prefix as the function gets one, always for a `private` op
    (`is_private_endpoint`), else by TF's HIDDEN rule (`function_name`: a reserved name or one
    of TF's list)."""
    base = endpoint_base_name(endpoint)
    name = avoid_shadowing_builtins(avoid_reserved(base))
    if visibility == api_def_pb2.ApiDef.HIDDEN and not name.startswith("_") and (
        private or function_name(base, hidden=True, hidden_by_api_def=True) != base
    ):
        name = "_" + name
    return name
