"""Errors raised while tracing a `tf.function` through generated wrappers show the user's
code, not opgen's runtime: its frames are hidden as TF hides its own
(`opgen_runtime.tf.tracebacks`), and shown again with TF's when filtering is disabled. A
kernel's error shows the node's creation stack without them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.paths import REPO

pytestmark = pytest.mark.oracle


SCRIPT = textwrap.dedent('''\
    import sys

    import tensorflow as tf

    from generated import gen_math_ops


    @tf.function
    def scale(x):
        return gen_math_ops.add(x, "not a number")  # the user's line


    if sys.argv[1] == "unfiltered":
        tf.debugging.disable_traceback_filtering()
    try:
        scale(tf.constant([1.0]))
    except TypeError as e:
        print(e)
    else:
        raise SystemExit("no error")
''')


def _frames(message: str) -> list[str]:
    """The `File "...", line N, in F` lines of the message's "in user code:" part."""
    user_code = message.split("in user code:", 1)[1]
    return [line.strip() for line in user_code.splitlines() if line.strip().startswith("File ")]


def _traced_error(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "user_model.py"
    script.write_text(SCRIPT, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3"), check=False)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_tf_function_error_shows_the_users_line_and_no_runtime_frame(tmp_path):
    from opgen_runtime.tf import tracebacks as tf_tracebacks

    message = _traced_error(tmp_path, "filtered")
    assert "Expected float32 passed to parameter 'y' of op 'Add'" in message
    frames = _frames(message)
    line = SCRIPT.splitlines().index('    return gen_math_ops.add(x, "not a number")  # the user\'s line') + 1
    assert frames[0] == f'File "{tmp_path / "user_model.py"}", line {line}, in scale  *'
    assert not [f for f in frames if tf_tracebacks.RUNTIME_DIR in f], frames
    assert [f for f in frames if "gen_math_ops.py" in f]  # the generated module is the user's package

    unfiltered = _frames(_traced_error(tmp_path, "unfiltered"))  # as TF shows its own frames again
    assert [f for f in unfiltered if tf_tracebacks.RUNTIME_DIR in f]


NODE_SCRIPT = textwrap.dedent('''\
    import tensorflow as tf

    from generated import gen_array_ops


    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def flatten(x):
        return gen_array_ops.reshape(x, [4])  # the user's line


    try:
        flatten(tf.constant([1.0, 2.0, 3.0]))
    except tf.errors.InvalidArgumentError as e:
        print(e)
    else:
        raise SystemExit("no error")
''')


def test_kernel_error_names_the_node_defined_at_the_users_line_without_runtime_frames(tmp_path):
    """trial9 #7: a kernel's error in a `tf.function` shows where its node was created
    ("Detected at node Reshape defined at"): the user's frames and the generated module's, not
    the runtime's, though TensorFlow is first used while the function traces (the runtime's
    files join TF's filter stack then, under the filters tracing entered)."""
    script = tmp_path / "user_model.py"
    script.write_text(NODE_SCRIPT, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3"), check=False)
    assert run.returncode == 0, run.stderr
    defined_at = run.stdout.split("Detected at node Reshape defined at (most recent call last):", 1)[1]
    frames = [line.strip() for line in defined_at.split("Input to reshape", 1)[0].splitlines() if line.strip()]
    line = NODE_SCRIPT.splitlines().index("    return gen_array_ops.reshape(x, [4])  # the user's line") + 1
    assert frames[1] == f'File "{script}", line {line}, in flatten', frames
    assert frames[2].startswith(f'File "{REPO / "generated" / "gen_array_ops.py"}", line ') and len(frames) == 3, frames
