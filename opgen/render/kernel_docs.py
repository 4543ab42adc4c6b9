"""`[tool.opgen] docstring_kernels = true`: each op's docstring ends its description with
where its kernels run, "Runs on: CPU (float32, float64, int32), GPU (float32)." (off by
default, so that docstrings stay equal to TensorFlow's).

Types are spelled as the rest of the docstring spells them: the generator's names
(`python_op_gen.cc` TypeString, e.g. `half`, as in "Must be one of the following types:"),
not tf.DType names (`float16`), so one docstring never names one type two ways.

The paragraph goes into the op's ApiDef description. An op without a summary keeps TF's
"TODO: add doc." as its summary (`python_op_gen_internal.cc` GenPythonOp drops the
description of such an op), so its paragraph is not lost.

The render cache is keyed by the ApiDef of every op that has one, so it renders the op
again whenever its kernels change."""

from __future__ import annotations

import dataclasses
import textwrap
from typing import TYPE_CHECKING

from opgen.model import GatherResult
from opgen.overrides.apidef import ApiModel
from opgen.proto import api_def_pb2
from opgen.python_api.docstrings import TODO_SUMMARY
from opgen.python_api.literals import dtype_name
from opgen.spec.kernel_summary import device_types, runs_on

if TYPE_CHECKING:
    from opgen.proto import kernel_def_pb2


def runs_on_paragraph(text: str) -> str:
    return textwrap.fill(f"Runs on: {text}.", width=80, break_on_hyphens=False, break_long_words=False)


def with_kernel_docs(model: ApiModel, gathered: GatherResult) -> ApiModel:
    """`model` with the "Runs on" paragraph added to each op that has unlabelled kernels."""
    kernels: dict[str, list[kernel_def_pb2.KernelDef]] = {}
    for reg in gathered.kernels or []:
        kernels.setdefault(reg.kernel_def.op, []).append(reg.kernel_def)
    api_defs = dict(model.api_defs)
    for op_def in gathered.op_list.op:
        types = device_types(kernels.get(op_def.name, []), op_def, type_name=dtype_name)
        if not types:
            continue
        api = api_def_pb2.ApiDef()
        api.CopyFrom(model.get(op_def))
        paragraph = runs_on_paragraph(runs_on(types))
        api.description = f"{api.description.rstrip()}\n\n{paragraph}" if api.description.strip() else paragraph
        if not api.summary:
            api.summary = TODO_SUMMARY
        api_defs[op_def.name] = api
    return dataclasses.replace(model, api_defs=api_defs)
