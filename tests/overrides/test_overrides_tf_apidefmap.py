"""Differential test of ApiDef merging and UpdateDocs against TF 2.21's own ApiDefMap (C API).

For every golden case made only of TF ApiDef files, TF's `TF_ApiDefMapPut` receives the
same files in opgen's load order; after `TF_ApiDefMapGet` (which runs UpdateDocs) each
op's ApiDef must equal the one in opgen's model. Cases where TF itself refuses a file
must be refused by TF too (opgen additionally refuses what TF ignores).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from google.protobuf import text_format
from support.overrides_cases import CASES, GOLDEN

from opgen.overrides.files import detect_format
from opgen.overrides.load import load_overrides, override_layers
from opgen.proto import api_def_pb2
from opgen_runtime.proto import op_def_pb2

pytestmark = pytest.mark.oracle


def _case_files(case: str) -> list[Path]:
    return [path for layer in override_layers(GOLDEN / case / "overrides", "overrides") for path, _ in layer]


def _apidef_only(case: str) -> bool:
    files = _case_files(case)
    return bool(files) and all(detect_format(p.read_text()) == "apidef" for p in files)


def _op_list(case: str) -> op_def_pb2.OpList:
    folder = GOLDEN / case
    ops_file = folder / "ops.pbtxt" if (folder / "ops.pbtxt").exists() else GOLDEN / "_ops.pbtxt"
    return text_format.Parse(ops_file.read_text(), op_def_pb2.OpList())


def _tf_api_defs(op_list: op_def_pb2.OpList, files: list[Path]) -> dict[str, api_def_pb2.ApiDef]:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from tensorflow.python.client import pywrap_tf_session as c_api
    from tensorflow.python.framework import c_api_util

    with c_api_util.tf_buffer(op_list.SerializeToString()) as buf:
        api_map = c_api.TF_NewApiDefMap(buf)
    try:
        for path in files:
            text = path.read_text()
            c_api.TF_ApiDefMapPut(api_map, text, len(text))
        result = {}
        for op in op_list.op:
            out = c_api.TF_ApiDefMapGet(api_map, op.name, len(op.name))
            try:
                result[op.name] = api_def_pb2.ApiDef.FromString(c_api.TF_GetBuffer(out))
            finally:
                c_api.TF_DeleteBuffer(out)
        return result
    finally:
        c_api.TF_DeleteApiDefMap(api_map)


MERGED = [c for c in CASES if not c.startswith("error_") and _apidef_only(c)]
REFUSED_BY_TF_TOO = ["error_unknown_input", "error_arg_order_not_permutation", "error_multiline_end_indented"]
# (a block whose end tag is indented runs to the end of the file: TF's parser then fails)


def test_there_are_apidef_cases():
    assert len(MERGED) >= 10, MERGED


@pytest.mark.parametrize("case", MERGED)
def test_merge_and_update_docs_match_tf(case, monkeypatch):
    monkeypatch.chdir(GOLDEN / case)
    op_list = _op_list(case)
    ours = load_overrides("overrides", op_list).api_defs
    theirs = _tf_api_defs(op_list, _case_files(case))
    for op in op_list.op:
        assert text_format.MessageToString(ours[op.name]) == text_format.MessageToString(theirs[op.name]), op.name


@pytest.mark.parametrize("case", REFUSED_BY_TF_TOO)
def test_tf_refuses_too(case):
    from tensorflow.python.framework import errors

    with pytest.raises((errors.FailedPreconditionError, errors.InvalidArgumentError)):
        _tf_api_defs(_op_list(case), _case_files(case))
