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
