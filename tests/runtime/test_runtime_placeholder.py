"""`opgen_runtime.placeholder` builds TF's `tf.compat.v1.placeholder` node on the embedded
runtime, for a custom-op package whose modules hold no Placeholder (trial12 #9)."""

from __future__ import annotations

import pytest
from oracle.runtime_compare import normalised_nodes

from opgen_runtime import Graph, placeholder


@pytest.mark.oracle
def test_placeholders_equal_tfs(tf):
    cases = [("float32", None, None), ("float32", [None, 3], None), ("int64", [], "ids"), (tf.float16, [2, 2], None)]
    ours, theirs = Graph(), tf.Graph()
    with ours.as_default():
        tensors = [placeholder(dtype, shape, name) for dtype, shape, name in cases]
    with theirs.as_default():
        tf_tensors = [tf.compat.v1.placeholder(dtype, shape, name) for dtype, shape, name in cases]
    assert normalised_nodes(ours) == normalised_nodes(theirs)
    assert [(t.name, str(t.shape)) for t in tensors] == [(t.name, str(t.shape)) for t in tf_tensors]


def test_placeholder_feeds_a_shape_function():
    with Graph().as_default():
        x = placeholder("float32", [None, 3], name="x")
        assert (x.name, x.shape.as_list(), x.dtype.name) == ("x:0", [None, 3], "float32")
