"""The README's runtime examples run as written: the embedded-graph example, then handing its
GraphDef to TensorFlow (run from the repository root, like the README says)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _python_blocks(section: str) -> list[str]:
    """The ```python blocks of the README section whose heading starts with `section`."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## " + section)
    end = text.find("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start:end], re.DOTALL)


@pytest.mark.oracle
def test_runtime_section_examples_run_as_written():
    blocks = _python_blocks("Runtime")
    assert len(blocks) >= 2 and "as_graph_def" in blocks[0] and "import_graph_def" in blocks[1]
    script = blocks[0] + blocks[1] + (  # still inside the example's `with tf.Graph()...`
        "    with tf.compat.v1.Session() as session:\n"
        "        print(session.run(y.name).tolist())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=False,
        env=dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3"),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-2:] == ["[[4.0,", "5.0]]"]
