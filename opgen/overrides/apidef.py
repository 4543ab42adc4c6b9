"""The per-op Python API model: one `ApiDef` per op, as TF's ApiDefMap holds it.

Overrides (OpGenOverride files and TF ApiDef files) compile into this model
(`opgen.overrides.load`); rendering and API snapshots consume only this model, so there is
one code path for both override formats. Mapping of OpGenOverride fields (TF 1.x's
`op_gen_overrides.proto`):
skip -> visibility SKIP, hide -> HIDDEN, rename_to -> endpoint[0].name, alias -> further
endpoints, attr_default -> attr.default_value, *_rename -> arg/attr rename_to.

The Python function is named after the FIRST ENDPOINT (its last dotted component, snake
case and hidden/reserved rules: `opgen.python_api`), further endpoints become module-level aliases.
TF itself always names the function after the op and uses endpoints only for
`tf_export`; the two agree whenever endpoint[0] is the op name (the default, and every
ApiDef file in tests/data/tf_python_api).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from opgen.errors import Location
from opgen.proto import api_def_pb2
from opgen_runtime.proto import op_def_pb2


def default_api_def(op_def: op_def_pb2.OpDef) -> api_def_pb2.ApiDef:
    """TF's ApiDefMap seed for an op (`op_gen_lib.cc` InitApiDefFromOpDef): visible, one endpoint named like the op."""
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
    # op name -> {"input x" / "output y" / "attr T" (graph names) or "endpoint": the override
    # line that last renamed it (an attr not renamed: that set its default); "arg_order": the
    # arg_order that placed the inputs; "doc summary", "doc description", "doc input x" (the
    # docstring's names: renamed ones): the field that last wrote that doc text, "renamed doc
    # summary", ...: the rename UpdateDocs rewrote a text no field wrote for}, so a diff names
    # the line behind each change
    renamed_at: dict[str, dict[str, Location]] = field(default_factory=dict)

    def get(self, op_def: op_def_pb2.OpDef) -> api_def_pb2.ApiDef:
        api = self.api_defs.get(op_def.name)
        return api if api is not None else default_api_def(op_def)

    def merged(self, op_def: op_def_pb2.OpDef) -> api_def_pb2.ApiDef | None:
        """The op's ApiDef if the model holds one; None means TF's seed (`default_api_def`), which
        `opgen.python_api.function.function_api` reads from the OpDef without building it."""
        return self.api_defs.get(op_def.name)


def default_api_model(op_list: op_def_pb2.OpList) -> ApiModel:
    return ApiModel({op.name: default_api_def(op) for op in op_list.op})
