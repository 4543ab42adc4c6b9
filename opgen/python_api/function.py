"""THE mapping OpDef + ApiDef -> the Python API of one generated wrapper, as TF's
`python_op_gen.cc` (GetPythonOpsImpl, GenEagerPythonOp) and `python_op_gen_internal.cc`
(GenPythonOp) decide it.

Templates, API snapshots and `opgen diff` all read these frozen dataclasses; nothing else
decides names, parameter order, defaults, annotations, TypeVars, outputs or docstrings.
Rendered pieces (`default`, `annotation`, ...) are Python source produced by
`opgen.python_api.literals`, safe to paste into code.

Entry points: `function_api(op_def, api_def | None) -> FunctionApi | SkippedOp` and
`module_api(name, op_defs, api_model) -> ModuleApi`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from opgen.errors import Location, OpgenError
from opgen.model import OpSource
from opgen.overrides.apidef import ApiModel
from opgen.proto import api_def_pb2
from opgen.python_api import docstrings
from opgen.python_api.literals import annotation_class, attr_default, py_str
from opgen.python_api.names import PY_RESERVED, avoid_reserved, identifier_problem, lower_case_op_name
from opgen.python_api.signature import ApiView, python_aliases, python_function_name, python_params
from opgen_runtime.graph.graph import GRAPH_DEF_VERSION
from opgen_runtime.proto import attr_value_pb2, op_def_pb2
from opgen_runtime.proto.datatypes import BY_ENUM

# All annotation classes, sorted as strings: the constraints of a TypeVar whose attr allows any type.
_ALL_ANNOTATIONS = tuple(sorted({f"_atypes.{n.annotation}" for n in BY_ENUM.values()} | {"_atypes.Float16"}))

_CONVERTERS = {
    "string": "make_str",
    "int": "make_int",
    "float": "make_float",
    "bool": "make_bool",
    "type": "make_type",
    "shape": "make_shape",
    "tensor": "make_tensor",
}
_SUPPORTED_ATTR_TYPES = frozenset(_CONVERTERS) | {"func"} | {f"list({t})" for t in (*_CONVERTERS, "func")}
# An attr's Python type by its (scalar) AttrDef type; strings with allowed values get a Literal.
_ATTR_ANNOTATIONS = {
    "bool": "bool",
    "int": "int",
    "float": "float",
    "string": "str",
    "type": "_api_types.DTypeLike",
    "shape": "_api_types.ShapeLike",
    "tensor": "_api_types.TensorProtoLike",
    "func": "_api_types.FuncLike",
}


@dataclass(frozen=True)
class TypeVarDef:
    name: str  # TV_<Op>_<attr>
    constraints: tuple[str, ...]  # constraint expressions, e.g. ("_atypes.Float32", ...)
    bound: str | None  # `_atypes.X` when exactly one type is allowed


@dataclass(frozen=True)
class Param:
    name: str  # Python parameter name (ApiDef rename, AvoidPythonReserved)
    keyword: str  # `_apply_op_helper` keyword: OpDef name through AvoidPythonReserved
    op_def_name: str  # the OpDef arg or attr it feeds
    kind: str  # "input" | "attr"
    annotation: str  # annotation source (`opgen_runtime.api_types` aliases, builtins, Literal)
    default: str | None  # default value source; None = required
    doc: str  # the Args entry, unindented (`x: A `Tensor`. ...`)
    attr_type: str | None = None  # attrs: "int", "list(type)", ...
    converter: str | None = None  # attrs: `_execute` function converting the value (None for func)
    is_list: bool = False  # attrs: a list(...) attr; inputs: a list input
    local: str | None = None  # attrs: the body's local holding the converted value (`_attr_<name>`)


@dataclass(frozen=True)
class ListLength:
    """An int attr inferred from list inputs: `_attr_<N> = len(first)`, others must match."""

    attr: str
    inputs: tuple[str, ...]  # parameter names, arg_order
    first_op_def_name: str  # OpDef name of the first input, for the mismatch message


@dataclass(frozen=True)
class Output:
    name: str  # OpDef output name (docstrings)
    field: str  # namedtuple field (ApiDef rename, AvoidPythonReserved)
    is_list: bool
    size: str | None  # list size expression (`_attr_N`, `num_split`, `len(x)`), lists only
    annotation: str = "_api_types.Tensor"  # the namedtuple field's type (`list[...]` for a list)


@dataclass(frozen=True)
class FunctionApi:
    op_name: str  # graph op name, passed to `_apply_op_helper`
    name: str  # the wrapper's Python name
    op_name_for_messages: str  # `name` without one leading `_` (as TF's messages)
    # in `__all__` and dispatched through TF's API dispatch (ApiDef VISIBLE); hidden ones are
    # `_`-prefixed unless TF's naming rule says otherwise
    visible: bool
    aliases: tuple[str, ...]  # further module-level names bound to this function (extra endpoints)
    deprecated_aliases: frozenset[str]  # those that warn when called (`endpoint { deprecated: true }`)
    params: tuple[Param, ...]  # in signature order, without the trailing `name=None`
    typevars: tuple[TypeVarDef, ...]
    return_annotation: str
    outputs: tuple[Output, ...]
    namedtuple: str | None  # `_<Op>Output` class name when there are several outputs
    namedtuple_typename: str | None  # the namedtuple's type name (`<Op>`)
    list_lengths: tuple[ListLength, ...]
    is_stateful: bool
    docstring: str  # cleandoc'ed text (Args/Returns at column 0)
    # TF's eager fast path: `TFE_Py_FastPathExecute` arguments after the op name and `name`
    # (inputs in OpDef order, then `"attr", value` for each attr not inferred from inputs).
    eager_args: tuple[str, ...] = ()
    # Ops with ref arguments cannot run eagerly: TF's RuntimeError message.
    eager_unsupported: str | None = None

    @property
    def inputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind == "input")

    @property
    def attrs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind == "attr")

    def signature_text(self) -> str:
        """`name(x, y, keep_dims=False, name=None)`: the signature without annotations."""
        return signature_text(self.name, [(p.name, p.default) for p in self.params])


def signature_text(name: str, params: Iterable[tuple[str, str | None]]) -> str:
    """Function `name`'s signature without annotations, from its (name, default source or
    None) parameters before the trailing `name=None` (what API snapshots record)."""
    parts = [param if default is None else f"{param}={default}" for param, default in params]
    return f"{name}({', '.join([*parts, 'name=None'])})"


@dataclass(frozen=True)
class SkippedOp:
    op_name: str
    reason: str  # "skip" (ApiDef SKIP), "reserved" (visible op named like a keyword), "unsupported attr type"


def reserved_name_warning(ops: list[tuple[str, Location | None]]) -> str:
    """The warning for visible ops (name, where) that get no function because their Python
    name is reserved: TF's python_op_gen (GetPythonOpsImpl) drops them without a word; opgen
    keeps the behaviour (a drop-in module has the same functions) but says so, once, with the
    way out."""
    (op_name, location), *others = ops
    base = lower_case_op_name(op_name)
    if others:
        names = ", ".join(f"'{name}'" for name, _ in ops)
        message = (f"{len(ops)} ops get no Python function: their names are Python keywords or reserved names "
                   f"(TensorFlow's generated wrappers skip them too): {names}")
    else:
        message = (f"op '{op_name}' gets no Python function: its name '{base}' is a Python keyword or reserved "
                   "name (TensorFlow's generated wrappers skip it too)")
    return OpgenError(
        message,
        location,
        hint=f'give it another name with an override (op {{ name: "{op_name}" rename_to: "{op_name}Op" }}, or '
        f'an ApiDef\'s endpoint {{ name: "{op_name}Op" }}) or hide it (hide: true, or visibility: HIDDEN, '
        f"generates _{base})",
    ).format_warning()


@dataclass(frozen=True)
class ModuleApi:
    name: str  # module name, e.g. gen_math_ops
    functions: tuple[FunctionApi, ...]  # in OpList order
    skipped: tuple[SkippedOp, ...]

    @property
    def exports(self) -> tuple[str, ...]:
        """`__all__`: visible functions and their aliases, in order."""
        names: list[str] = []
        for f in self.functions:
            if f.visible:
                names.append(f.name)
                names.extend(f.aliases)
        return tuple(names)


def _check_identifier(name: str, what: str, op_name: str) -> str:
    """`name` if `opgen.python_api.names.identifier_problem` accepts it, else a (caller-located) error."""
    problem = identifier_problem(name)
    if problem:
        raise OpgenError(
            f"op {ascii(op_name)[1:-1]}: {what} {name!a} {problem}",
            hint="names reaching generated Python must be ASCII identifiers: fix the OpDef, or rename it with an "
                 "override",
        )
    return name


def _typevar(op_name: str, attr: op_def_pb2.OpDef.AttrDef) -> TypeVarDef:
    name = avoid_reserved(f"TV_{op_name}_{attr.name}")
    allowed = tuple(attr.allowed_values.list.type)
    if len(allowed) == 1:
        return TypeVarDef(name, (), f"_atypes.{annotation_class(allowed[0])}")
    if not allowed:
        return TypeVarDef(name, _ALL_ANNOTATIONS, None)
    return TypeVarDef(name, _constraints(allowed), None)


@functools.lru_cache(maxsize=1024)  # ops share a few dozen type constraints (TF_CALL_* sets)
def _constraints(allowed: tuple[int, ...]) -> tuple[str, ...]:
    """The TypeVar constraints of a type attr allowing several types: their annotation classes, sorted."""
    return tuple(sorted({f"_atypes.{annotation_class(t)}" for t in allowed}))


class PartError(OpgenError):
    """An error about one declared part of the op (`part`: `attr name`, an `OpSource.parts`
    key), located at that part's line by `located_function_api`."""

    def __init__(self, message: str, hint: str, part: str):
        super().__init__(message, hint=hint)
        self.part = part


