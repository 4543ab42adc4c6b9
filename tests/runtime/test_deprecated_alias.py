"""A deprecated endpoint (`endpoint { name: "Mean" deprecated: true }` in the example's
overrides) binds a wrapper that warns at each call, as TF's `deprecated_endpoints` does, and
otherwise is its function: same signature, same result."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from support.paths import REPO

_SCRIPT = textwrap.dedent('''
    import inspect, sys, warnings
    sys.path.insert(0, "generated")
    import gen_math_ops as m

    assert inspect.signature(m.mean) == inspect.signature(m.reduce_mean)
    assert m.mean.__name__ == "mean" and m.mean.__wrapped__ is m.reduce_mean
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept = m.reduce_mean([[1.0, 5.0], [3.0, 2.0]], 0)
        old = m.mean([[1.0, 5.0], [3.0, 2.0]], 0)  # the line the warning names
    assert [type(w.message) for w in caught] == [DeprecationWarning], caught
    assert str(caught[0].message) == "gen_math_ops.mean is deprecated: use gen_math_ops.reduce_mean instead"
    assert caught[0].filename == "<string>" and caught[0].lineno == 11, (caught[0].filename, caught[0].lineno)
    assert old.op.type == kept.op.type == "Mean" and old.shape.as_list() == kept.shape.as_list() == [2]
    print("ok")
''')


def test_a_deprecated_alias_warns_at_its_caller_and_is_its_function():
    proc = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stdout + proc.stderr


def test_a_deprecated_alias_of_a_split_module_names_the_package_not_its_private_part():
    """trial28 #4: with max_ops_per_module, the warning named `gen_x._part2.alias`; users import
    `gen_x`, whose __init__ holds every part's functions."""
    from opgen_runtime.ops.execute import deprecated_alias

    def scale(x: float) -> float:
        return x

    scale.__module__ = "fwlib.ops.gen_math_ops._part2"
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert deprecated_alias(scale, "fw_scale")(2.0) == 2.0
    assert [str(w.message) for w in caught] == [
        "fwlib.ops.gen_math_ops.fw_scale is deprecated: use fwlib.ops.gen_math_ops.scale instead"]
