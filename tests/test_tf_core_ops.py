"""opgen/spec/tf_core_ops.txt is TF 2.21's registry, as tools/gen_tf_core_ops.py writes it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from opgen.spec.tf_core_ops import is_tf_core_op, tf_core_op_names

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.oracle
def test_core_op_names_are_tfs_registry():
    spec = importlib.util.spec_from_file_location("gen_tf_core_ops", REPO / "tools" / "gen_tf_core_ops.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.OUTPUT.read_text(encoding="utf-8") == tool.core_op_names_text(), "run tools/gen_tf_core_ops.py"
    from oracle.tf_registry import tf_op_list

    assert tf_core_op_names() == {op.name for op in tf_op_list().op}


def test_lookup():
    assert is_tf_core_op("ApplyAdam") and is_tf_core_op("MatMul") and not is_tf_core_op("MyApplyAdam")
    assert not any(name.startswith("#") or not name for name in tf_core_op_names())