def is_retired(op_def: op_def_pb2.OpDef) -> bool:
    """True when every call of the op's wrapper raises with TensorFlow 2.21: the op is
    deprecated (`.Deprecated(version, ...)`) at a GraphDef version TF 2.21 already produces
    (TF_GRAPH_DEF_VERSION; eagerly TF's `CheckOpDeprecation` in `op_def_util.cc`, in a graph
    `_apply_op_helper` in `op_def_library.py`). Graphs saved before that version still load."""
    return op_def.HasField("deprecation") and op_def.deprecation.version <= GRAPH_DEF_VERSION


def located_function_api(op_def: op_def_pb2.OpDef, api_def: api_def_pb2.ApiDef | None,
                         source: OpSource | None) -> FunctionApi | SkippedOp:
    """`function_api`, its errors located at the part of the op they are about, else at its
    REGISTER_OP (or OpList entry), when they carry no location of their own."""
    try:
        return function_api(op_def, api_def)
    except OpgenError as e:
        if e.location is None and source is not None:
            part = dict(source.parts).get(e.part) if isinstance(e, PartError) else None
            e.location = part or source.location
        raise


def function_api(op_def: op_def_pb2.OpDef, api_def: api_def_pb2.ApiDef | None = None) -> FunctionApi | SkippedOp:
    """The Python API of one op under its (merged) ApiDef; None stands for TF's seed ApiDef
    (`opgen.overrides.apidef.default_api_def`), read from the OpDef without building one."""
    # Each protobuf field is read once: every read builds new Python objects (except an
    # element of a repeated field while it is alive: these lists keep them for the seed too).
    attr_defs = list(op_def.attr)
    input_defs = list(op_def.input_arg)
    output_defs = list(op_def.output_arg)
    api = ApiView.seed(op_def) if api_def is None else ApiView.of(api_def)
    op_name = op_def.name
    if api.visibility == api_def_pb2.ApiDef.SKIP:
        return SkippedOp(op_name, "skip")
    attr_types = [a.type for a in attr_defs]
    for attr_type in attr_types:
        if attr_type not in _SUPPORTED_ATTR_TYPES:
            return SkippedOp(op_name, f"unsupported attr type {attr_type!r}")
    # The op's name reaches code as TypeVar and namedtuple names (`TV_<Op>_<attr>`, `_<Op>Output`).
    op_alias = _check_identifier(avoid_reserved(op_name), "name", op_name)
    name = python_function_name(api)
    if name is None:
        return SkippedOp(op_name, "reserved")
    _check_identifier(name, "function name", op_name)
    aliases = python_aliases(api)
    for alias, _ in aliases:
        _check_identifier(alias, "alias", op_name)

    attr_names = [a.name for a in attr_defs]
    input_names = [a.name for a in input_defs]
    output_names = [a.name for a in output_defs]
    # Every OpDef name can reach code (keywords, TypeVars, `_attr_<N>` locals, list sizes), as a
    # keyword of `_apply_op_helper` (reserved names get `_`, nothing else changes; an unnamed
    # output's field is `output<i>`).
    for what, names in (("attr", attr_names), ("input", input_names), ("output", output_names)):
        for item in names:
            if item or what != "output":
                keyword = item + "_" if item in PY_RESERVED else item
                if identifier_problem(keyword):  # (tested first: most names pass, and a call costs)
                    _check_identifier(keyword, what, op_name)
    attrs = dict(zip(attr_names, attr_defs))
    in_args = dict(zip(input_names, input_defs))
    api_in = api.in_args
    api_out = api.out_args
    api_attr = api.attrs
    arg_order = list(api.arg_order) or input_names
    if sorted(arg_order) != sorted(in_args):
        raise OpgenError(f"op {op_name}: arg_order {arg_order} is not a permutation of its inputs")

    # Attrs inferred from inputs (TF's GenPythonOp), and the first input (arg_order) each is inferred from.
    input_refs = {n: (a.type_attr, a.type_list_attr, a.number_attr) for n, a in in_args.items()}
    inferred_from: dict[str, str] = {}
    for input_name in arg_order:
        for ref in input_refs[input_name]:
            if ref and ref not in inferred_from:
                inferred_from[ref] = input_name
    # A parameter named like a builtin this body calls would shadow it: it gets a trailing `_`.
    list_outputs = [a.type_list_attr for a in output_defs]
    shadowed = _body_builtins(api, inferred_from.keys(), list(zip(attr_names, attr_types)),
                              any(r[2] for r in input_refs.values()), any(list_outputs))

    def unshadowed(name: str) -> str:
        return name + "_" if name in shadowed else name

    def input_param_name(opdef_name: str) -> str:
        entry = api_in.get(opdef_name)
        return unshadowed(avoid_reserved(entry[0] if entry and entry[0] else opdef_name))

    def attr_param_name(opdef_name: str) -> str:
        entry = api_attr.get(opdef_name)
        return unshadowed(avoid_reserved(entry[0] if entry and entry[0] else opdef_name))

    ctx = docstrings.DocContext(
        op_def, inferred_from, attrs,
        {n: attr_param_name(n) for n in attr_names if (api_attr.get(n) or ("",))[0]},
        {n: renamed for n in inferred_from.values() if (renamed := input_param_name(n)) != avoid_reserved(n)},
    )
    typevars = {n: _typevar(op_name, a) for n, t, a in zip(attr_names, attr_types, attr_defs) if t == "type"}

    def dtype_metadata(type_attr: str, dtype: int) -> str:
        """TF's `Annotated` metadata of a tensor argument: its dtype's TypeVar or annotation class."""
        return typevars[type_attr].name if type_attr else f"_atypes.{annotation_class(dtype)}"

    params: list[Param] = []
    # Python name of each parameter, by OpDef name (inputs and attrs apart: they may share names)
    input_params: dict[str, str] = {}
    attr_params: dict[str, str] = {}
    for py in python_params(op_def, api, inferred_from.keys()):
        pname = unshadowed(py.name)
        if identifier_problem(pname):
            _check_identifier(pname, f"{py.kind} name", op_name)
        if pname.startswith("_"):  # the body's own names (`_execute`, `_attr_x`, `_result`, ...)
            raise OpgenError(
                f"op {ascii(op_name)[1:-1]}: {py.kind} name {pname!r} starts with '_', which is "
                "reserved for the wrapper's own names",
                hint="rename it with an override (input_rename / attr_rename)",
            )
        graph_name = py.graph_name
        if py.kind == "input":
            input_params[graph_name] = pname
            arg = in_args[graph_name]
            type_attr, type_list_attr, number_attr = input_refs[graph_name]
            desc = api_in[graph_name][1] if graph_name in api_in else arg.description
            doc = docstrings.arg_entry(
                pname, docstrings.arg_type_phrase(ctx, arg, is_output=False), desc, is_input=True
            )
            if type_list_attr:  # TF annotates none: the dtypes are a list attr's
                annotation = "_api_types.TensorLikeList"
            else:
                kind = "_api_types.TensorLikeList" if number_attr else "_api_types.TensorLike"
                annotation = f"Annotated[{kind}, {dtype_metadata(type_attr, arg.type)}]"
            params.append(
                Param(
                    name=pname,
                    keyword=avoid_reserved(graph_name),  # checked with the other OpDef names above
                    op_def_name=graph_name,
                    kind="input",
                    annotation=annotation,
                    default=None,
                    doc=doc,
                    is_list=bool(number_attr or type_list_attr),
                )
            )
            continue
        attr_params[graph_name] = pname
        attr = attrs[graph_name]
        attr_type = attr.type
        entry = api_attr.get(graph_name)
        desc = entry[1] if entry is not None else attr.description
        is_list = attr_type.startswith("list(")
        scalar = attr_type[5:-1] if is_list else attr_type
        params.append(
            Param(
                name=pname,
                keyword=avoid_reserved(graph_name),  # checked with the other OpDef names above
                op_def_name=graph_name,
                kind="attr",
                annotation=_attr_annotation(attr, typevars, py.default),
                default=attr_default(py.default, pname) if py.default is not None else None,
                doc=docstrings.arg_entry(pname, docstrings.attr_type_phrase(attr, py.default), desc, is_input=False),
                attr_type=attr_type,
                converter=_CONVERTERS.get(scalar),
                is_list=is_list,
                local=f"_attr_{pname}",
            )
        )
    for p in params:
        if p.keyword == "name":
            # `_apply_op_helper(op_type_name, name=None, **keywords)` takes the node's name as
            # `name`: no OpDef arg of that name can reach it, whatever its Python name.
            raise PartError(
                f"op {op_name}: its {p.kind} 'name' cannot be passed to _apply_op_helper, whose own 'name' is the "
                "node's name (TensorFlow's generated wrapper for this op does not compile either)",
                hint=f"rename the {p.kind} in REGISTER_OP; an override renames only the Python parameter, and the "
                     "graph keeps the OpDef's name",
                part=f"{p.kind} name",
            )
    _check_unique([p.name for p in params] + ["name"], "parameter", op_name)

    # Int attrs inferred from list inputs (TF's GenEagerPythonOp length checks) (OpDef attr order), their
    # inputs in arg_order.
    list_lengths: list[ListLength] = []
    for attr_name, attr_type in zip(attr_names, attr_types):
        if attr_type != "int" or attr_name not in inferred_from:
            continue
        users = [n for n in arg_order if input_refs[n][2] == attr_name]
        if users:
            list_lengths.append(
                ListLength(attr_name, tuple(input_param_name(n) for n in users), users[0])
            )

    _check_unique(
        [p.local for p in params if p.local] + [f"_attr_{ll.attr}" for ll in list_lengths],
        "body local (`_attr_<name>`)",
        op_name,
    )

    outputs: list[Output] = []
    for i, (arg, arg_name, t) in enumerate(zip(output_defs, output_names, list_outputs)):
        out = api_out.get(arg_name)
        field = avoid_reserved(out[0] if out and out[0] else (arg_name or f"output{i}"))
        size: str | None = None
        n = arg.number_attr
        if n:
            # the list-length local of an inferred N, else the converted attr's local
            size = f"_attr_{n}" if n in inferred_from else f"_attr_{attr_param_name(n)}"
        elif t:
            size = (
                f"len({input_param_name(inferred_from[t])})"
                if t in inferred_from
                else f"len(_attr_{attr_param_name(t)})"
            )
        is_list = bool(n or t)
        if is_list:
            annotation = "list[_api_types.Tensor]"
        else:
            annotation = f"Annotated[_api_types.Tensor, {dtype_metadata(arg.type_attr, arg.type)}]"
        outputs.append(Output(arg_name, field, is_list, size, annotation))
    if len(outputs) > 1:
        _check_unique([o.field for o in outputs], "output field", op_name)
        for o in outputs:
            if o.field.startswith("_"):
                raise OpgenError(
                    f"op {op_name}: output field {o.field!r} cannot start with '_' (namedtuple field)",
                    hint="rename the output with an override (output_rename / out_arg rename_to)",
                )
            _check_identifier(o.field, "output field", op_name)

    is_stateful = op_def.is_stateful
    return_annotation = _return_annotation(op_alias, is_stateful, outputs)

    entries = [p.doc for p in params] + ["name: A name for the operation (optional)."]
    doc = docstrings.docstring_text(api.summary, api.description, entries, docstrings.returns_block(ctx, api_out))
    eager_args = [input_params[n] for n in input_names]
    for attr_name in attr_names:
        if attr_name not in inferred_from:
            eager_args += [py_str(attr_name), attr_params[attr_name]]
    # TF names the last ref argument, outputs after inputs.
    refs = [a.name for a in [*input_defs, *output_defs] if a.is_ref]
    return FunctionApi(
        op_name=op_name,
        name=name,
        op_name_for_messages=name.removeprefix("_"),
        visible=_visible(api.visibility),
        aliases=tuple(alias for alias, _ in aliases),
        deprecated_aliases=frozenset(alias for alias, deprecated in aliases if deprecated),
        params=tuple(params),
        typevars=tuple(typevars[n] for n in attr_names if n in typevars),
        return_annotation=return_annotation,
        outputs=tuple(outputs),
        namedtuple=f"_{op_alias}Output" if len(outputs) > 1 else None,
        namedtuple_typename=op_alias if len(outputs) > 1 else None,
        list_lengths=tuple(list_lengths),
        is_stateful=is_stateful,
        docstring=doc,
        eager_args=tuple(eager_args),
        eager_unsupported=(
            f"{name} op does not support eager execution. Arg '{refs[-1]}' is a ref." if refs else None
        ),
    )


