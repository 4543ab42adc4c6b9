"""`_apply_op_helper`: TensorFlow's graph-mode op construction (TF's
`python/framework/op_def_library.py` `_apply_op_helper`) on the embedded graph, or through
TensorFlow itself when the TF backend is active.

Step order, conversions, inference and every error type/message follow TF 2.21's Python
path (TF's C++ fast path is off by default in 2.21). Calls whose inputs are Tensors or small
Python constants first try `fast_path`, which yields the same graph or defers to this path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from opgen_runtime.proto import attr_value_pb2

from ..graph.graph import _VALID_NAMES, Graph, _default_stack, get_default_graph
from ..graph.operation import Operation, shared_attrs
from ..graph.tensor import Tensor
from ..shapes import inference as _shape_inference
from ..tf import backend as _backend
from ..tf import op_libraries as _op_libraries
from ..tf.bridge import apply_op_helper as _tf_apply_op_helper
from ..values import dtypes as _dtypes
from ..values.attr_values import _attr_proto
from ..values.conversion import convert_to_tensor
from . import registry as _registry
from .fast_path import plan_for, planned_inputs
from .op_info import OpInfo, info_for, infos, output_structure

if TYPE_CHECKING:
    from opgen_runtime import api_types as _api_types
    from opgen_runtime.proto import op_def_pb2

_DT_INVALID = 0


def _is_list_value(v: Any) -> bool:
    return isinstance(v, (list, tuple))


def _check_allowed_type(
    info: OpInfo, enum: int, attr_name: str, param_name: str
) -> None:
    """TF's `_SatisfiesTypeConstraint` from precomputed allowed lists."""
    allowed = info.allowed.get(attr_name)
    if allowed is not None and enum not in allowed:
        names = ", ".join(
            _dtypes.as_dtype(x).name for x in info.allowed_order[attr_name]
        )
        raise TypeError(
            f"Value passed to parameter '{param_name}' has DataType "
            f"{_dtypes.as_dtype(enum).name} not in list of allowed values: {names}"
        )


def _graph_from_inputs(values: Any) -> Graph:
    """TF's `ops._get_graph_from_inputs(_Flatten(keywords.values()))`: the graph of the first
    graph element among the values (lists flattened one level); all others must share it.
    """
    graph = None
    original: Any = None
    for value in values:
        if type(value) is Tensor:  # the common case, checked without the general loop
            if graph is None:
                original, graph = value, value._op._graph
            elif value._op._graph is not graph:
                _raise_not_same_graph(value, original, graph)
            continue
        if type(value) in _PLAIN_VALUES:
            continue
        for item in value if _is_list_value(value) else (value,):
            if type(item) in _PLAIN_VALUES:
                continue
            if isinstance(item, (Tensor, Operation)):
                element = item
            else:
                as_element = getattr(item, "_as_graph_element", None)
                if as_element is None or not callable(as_element):
                    continue
                element = as_element()
                if element is None:
                    continue
            if graph is None:
                original, graph = element, element.graph
            elif element.graph is not graph:
                _raise_not_same_graph(element, original, graph)
    return graph or get_default_graph()


# attr values that are never graph elements (skipped without looking for `_as_graph_element`)
_PLAIN_VALUES = {bool, int, float, str, bytes, type(None), _dtypes.DType}


def _raise_not_same_graph(element: Any, original: Any, graph: Graph) -> None:
    raise ValueError(
        f"{element} must be from the same graph as {original} "
        f"(graphs are {element.graph} and {graph})."
    )


