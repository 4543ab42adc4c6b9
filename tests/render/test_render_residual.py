"""`opgen.render.residual`: formatting only the statements holding a chunk's residual lines
gives what black (and ruff) give for the whole chunk."""

from __future__ import annotations

import black
import pytest

from opgen.overrides.apidef import default_api_model
from opgen.python_api import literals
from opgen.python_api.function import SkippedOp, function_api
from opgen.render import emit, residual
from opgen.render.formatter import ChunkFormatter

LONG = "a_rather_long_name_for_a_value_that_makes_the_line_too_long_for_black"


def _black(text: str) -> str:
    return black.format_str(text, mode=black.Mode())


class _Recorder:
    """`format_many` with black, recording what it was sent."""

    def __init__(self):
        self.sent: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[str]:
        self.sent.append(texts)
        return [_black(t) for t in texts]


CHUNKS = {
    "top-level statement": f"x = call({LONG}, {LONG})\n\n\ny = 1\n",
    "deep return": (
        "def f(a):\n    if a:\n        try:\n"
        f"            return {LONG[:56]}_output._make(\n                a\n            )\n"
        "        except E:\n            pass\n    return 1\n"
    ),
    "def header and body line": (
        f"def {LONG}(first_argument, second_argument, third_argument):\n"
        '    """Doc."""\n'
        f"    return [first_argument[: len(_attr_{LONG})]] + first_argument[len(_attr_x) :]\n"
    ),
    "if header": f"def f(a):\n    if isinstance({LONG}, (list, tuple)) and len({LONG}) > 1000:\n        pass\n",
}


@pytest.mark.parametrize("name", sorted(CHUNKS))
def test_statements_alone_format_as_the_whole_chunk(name):
    text = CHUNKS[name]
    lines = emit.residual_lines(text, '"""Doc."""' if '"""Doc."""' in text else "")
    assert lines  # the case has residual lines
    recorder = _Recorder()
    assert residual.format_residuals(recorder, [(text, lines)]) == [_black(text)]
    assert len(recorder.sent) == 1 and text not in recorder.sent[0]  # only statement stubs sent


def test_lines_outside_a_framed_statement_send_the_whole_chunk():
    """An `elif` header (not framed alone) or a nested def: the formatter gets the whole chunk."""
    elif_chunk = (f"def f(a):\n    if a:\n        pass\n"
                  f"    elif isinstance({LONG}, (list, tuple)) and len({LONG}) > 1000:\n        pass\n")
    nested_def = f"def f(a):\n    def {LONG}(first_argument, second_argument, third_argument):\n        pass\n"
    for text in (elif_chunk, nested_def):
        recorder = _Recorder()
        assert residual.format_residuals(recorder, [(text, emit.residual_lines(text, ""))]) == [_black(text)]
        assert recorder.sent == [[text]]


def test_none_sends_the_whole_chunk_and_chunks_keep_their_order():
    chunks = [(CHUNKS["deep return"], None), (CHUNKS["top-level statement"], [1])]
    recorder = _Recorder()
    assert residual.format_residuals(recorder, chunks) == [_black(text) for text, _ in chunks]
    assert recorder.sent[0][0] == CHUNKS["deep return"]


@pytest.mark.oracle
@pytest.mark.parametrize("kind", ["black", "ruff"])
def test_every_residual_chunk_of_tfs_registry_formats_as_the_whole_chunk(tf, kind):
    """The shipped templates' chunks of TF's registry that need a formatter: statement stubs
    through `kind` give black's output for the whole chunk."""
    from oracle.tf_registry import tf_op_list

    ops = tf_op_list()
    model = default_api_model(ops)
    templates = emit.Templates.load(None)
    chunks = []
    for op in ops.op:
        api = function_api(op, model.get(op))
        if isinstance(api, SkippedOp):
            continue
        text, lines = emit.render_function(templates, api)
        if lines:
            assert lines == emit.residual_lines(text, literals.docstring_literal(api.docstring, "    "))
            chunks.append((text, lines))
    assert len(chunks) >= 3  # 5 in TF 2.21 (statements black and ruff split where the templates do not)
    formatter = ChunkFormatter(kind, jobs=1, use_cache=False)
    assert residual.format_residuals(formatter.format_many, chunks) == [_black(text) for text, _ in chunks]


def test_a_stub_whose_frame_comes_back_changed_sends_the_whole_chunk():
    text = CHUNKS["deep return"]
    sent: list[list[str]] = []

    def moving_frames(texts: list[str]) -> list[str]:
        sent.append(texts)
        return [_black(t).replace("if _:", "if _:  # moved", 1) if t.startswith("if _:") else _black(t) for t in texts]

    assert residual.format_residuals(moving_frames, [(text, emit.residual_lines(text, ""))]) == [_black(text)]
    assert sent[-1] == [text]
