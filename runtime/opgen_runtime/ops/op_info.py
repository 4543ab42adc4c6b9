"""Per-OpDef facts for `_apply_op_helper` and its fast path, computed once per op type as plain
Python values (protobuf field access is slow)."""

from __future__ import annotations

from collections.abc import Mapping

from opgen_runtime.proto import attr_value_pb2, op_def_pb2

from ..values import dtypes as _dtypes
from . import registry as _registry


class OpInfo:
    """Per-OpDef facts computed once, as plain Python values (protobuf field access is slow)."""

    __slots__ = (
        "allowed",
        "allowed_order",
        "allowed_types",
        "attr_names",
        "attrs",
        "default_types",
        "deprecation",
        "general_only",
        "has_ref_input",
        "inputs",
        "is_stateful",
        "minimums",
        "op_def",
        "outputs",
        "single_output",
    )

    def __init__(self, op_def: op_def_pb2.OpDef) -> None:
        self.op_def = op_def
        self.default_types: dict[str, _dtypes.DType] = {}
        self.allowed_types: dict[str, list[int]] = {}
        self.minimums = {a.name: a.minimum for a in op_def.attr if a.has_minimum}
        self.allowed = {
            a.name: frozenset(a.allowed_values.list.type)
            for a in op_def.attr
            if a.type in ("type", "list(type)") and a.HasField("allowed_values")
        }
        self.allowed_order = {
            a.name: list(a.allowed_values.list.type)
            for a in op_def.attr
            if a.type in ("type", "list(type)") and a.HasField("allowed_values")
        }
        for attr in op_def.attr:
            if attr.type != "type":
                continue
            if attr.HasField("default_value"):
                self.default_types[attr.name] = _dtypes.as_dtype(
                    attr.default_value.type
                )
            if attr.HasField("allowed_values"):
                self.allowed_types[attr.name] = list(attr.allowed_values.list.type)
        self.inputs = [
            (a.name, a.type, a.type_attr, a.number_attr, a.type_list_attr, a.is_ref)
            for a in op_def.input_arg
        ]
        self.attrs = [
            (
                a.name,
                a.type,
                a.default_value if a.HasField("default_value") else None,
                a,
            )
            for a in op_def.attr
        ]
        self.attr_names = tuple(a.name for a in op_def.attr)
        self.outputs = [
            (a.type, a.type_attr, a.number_attr, a.type_list_attr, a.is_ref)
            for a in op_def.output_arg
        ]
        self.deprecation = (op_def.deprecation.version, op_def.deprecation.explanation)
        self.single_output = None
        if len(self.outputs) == 1:
            fixed, type_attr, number_attr, type_list_attr, is_ref = self.outputs[0]
            if not number_attr and not type_list_attr:
                self.single_output = (fixed, type_attr, 100 if is_ref else 0)
        self.is_stateful = op_def.is_stateful
        self.has_ref_input = any(a.is_ref for a in op_def.input_arg)
        # Ref inputs (colocation) and func attrs (functions are added to the default graph)
        # need the general path, which makes `g` the default graph.
        self.general_only = self.has_ref_input or any(
            a.type in ("func", "list(func)") for a in op_def.attr
        )


infos: dict[str, OpInfo] = {}


def info_for(op_type_name: str) -> OpInfo | None:
    info = infos.get(op_type_name)
    if info is None:
        op_def = _registry.get(op_type_name)
        if op_def is None:
            return None
        info = infos[op_type_name] = OpInfo(op_def)
    return info


def output_structure(
    info: OpInfo, attr_protos: Mapping[str, attr_value_pb2.AttrValue]
) -> tuple[list[int | None], list[_dtypes.DType]]:
    """The outputs' structure (None for one tensor, a count for a list) and their dtypes,
    as TF's `_apply_op_helper` derives them from the attrs."""
    single = info.single_output
    if single is not None:  # one plain output: the commonest case
        fixed, type_attr, ref = single
        enum = fixed or attr_protos[type_attr].type
        return [None], [_dtypes._BY_ENUM[enum + ref] if enum else _dtypes._BY_ENUM[1]]
    structure: list[int | None] = []
    out_dtypes: list[_dtypes.DType] = []
    by_enum = _dtypes._BY_ENUM
    for fixed, type_attr, number_attr, type_list_attr, is_ref in info.outputs:
        ref = 100 if is_ref else 0
        if type_list_attr:
            types = attr_protos[type_list_attr].list.type
            structure.append(len(types))
            out_dtypes.extend(by_enum[t + ref] for t in types)
            continue
        enum = fixed or attr_protos[type_attr].type
        dtype = by_enum[enum + ref] if enum else by_enum[1]
        if number_attr:
            n = attr_protos[number_attr].i
            structure.append(n)
            out_dtypes.extend([dtype] * n)
        else:
            structure.append(None)
            out_dtypes.append(dtype)
    return structure, out_dtypes