def _apply_op_helper(
    op_type_name: str, name: str | None = None, **keywords: Any
) -> tuple[Any, Any, _api_types.Operation | None, list[_api_types.Tensor]]:
    """Adds an `op_type_name` node; returns (output_structure, is_stateful, op, outputs).

    On TensorFlow the op and outputs are TF's (op None when TF ran it eagerly,
    `tf_backend.apply_op_helper`): typed as opgen's, whose members they have (docs/typing.md)."""
    if _backend.active():
        if _registry.pending_libraries:
            _op_libraries.register_pending(stacklevel=3)  # the wrapper's caller
        if _op_libraries.failed_ops:
            _op_libraries.check_op(op_type_name)
        return _tf_apply_op_helper(op_type_name, name, keywords)
    info = infos.get(op_type_name) or info_for(op_type_name)
    if info is None:
        raise RuntimeError(f"Unrecognized Op name {op_type_name}")
    op_def = info.op_def
    if info.general_only:
        key = plan = g = None
    else:
        key, plan, g = plan_for(info, keywords)
    if g is None:
        g = _graph_from_inputs(keywords.values())
    deprecation_version = info.deprecation[0]
    if deprecation_version and g.producer >= deprecation_version:
        raise NotImplementedError(
            f"Op {op_type_name} is not available in GraphDef version {g.producer}. "
            f"It has been removed in version {deprecation_version}. "
            f"{info.deprecation[1]}."
        )
    if not name:
        name = op_type_name
    try:
        scopes = g._local.scopes
    except AttributeError:  # this thread's first op in `g`
        scopes = g._scopes()
    old_scope = scopes.name_stack
    if name in _VALID_NAMES and name[-1] != "/":
        # TF's `with ops.name_scope(name) as scope` for an already validated plain name:
        # the node is named `scope` minus its slash.
        node_name = g.unique_name(name, scopes=scopes)
        scopes.name_stack = node_name
        scope = None
    else:
        old_scope, scope = g._enter_name_scope(name, scopes)
    try:
        fast = (
            None
            if info.general_only
            else planned_inputs(op_type_name, info, keywords, g, key, plan)
        )
        if fast is not None:
            inputs, (_, attr_protos, structure, output_dtypes) = fast
            infer = _shape_inference.shape_fn_for(op_type_name)
            if scope is None:
                op = g._add_op(
                    op_type_name,
                    inputs,
                    node_name,
                    attr_protos,
                    output_dtypes,
                    op_def,
                    infer,
                    True,
                )
            else:
                op = g._create_op(
                    op_type_name,
                    inputs,
                    scope,
                    attr_protos,
                    output_dtypes,
                    op_def,
                    infer,
                )
        else:
            if scope is None:
                scope = node_name + "/"
            stack = _default_stack()
            stack.append(g)  # Python values become Const ops in `g`
            try:
                op, structure = _apply_general(g, info, op_type_name, scope, keywords)
            finally:
                stack.pop()
    finally:
        scopes.name_stack = old_scope
    outputs: Any = op._out  # a Tensor, or a tuple of them for several
    return (
        list(structure),
        info.is_stateful,
        op,
        list(outputs) if type(outputs) is tuple else [outputs],
    )


def _apply_general(
    g: Graph, info: OpInfo, op_type_name: str, scope: str, keywords: dict[str, Any]
) -> tuple[Operation, list[int | None]]:
    """The general path: every conversion, inference step and error of TF's Python path."""
    op_def = info.op_def
    attrs: dict[str, Any] = {}
    inputs: list[Tensor] = []
    _extract_inputs_and_attrs(op_type_name, op_def, info, keywords, attrs, inputs)
    _extract_remaining_attrs(op_type_name, op_def, info, keywords, attrs)
    attr_protos = _extract_attr_protos(op_type_name, info, attrs)
    structure, output_dtypes = output_structure(info, attr_protos)
    if keywords:
        raise TypeError(
            f"{op_type_name} got unexpected keyword arguments: {', '.join(sorted(keywords))}."
        )
    infer = _shape_inference.shape_fn_for(op_type_name)
    # TF pairs input args with the *flattened* inputs here (a quirk kept on purpose).
    ref_inputs = (
        [val for arg, val in zip(info.inputs, inputs) if arg[5]]
        if info.has_ref_input
        else None
    )
    if ref_inputs:
        op = _create_colocated(
            g,
            ref_inputs,
            op_type_name,
            inputs,
            scope,
            attr_protos,
            output_dtypes,
            op_def,
            infer,
        )
    else:
        op = g._create_op(
            op_type_name, inputs, scope, attr_protos, output_dtypes, op_def, infer
        )
    return op, structure


def _create_colocated(g: Graph, ref_inputs: list[Tensor], *args: Any) -> Operation:
    if not ref_inputs:
        return g._create_op(*args)
    with g.colocate_with(ref_inputs[0]):
        return _create_colocated(g, ref_inputs[1:], *args)