def _body_builtins(
    api: ApiView,
    inferred: AbstractSet[str],
    attr_types: list[tuple[str, str]],
    number_inputs: bool,
    list_outputs: bool,
) -> frozenset[str]:
    """The builtins the wrapper body calls (see templates/function.py.j2), given the attrs inputs
    infer, the op's (attr name, type)s, and whether some input has a number attr and some output
    a type list attr."""
    used: set[str] = set()
    if number_inputs or any(t.startswith("list(") and n not in inferred for n, t in attr_types):
        used.update(("isinstance", "list", "tuple"))
    if number_inputs or list_outputs:
        used.add("len")
    if any(t in ("float", "list(float)") and (entry := api.attrs.get(n)) is not None and entry[2] is not None
           for n, t in attr_types):
        used.add("float")
    if _visible(api.visibility):  # TF's dispatch (`opgen_runtime.tf.dispatch`)
        used.update(("NotImplemented", "TypeError", "ValueError", "locals"))
    return frozenset(used)


def _visible(visibility: int) -> bool:
    """ApiDef VISIBLE: exported in `__all__`, and decorated for TF's dispatch as TF decorates
    exactly these (`python_op_gen.cc` AddEagerFastPathAndGraphCode)."""
    return visibility in (api_def_pb2.ApiDef.VISIBLE, api_def_pb2.ApiDef.DEFAULT_VISIBILITY)


