"""opgen/spec/tf_core_ops.txt is TF 2.21's registry, as tools/gen_tf_core_ops.py writes it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support.paths import REPO

from opgen.spec.tf_core_ops import is_tf_core_op, tf_core_op_names


@pytest.mark.oracle
def test_core_op_names_are_tfs_registry():
    """Checked in a fresh process: libraries other tests load add their ops to this one's registry."""
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "gen_tf_core_ops.py"), "--check"], capture_output=True,
                          text=True, check=False, env=dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3"))
    assert proc.returncode == 0, proc.stderr


def test_lookup():
    assert is_tf_core_op("ApplyAdam") and is_tf_core_op("MatMul") and not is_tf_core_op("MyApplyAdam")
    assert not any(name.startswith("#") or not name for name in tf_core_op_names())