def _extract_inputs_and_attrs(
    op_type_name: str,
    op_def: op_def_pb2.OpDef,
    info: OpInfo,
    keywords: dict[str, Any],
    attrs: dict[str, Any],
    inputs: list[Tensor],
) -> None:
    inferred_from: dict[str, str] = {}
    default_types = info.default_types
    for (
        arg_name,
        fixed_type,
        type_attr,
        number_attr,
        type_list_attr,
        is_ref,
    ) in info.inputs:
        input_name = arg_name
        if input_name in keywords:
            values = keywords.pop(input_name)
        elif input_name + "_" in keywords:
            input_name += "_"
            values = keywords.pop(input_name)
        else:
            raise TypeError(f"No argument for input {input_name} found in {op_def}")
        if number_attr or type_list_attr:
            if not _is_list_value(values):
                raise TypeError(
                    f"Expected list for '{input_name}' argument to '{op_type_name}' Op, not {values}."
                )
            dtype = None
            default_dtype = None
            if fixed_type != _DT_INVALID:
                dtype = fixed_type
            elif number_attr:
                if type_attr in attrs:
                    dtype = attrs[type_attr]
                else:
                    for t in values:
                        if isinstance(t, Tensor):
                            dtype = t._dtype
                            break
                if dtype is None and type_attr in default_types:
                    default_dtype = default_types[type_attr]
            try:
                if not is_ref and dtype:
                    dtype = _dtypes.as_dtype(dtype).base_dtype
                converted = [
                    convert_to_tensor(
                        v,
                        dtype=dtype if dtype else None,
                        name=f"{arg_name}_{i}",
                        as_ref=is_ref,
                        preferred_dtype=default_dtype,
                    )
                    for i, v in enumerate(values)
                ]
                # TF's `values` are the Tensors from here: the error below reads their types
                # without converting (and creating Consts) again
                values = converted
                if number_attr and len({v._dtype._base_enum for v in converted}) > 1:
                    raise TypeError(
                        f"Not all types matched for {arg_name} for {op_type_name}."
                    )
            except (TypeError, ValueError):
                observed_types = []
                for value in values:
                    try:
                        observed_types.append(
                            convert_to_tensor(
                                value, as_ref=is_ref
                            )._dtype.base_dtype.name
                        )
                    except (TypeError, ValueError):
                        observed_types.append("<NOT CONVERTIBLE TO TENSOR>")
                observed = ", ".join(observed_types)
                prefix = f"Tensors in list passed to '{input_name}' of '{op_type_name}' Op have types [{observed}]"
                if number_attr:
                    if fixed_type != _DT_INVALID:
                        raise TypeError(
                            f"{prefix} that do not match expected type {_dtypes.as_dtype(dtype).name}."
                        ) from None
                    if type_attr in attrs:
                        raise TypeError(
                            f"{prefix} that do not match type {_dtypes.as_dtype(dtype).name} inferred from "
                            "earlier arguments."
                        ) from None
                    raise TypeError(f"{prefix} that don't all match.") from None
                raise TypeError(
                    f"{prefix} that are invalid. Tensors: {values}"
                ) from None
            types = [x._dtype for x in converted]
            inputs.extend(converted)
        else:
            dtype = None
            default_dtype = None
            allowed_list = None
            if fixed_type != _DT_INVALID:
                dtype = fixed_type
            elif type_attr in attrs:
                dtype = attrs[type_attr]
            elif type_attr in default_types:
                default_dtype = default_types[type_attr]
                allowed_list = info.allowed_types.get(type_attr)
            try:
                if dtype is None and allowed_list:
                    inferred = None
                    try:
                        inferred = convert_to_tensor(
                            values, name=arg_name, as_ref=is_ref
                        )
                    except TypeError:
                        pass
                    if (
                        inferred is not None
                        and inferred._dtype.as_datatype_enum in allowed_list
                    ):
                        values = inferred
                    else:
                        values = convert_to_tensor(
                            values,
                            name=arg_name,
                            as_ref=is_ref,
                            preferred_dtype=default_dtype,
                        )
                else:
                    values = convert_to_tensor(
                        values,
                        name=arg_name,
                        dtype=dtype,
                        as_ref=is_ref,
                        preferred_dtype=default_dtype,
                    )
            except TypeError as err:
                if dtype is None:
                    raise
                raise TypeError(
                    f"Expected {_dtypes.as_dtype(dtype).name} passed to parameter '{arg_name}' of op "
                    f"'{op_type_name}', got {values!r} of type '{type(values).__name__}' instead. Error: {err}"
                ) from None
            except ValueError:
                try:
                    observed = convert_to_tensor(values, as_ref=is_ref)._dtype.name
                except ValueError as err:
                    raise ValueError(
                        f"Tried to convert '{input_name}' to a tensor and failed. Error: {err}"
                    ) from None
                prefix = f"Input '{input_name}' of '{op_type_name}' Op has type {observed} that does not match"
                if fixed_type != _DT_INVALID:
                    raise TypeError(
                        f"{prefix} expected type of {_dtypes.as_dtype(fixed_type).name}."
                    ) from None
                k = type_attr
                if k in default_types and k not in attrs:
                    attrs[k] = default_types[k]
                    inferred_from.setdefault(k, "Default in OpDef")
                raise TypeError(
                    f"{prefix} type {_dtypes.as_dtype(attrs[k]).name} of argument '{inferred_from[k]}'."
                ) from None
            types = [values._dtype]
            inputs.append(values)
        base_types = [x.base_dtype for x in types]

        if number_attr:
            n_attr = number_attr
            if n_attr in attrs:
                if len(values) != attrs[n_attr]:
                    raise ValueError(
                        f"List argument '{input_name}' to '{op_type_name}' Op with length {len(values)} must match "
                        f"length {attrs[n_attr]} of argument '{inferred_from[n_attr]}'."
                    )
            else:
                attrs[n_attr] = len(values)
                inferred_from[n_attr] = input_name
                minimum = info.minimums.get(n_attr)
                if minimum is not None and len(values) < minimum:
                    raise ValueError(
                        f"List argument '{input_name}' to '{op_type_name}' Op with length {len(values)} shorter "
                        f"than minimum length {minimum}."
                    )
            if fixed_type == _DT_INVALID and type_attr not in attrs:
                if not base_types:
                    if type_attr not in default_types:
                        raise TypeError(
                            "Don't know how to infer type variable from empty input list passed to input "
                            f"'{input_name}' of '{op_type_name}' Op."
                        )
                else:
                    attrs[type_attr] = base_types[0]
                    inferred_from[type_attr] = input_name
                    _check_allowed_type(
                        info, base_types[0]._base_enum, type_attr, input_name
                    )
        elif type_attr:
            attr_value = base_types[0]
            t_attr = type_attr
            if t_attr in attrs:
                if attrs[t_attr] != attr_value:
                    raise TypeError(
                        f"Input '{input_name}' of '{op_type_name}' Op has type {attr_value.name} that does not "
                        f"match type {_dtypes.as_dtype(attrs[t_attr]).name} of argument '{inferred_from[t_attr]}'."
                    )
            else:
                _check_allowed_type(info, attr_value._base_enum, t_attr, input_name)
                attrs[t_attr] = attr_value
                inferred_from[t_attr] = input_name
        elif type_list_attr:
            tl_attr = type_list_attr
            if tl_attr in attrs:
                if attrs[tl_attr] != base_types:
                    actual = ", ".join(x.name for x in base_types)
                    expected = ", ".join(
                        _dtypes.as_dtype(x).name for x in attrs[tl_attr]
                    )
                    raise TypeError(
                        f"Input '{input_name}' of '{op_type_name}' Op has type list of {actual} that does not "
                        f"match type list {expected} of argument '{inferred_from[tl_attr]}'."
                    )
            else:
                for base_type in base_types:
                    _check_allowed_type(info, base_type._base_enum, tl_attr, input_name)
                attrs[tl_attr] = base_types
                inferred_from[tl_attr] = input_name

        if is_ref and not all(x._is_ref_dtype for x in types):
            raise TypeError(
                f"'{op_type_name}' Op requires that input '{input_name}' be a mutable tensor (e.g.: a tf.Variable)"
            )


def _extract_remaining_attrs(
    op_type_name: str,
    op_def: op_def_pb2.OpDef,
    info: OpInfo,
    keywords: dict[str, Any],
    attrs: dict[str, Any],
) -> None:
    for attr in op_def.attr:
        key = attr.name
        if key in attrs:
            if key in keywords:
                raise TypeError(
                    f"Should not specify value for inferred attr '{key}' for {op_type_name}."
                )
            continue
        if key in keywords:
            attrs[key] = keywords.pop(key)
        elif key + "_" in keywords:
            attrs[key] = keywords.pop(key + "_")
        elif key in info.default_types:
            attrs[key] = info.default_types[key]
        else:
            raise TypeError(f"No argument found for attr {key} for {op_type_name}")


def _extract_attr_protos(
    op_type_name: str, info: OpInfo, attrs: dict[str, Any]
) -> dict[str, attr_value_pb2.AttrValue]:
    protos: list[attr_value_pb2.AttrValue] = []
    for key, attr_type, default, attr_def in info.attrs:
        value = attrs[key]
        if value is None and default is not None:
            protos.append(default)
        else:
            protos.append(_attr_proto(op_type_name, attr_def, attr_type, key, value))
    return shared_attrs(info.attr_names, protos)
