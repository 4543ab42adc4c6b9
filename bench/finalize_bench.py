"""Per-op cost of opgen's Finalize + ValidateOpDef vs TF's own C++ (the oracle harness).

Replays the builder calls of every op of TF 2.21's registry (~1900 ops, from
`opgen.spec.emit_cc.op_def_calls`) through `build_op_def`, and the same calls through the
C++ harness (real OpDefBuilder + ValidateOpDef, including its pipe round trip), and prints
microseconds per op and the ratio. Run: `python bench/finalize_bench.py`.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path[:0] = [str(Path(__file__).resolve().parent.parent / p) for p in ("", "tests")]  # this checkout


def best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    from oracle.harness import SpecCall, get_oracle
    from oracle.tf_registry import tf_op_list

    from opgen.spec.builder import build_op_def, clear_spec_caches, registration
    from opgen.spec.emit_cc import op_def_calls

    ops = tf_op_list().op
    calls = [(op.name, op_def_calls(op)) for op in ops]
    for _name, c in calls:  # the harness takes SetTypeConstructor as (helper, args...)
        for i, (method, args) in enumerate(c):
            if method == "SetTypeConstructor":
                helper, rest = args[0].split("::", 1)[1].split("(", 1)
                parts = [p.strip().strip('"') for p in rest.rstrip(")").split(",") if p.strip()]
                c[i] = (method, (helper, *parts))
    regs = [registration(op.name, op_def_calls(op)) for op in ops]
    oracle = get_oracle()
    specs = [(name, [SpecCall(m, tuple(a)) for m, a in c]) for name, c in calls]

    def cold_build() -> None:
        clear_spec_caches()  # a gather parses each spec text once: measure without warm caches
        for r in regs:
            build_op_def(r)

    ours = best_of(5, cold_build)
    theirs = best_of(5, lambda: oracle.finalize_many(specs))
    n = len(ops)
    print(f"ops: {n}")
    print(f"opgen build_op_def (Finalize+ValidateOpDef): {ours * 1e6 / n:8.1f} us/op  ({ours:.3f} s)")
    print(f"TF OpDefBuilder via harness (incl. pipe):    {theirs * 1e6 / n:8.1f} us/op  ({theirs:.3f} s)")
    print(f"ratio opgen/TF: {ours / theirs:.1f}x")


if __name__ == "__main__":
    main()