def _attr_annotation(
    attr: op_def_pb2.OpDef.AttrDef, typevars: dict[str, TypeVarDef], default: attr_value_pb2.AttrValue | None
) -> str:
    """What the runtime's conversion of the attr (`opgen_runtime.values.attr_values`) accepts, as
    a type (docs/typing.md): `int`, `float`, `bool`, `str` or the `Literal` of a string
    attr's allowed values, the `opgen_runtime.api_types` alias of a dtype, shape, tensor or
    func; a list attr a list or tuple of those (the wrapper checks `isinstance(v, (list,
    tuple))`). A `type` attr without default keeps TF's TypeVar as `Annotated` metadata (TF
    annotates it with the bare TypeVar, which no DType satisfies). A default of None (an attr
    whose default AttrValue is empty) adds `| None`."""
    is_list = attr.type.startswith("list(")
    scalar = attr.type[5:-1] if is_list else attr.type
    allowed = attr.allowed_values.list.s if attr.HasField("allowed_values") else ()
    if scalar == "string" and allowed:
        item = "Literal[" + ", ".join(py_str(v.decode("utf-8", "surrogateescape")) for v in allowed) + "]"
    else:
        item = _ATTR_ANNOTATIONS[scalar]
    text = f"_api_types.ListOrTuple[{item}]" if is_list else item
    if attr.type == "type" and default is None:
        text = f"Annotated[{text}, {typevars[attr.name].name}]"
    if default is not None and default.WhichOneof("value") is None and scalar != "shape":
        text += " | None"
    return text


