"""docs/runtime.md's examples run as written: the embedded-graph example, then handing its
GraphDef to TensorFlow (run from the repository root, like the page says)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from support.paths import REPO
from support.projects import user_tools


def _python_blocks(page: str) -> list[str]:
    """The ```python blocks of docs/`page`."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.DOTALL)


@pytest.mark.oracle
def test_runtime_section_examples_run_as_written():
    blocks = _python_blocks("runtime.md")
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


@pytest.mark.oracle
def test_readme_own_op_library_steps_run_as_written(tmp_path):
    """README's "Your own op library" commands, run in a copy of the example project: the
    library compiles with the flags shown, `opgen build` writes its wrappers, and the last
    line runs one of its ops on TensorFlow."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Your own op library", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    first, script = block.split("\n", 1)
    assert first == "cd tests/data/custom_op_project"
    project = tmp_path / "custom_op_project"
    shutil.copytree(REPO / "tests" / "data" / "custom_op_project", project)
    bin_dir = user_tools(tmp_path)
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=project, capture_output=True, text=True, check=False,
        env=dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3"),
    )
    assert result.returncode == 0, result.stderr
    assert (project / "my_ops" / "gen_custom_ops.py").is_file()
    assert result.stdout.strip().endswith("tf.Tensor(1, shape=(), dtype=int64)"), result.stdout


def test_readme_is_short_and_maps_every_doc_page():
    """The README stays a front page (at most 200 lines) and links every page of docs/; every
    relative link in the README and docs/ names a file that exists."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    pages = sorted(p.name for p in (REPO / "docs").glob("*.md"))
    assert [p for p in pages if f"(docs/{p})" not in readme] == []
    for doc in [REPO / "README.md", *(REPO / "docs").glob("*.md")]:
        prose = re.sub(r"`[^`\n]*`", "", doc.read_text(encoding="utf-8"))  # a code span is no link
        for target in re.findall(r"\]\(([\w./-]*[A-Za-z][\w./-]*)(?:#[\w-]*)?\)", prose):
            assert (doc.parent / target).exists(), f"{doc.relative_to(REPO)} links to missing {target}"
