"""TensorFlow backend benchmark: per-call time through opgen-generated wrappers against
TensorFlow's own generated wrappers, in one process, eager and in graph mode.

    python bench/tf_backend_bench.py [--rounds R] [--calls N]

opgen's side: `opgen build` on TF's OpList for the ops below, and on the custom-op example
(tests/data/custom_op_project, compiled with g++ against the TF wheel). TF's side: TF's
shipped gen_*_ops functions, and the module `tf.load_op_library` returns for the custom op.
Rounds interleave the two sides (alternating which goes first); each round times N calls
per side. Reported per case: each side's median per-call time, and the per-round ratio
opgen / TF: its median and range over the rounds. Graph mode creates ops in a fresh
`tf.Graph` per round. Targets (median ratio): eager <= 1.3x, graph mode <= 1.1x.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]  # this checkout and its test oracles

OPS = ["Add", "MatMul", "AddN", "ConcatV2", "Sum", "Split", "Identity"]


def _opgen_modules(tmp: Path):
    """opgen's wrappers for OPS (from TF's OpList) and for the custom-op example."""
    from oracle.cxx_build import compile_op_library
    from oracle.tf_registry import tf_op_list
    from oracle.wrapper_modules import opgen_module

    from opgen_runtime.proto import op_def_pb2

    data = op_def_pb2.OpList(op=[op for op in tf_op_list().op if op.name in OPS]).SerializeToString()
    tf_ops, _ = opgen_module(data, "opgen_bench")
    project = REPO / "tests" / "data" / "custom_op_project"
    shutil.copytree(project, tmp, dirs_exist_ok=True)
    (tmp / "overrides").mkdir(exist_ok=True)
    (tmp / "my_ops").mkdir()
    library = compile_op_library(project / "custom_ops.cc", "_custom_ops.so")
    shutil.copy(library, tmp / "my_ops" / "_custom_ops.so")
    subprocess.run(
        [sys.executable, "-m", "opgen", "build"],
        cwd=tmp,
        check=True,
        capture_output=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    sys.path.insert(0, str(tmp))
    import my_ops.gen_custom_ops as custom

    return tf_ops, custom, tmp / "my_ops" / "_custom_ops.so"


def _cases(tf, ours, custom, tf_custom):
    """(name, opgen call, TF call) with inputs made in the current graph (or eagerly)."""
    from tensorflow.python.ops import gen_array_ops as array
    from tensorflow.python.ops import gen_math_ops as math

    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    v = tf.constant([1.0, 2.0, 3.0, 4.0])
    return [
        ("Add", lambda: ours.add(x, x), lambda: math.add(x, x)),
        ("MatMul", lambda: ours.mat_mul(x, x), lambda: math.mat_mul(x, x)),
        ("AddN(8)", lambda: ours.add_n([x] * 8), lambda: math.add_n([x] * 8)),
        ("ConcatV2(4)", lambda: ours.concat_v2([x] * 4, 0), lambda: array.concat_v2([x] * 4, 0)),
        ("Sum", lambda: ours.sum(x, 0), lambda: math._sum(x, 0)),
        ("Split(4)", lambda: ours.split(0, v, 4), lambda: array.split(0, v, 4)),
        ("Identity", lambda: ours.identity(x), lambda: array.identity(x)),
        (
            "custom OpgenScaledSquare",
            lambda: custom.opgen_scaled_square(x, scale=2.0),
            lambda: tf_custom.opgen_scaled_square(x, scale=2.0),
        ),
        # TF's fast path converts a Python scalar next to an EagerTensor itself, but rejects
        # an int for a float attr (both generators write the default `scale=1`), so both
        # sides take the eager fallback there.
        ("Add(x, 1.0)", lambda: ours.add(x, 1.0), lambda: math.add(x, 1.0)),
        (
            "custom, default scale=1 [fallback]",
            lambda: custom.opgen_scaled_square(x),
            lambda: tf_custom.opgen_scaled_square(x),
        ),
    ]


def _time(call, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        call()
    return (time.perf_counter() - start) / n


def _measure(tf, modules, rounds: int, calls: int, graph_mode: bool):
    samples: dict[str, tuple[list[float], list[float]]] = {}
    for r in range(rounds):
        for i in range(len(_cases(tf, *modules))):
            for index in (0, 1) if r % 2 == 0 else (1, 0):
                gc.collect()
                if graph_mode:
                    with tf.Graph().as_default():
                        name, *calls_by_side = _cases(tf, *modules)[i]
                        samples.setdefault(name, ([], []))[index].append(_time(calls_by_side[index], calls))
                else:
                    name, *calls_by_side = _cases(tf, *modules)[i]
                    samples.setdefault(name, ([], []))[index].append(_time(calls_by_side[index], calls))
    return samples


def _report(title: str, samples, target: float) -> bool:
    """Per op: opgen's and TF's median per-call time, and the ratio opgen / TF of each round
    (the two sides ran back to back, so load changes between rounds cancel): its median
    and its range over the rounds. The target applies to the median ratio."""
    print(f"\n{title} (per call, median over rounds; target: median ratio <= {target}x)")
    print(f"{'op':<26}{'opgen':>10}{'TF':>10}{'ratio median':>14}{'ratio range':>16}")
    ok = True
    for name, (ours, theirs) in samples.items():
        ratios = sorted(a / b for a, b in zip(ours, theirs))
        ratio = statistics.median(ratios)
        ok &= ratio <= target
        print(
            f"{name:<26}{statistics.median(ours) * 1e6:>8.1f}us{statistics.median(theirs) * 1e6:>8.1f}us"
            f"{ratio:>13.2f}x{ratios[0]:>9.2f}-{ratios[-1]:.2f}x"
        )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds per case")
    parser.add_argument("--calls", type=int, default=2000, help="calls per side per round (eager)")
    args = parser.parse_args()
    import tensorflow as tf

    with tempfile.TemporaryDirectory() as tmp:
        ours, custom, library = _opgen_modules(Path(tmp))
        tf_custom = tf.load_op_library(str(library))  # the path opgen's module loads (TF loads it once)
        modules = (ours, custom, tf_custom)
        for _, a, b in _cases(tf, *modules):  # warm up: kernels, caches, the library
            a(), b()
        load = os.getloadavg()
        print(f"TensorFlow {tf.__version__}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        eager = _measure(tf, modules, args.rounds, args.calls, graph_mode=False)
        graph = _measure(tf, modules, args.rounds, max(args.calls // 20, 50), graph_mode=True)
        ok = _report("Eager", eager, 1.3)
        ok &= _report("Graph mode (op creation in a tf.Graph)", graph, 1.1)
        print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
