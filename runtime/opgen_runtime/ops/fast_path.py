"""The fast path of `_apply_op_helper`: TF's own fast-path condition (inputs already Tensors,
or small Python constants whose single Const can be planned without creating it).

It only ever succeeds where the general path would succeed with the same graph; whenever
anything is unusual it returns None before creating a node, and the general path then
produces TF's exact result or error.

A call's plan (where each input comes from, the attrs, the outputs' dtypes) depends only on
the op, the keyword names, the inputs' dtypes and the other values; calls that differ in
nothing else (the same wrapper on tensors of the same dtypes, the bulk of any graph) reuse
it from `_PLANS` instead of re-deriving it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from opgen_runtime.proto import attr_value_pb2

from ..graph.operation import shared_attrs
from ..graph.tensor import Tensor
from ..values import dtypes as _dtypes
from ..values.attr_values import _INT_ATTRS, _TYPE_ATTRS, _attr_proto
from ..values.constant_op import ConstParts, _const_op, _const_parts_for
from .op_info import output_structure

if TYPE_CHECKING:
    from ..graph.graph import Graph
    from .op_info import OpInfo

# A plan: (steps, attrs dict, output structure, output dtypes). Each step makes one input
# from the keyword values, in input order: (position, _TENSOR, None, name) takes a Tensor,
# (position, _TENSORS, None, name) a list of Tensors, (position, _CONST, Const parts, arg
# name) creates the Const a Python value converts to (Any: a step's kind, not its type, says
# whether the parts are None).
_TENSOR, _TENSORS, _CONST = 0, 1, 2
Plan = tuple[
    tuple[tuple[int, int, Any, str], ...],
    dict[str, attr_value_pb2.AttrValue],
    list[int | None],
    list[_dtypes.DType],
]

# Values a plan key may hold as themselves: hashable, and equal only when the plan would be
# (floats are left out: 0.0 == -0.0 but their Consts differ); strings and bytes up to
# _KEY_TEXT_MAX long.
_KEY_SCALARS = frozenset({bool, int, type(None)})
_KEY_TEXT_MAX = 256
_PLANS: dict[tuple[Any, ...], Plan] = {}
_PLANS_MAX = 4096


def plan_for(
    info: OpInfo, keywords: dict[str, Any]
) -> tuple[tuple[Any, ...] | None, Plan | None, Graph | None]:
    """(this call's plan key, its cached plan, the graph of its Tensor inputs).

    The key is None when a value cannot be part of one (or the Tensors are from different
    graphs: the general path raises TF's error for that), and the graph None when the key
    is or there is no Tensor."""
    key: list[Any] = [info, *keywords]
    graph = _append_key(keywords.values(), key.append, None, False)
    if graph is _UNKEYABLE:
        return None, None, None
    frozen = tuple(key)
    return frozen, _PLANS.get(frozen), graph


def _append_key(values: Any, append: Any, graph: Any, nested: bool) -> Any:
    """Appends the key of `values` (after the op and the keyword names): a Tensor is its
    dtype enum (an int), any other value the pair (its type, itself), a list or tuple the
    pair (its type, length) then its items; read left to right, one key means one call
    shape. Returns the Tensors' graph so far, or _UNKEYABLE."""
    for value in values:
        kind = type(value)
        if kind is Tensor:
            append(value._dtype._type_enum)
            if graph is not value._op._graph:
                if graph is not None:
                    return _UNKEYABLE
                graph = value._op._graph
        elif kind in _KEY_SCALARS:
            append(kind)
            append(value)
        elif kind is str or kind is bytes:
            if len(value) > _KEY_TEXT_MAX:
                return _UNKEYABLE  # a plan must not keep a large value alive
            append(kind)
            append(value)
        elif kind is _dtypes.DType:
            append(kind)
            append(value._type_enum)
        elif (kind is list or kind is tuple) and not nested:
            append(kind)
            append(len(value))
            graph = _append_key(value, append, graph, True)
            if graph is _UNKEYABLE:
                return graph
        else:
            return _UNKEYABLE
    return graph


_UNKEYABLE = object()


def planned_inputs(
    op_type_name: str,
    info: OpInfo,
    keywords: dict[str, Any],
    graph: Graph,
    key: tuple[Any, ...] | None,
    plan: Plan | None,
) -> tuple[list[Tensor], Plan] | None:
    """(inputs, plan) when every input is a Tensor of acceptable type or a plannable Python
    constant and all attrs are present (TF's fast-path condition); None to take the general
    path, which then raises TF's exact errors. `key` and `plan` are `plan_for`'s. Consumes
    `keywords` only on success; creates nothing but the planned Consts, in `graph`."""
    if plan is None:
        plan = _make_plan(op_type_name, info, keywords)
        if plan is None:
            return None
        if key is not None:
            if len(_PLANS) >= _PLANS_MAX:
                _PLANS.clear()
            _PLANS[key] = plan
    values = list(keywords.values())
    inputs: list[Tensor] = []
    for position, kind, parts, name in plan[0]:
        if kind == _TENSOR:
            inputs.append(values[position])
        elif kind == _TENSORS:
            inputs.extend(values[position])
        else:
            inputs.append(_const_op(parts, name, graph))
    keywords.clear()
    return inputs, plan


def _make_plan(
    op_type_name: str, info: OpInfo, keywords: dict[str, Any]
) -> Plan | None:
    """This call's plan, or None when it needs the general path. Creates nothing."""
    positions = {name: i for i, name in enumerate(keywords)}
    inferred: dict[str, Any] = {}
    steps: list[tuple[int, int, Any, str]] = []
    used = 0
    allowed = info.allowed
    for name, fixed, type_attr, number_attr, type_list_attr, _ in info.inputs:
        key = name if name in keywords else name + "_"
        value = keywords.get(key, _MISSING)
        if value is _MISSING:
            return None
        used += 1
        if number_attr or type_list_attr:
            if type(value) is not list and type(value) is not tuple:
                return None
            for t in value:
                if type(t) is not Tensor:
                    return None
            bases = [t._dtype._base_enum for t in value]
            if number_attr:
                if not bases:
                    return None
                n = len(bases)
                if number_attr in inferred:
                    if inferred[number_attr] != n:
                        return None
                elif n < info.minimums.get(number_attr, 0):
                    return None
                inferred[number_attr] = n
                base = bases[0]
                if any(b != base for b in bases):
                    return None
                if not _check_type(base, fixed, type_attr, inferred, allowed):
                    return None
            else:
                if type_list_attr in inferred:
                    if inferred[type_list_attr] != bases:
                        return None
                else:
                    if type_list_attr in allowed and any(
                        b not in allowed[type_list_attr] for b in bases
                    ):
                        return None
                    if len(bases) < info.minimums.get(type_list_attr, 0):
                        return None
                    inferred[type_list_attr] = bases
            steps.append((positions[key], _TENSORS, None, name))
        else:
            if type(value) is not Tensor:
                parts = _planned_constant(info, value, fixed, type_attr, inferred)
                if parts is None:
                    return None
                steps.append((positions[key], _CONST, parts, name))
                base = parts[1]._base_enum
            else:
                steps.append((positions[key], _TENSOR, None, name))
                base = value._dtype._base_enum
            if not _check_type(base, fixed, type_attr, inferred, allowed):
                return None
    explicit: dict[str, Any] = {}
    for name, _, _, _ in info.attrs:
        if name in inferred:
            if name in keywords:
                return None
            continue
        value = keywords.get(name, _MISSING)
        if value is _MISSING:
            value = keywords.get(name + "_", _MISSING)
        if value is not _MISSING:
            used += 1
        elif name in info.default_types:
            value = info.default_types[name]
        else:
            return None
        explicit[name] = value
    if used != len(keywords):
        return None
    protos: list[attr_value_pb2.AttrValue] = []
    for name, attr_type, default, attr_def in info.attrs:
        if name in inferred:
            value = inferred[name]
            if attr_type == "type":
                protos.append(_TYPE_ATTRS[value])
            elif attr_type == "int":
                protos.append(
                    _INT_ATTRS[value]
                    if value in _INT_ATTRS
                    else attr_value_pb2.AttrValue(i=value)
                )
            else:
                protos.append(
                    attr_value_pb2.AttrValue(
                        list=attr_value_pb2.AttrValue.ListValue(type=value)
                    )
                )
            continue
        value = explicit[name]
        if value is None and default is not None:
            protos.append(default)
        else:
            try:
                protos.append(_attr_proto(op_type_name, attr_def, attr_type, name, value))
            except (TypeError, ValueError):
                # the general path raises it, as TF does: after converting the inputs (their
                # Consts stay in the graph)
                return None
    attrs = shared_attrs(info.attr_names, protos)
    structure, output_dtypes = output_structure(info, attrs)
    return tuple(steps), attrs, structure, output_dtypes


_CONSTANT_TYPES = {int, float, bool, str, bytes, list, tuple}
_MISSING = object()
# (fixed DataType, int) -> the Const parts `_const_parts_for` gives (shared, never mutated)
_FIXED_INT_CONSTS: dict[tuple[int, int], ConstParts] = {}


def _planned_constant(
    info: OpInfo, value: Any, fixed: int, type_attr: str, inferred: dict[str, Any]
) -> ConstParts | None:
    """The Const the general path would create for a Python-value input, when it creates
    exactly one and it succeeds; None otherwise (the general path then does it, errors and all).
    """
    if fixed and type(value) is int:  # axes, counts: the commonest constant inputs
        parts = _FIXED_INT_CONSTS.get((fixed, value))
        if parts is None:
            try:
                parts = _const_parts_for(value, fixed, None)
            except (TypeError, ValueError, OverflowError):
                return None
            if len(_FIXED_INT_CONSTS) < 1024:
                _FIXED_INT_CONSTS[fixed, value] = parts
        return parts
    if type(value) not in _CONSTANT_TYPES or (
        type(value) in (list, tuple) and len(value) > 8
    ):
        return None  # only small scalars/flat lists: their Const parts are cached and cheap to plan
    try:
        if fixed:
            return _const_parts_for(value, fixed, None)
        if type_attr in inferred:
            return _const_parts_for(value, inferred[type_attr], None)
        default = info.default_types.get(type_attr)
        if default is None:
            return _const_parts_for(value, None, None)
        if type_attr in info.allowed:
            parts = _const_parts_for(value, None, None)
            return parts if parts[1]._base_enum in info.allowed[type_attr] else None
        return _const_parts_for(value, None, default)
    except (TypeError, ValueError, OverflowError):
        return None


def _check_type(
    base: int,
    fixed: int,
    type_attr: str,
    inferred: dict[str, Any],
    allowed: dict[str, frozenset[int]],
) -> bool:
    """Whether an input of dtype `base` fits its fixed type, or its type attr as inferred so far
    (else within the allowed values, inferring the attr): False sends the call to the general path.
    """
    if fixed:
        return base == fixed
    if type_attr in inferred:
        # A typed local: `inferred` is Any-valued (it holds list attrs too); a type attr's is an enum.
        inferred_base: int = inferred[type_attr]
        return inferred_base == base
    allowed_types = allowed.get(type_attr)
    if allowed_types is not None and base not in allowed_types:
        return False
    inferred[type_attr] = base
    return True