def _return_annotation(op_alias: str, is_stateful: bool, outputs: list[Output]) -> str:
    """The result's type: the namedtuple class of several outputs, the Tensor of one (with TF's
    dtype metadata), a list of Tensors for a list output, `Operation | None` for none (TF's
    eager fast path and eager fallback return None for an op without outputs). A stateful op's
    one list output returns its Operation (None when TF ran it eagerly) when the list is empty,
    as TF's wrappers do."""
    if not outputs:
        return "_api_types.Operation | None"
    if len(outputs) > 1:
        return f"_{op_alias}Output"
    if outputs[0].is_list:
        return "list[_api_types.Tensor] | _api_types.Operation | None" if is_stateful else "list[_api_types.Tensor]"
    return outputs[0].annotation


def _check_unique(names: list[str], what: str, op_name: str) -> None:
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise OpgenError(
                f"op {op_name}: two {what}s are both named {n!r} in Python",
                hint="rename one of them with an override",
            )
        seen.add(n)


def module_api(name: str, op_defs: Iterable[op_def_pb2.OpDef], api_model: ApiModel) -> ModuleApi:
    """The API of one generated module: its ops' functions in the given order."""
    functions: list[FunctionApi] = []
    skipped: list[SkippedOp] = []
    for op_def in op_defs:
        result = function_api(op_def, api_model.merged(op_def))
        (skipped if isinstance(result, SkippedOp) else functions).append(result)  # type: ignore[arg-type]
    return ModuleApi(name, tuple(functions), tuple(skipped))


__all__ = [
    "FunctionApi",
    "ListLength",
    "ModuleApi",
    "Output",
    "Param",
    "SkippedOp",
    "TypeVarDef",
    "function_api",
    "module_api",
    "py_str",
    "reserved_name_warning",
]
