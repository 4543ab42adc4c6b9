"""Runtime benchmark: op creation through opgen-generated wrappers, embedded runtime vs
TensorFlow graph mode (TF's own generated wrappers in a tf.Graph), measured in one run;
and import time of a generated 155-op module (TF's gen_math_ops op set) vs executing TF's
gen_math_ops.

    python bench/runtime_bench.py [--repeat N] [--large-repeat N] [--only-large]

Targets: embedded >= 20x faster per op; import <= 0.2x of TF's module execution; a 100k-op
graph built >= 20x faster than TF's and exported (`as_graph_def`) in <= 1x TF's time.
Generated modules are built with `opgen build` from TF's own OpList and cached under
${XDG_CACHE_HOME:-~/.cache}/opgen/bench/.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
REPO = Path(__file__).resolve().parent.parent
# This checkout, not whatever `opgen` the venv's editable install points at.
sys.path[:0] = [str(REPO), str(REPO / "tests")]

ARRAY_OPS = ["ConcatV2", "Split", "Identity", "Placeholder"]


def _build_modules() -> Path:
    """gen_math_ops.py (TF's 155 gen_math_ops ops) and gen_array_ops.py, rendered by opgen."""
    from oracle.tf_registry import tf_op_list
    from tensorflow.python.ops import gen_math_ops

    from opgen.render import emit
    from opgen_runtime.proto import op_def_pb2

    ops = tf_op_list().op
    math = op_def_pb2.OpList(op=[op for op in ops if hasattr(gen_math_ops, op.name)])
    array = op_def_pb2.OpList(op=[op for op in ops if op.name in ARRAY_OPS])
    render = b"".join(
        p.read_bytes()
        for p in sorted((REPO / "opgen" / "render").glob("*.py"))
        + emit.template_files(REPO / "templates")  # (not the __pycache__ a test run leaves)
    )
    key = hashlib.sha256(
        math.SerializeToString() + array.SerializeToString() + render
    ).hexdigest()[:20]
    out = (
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        / "opgen"
        / "bench"
        / key
    )
    if not (out / "gen" / "gen_math_ops.py").exists():
        (out / "overrides").mkdir(parents=True, exist_ok=True)
        (out / "math_ops.pb").write_bytes(math.SerializeToString())
        (out / "array_ops.pb").write_bytes(array.SerializeToString())
        subprocess.run(
            [
                sys.executable,
                "-m",
                "opgen",
                "build",
                "math_ops.pb",
                "array_ops.pb",
                "--overrides",
                "overrides",
                "--out",
                "gen",
            ],
            cwd=out,
            check=True,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
        )
    return out / "gen"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _time_once(make_graph, setup, call, n: int) -> float:
    """Microseconds per call for `n` calls in a fresh graph.

    The heap is collected first, so neither side pays for collecting the other side's
    garbage (TF's graphs of earlier rounds are large reference cycles)."""
    graph = make_graph()
    with graph.as_default():
        args = setup()
        gc.collect()
        start = time.perf_counter()
        for _ in range(n):
            call(*args)
        return (time.perf_counter() - start) / n * 1e6


CASES = ["Add", "MatMul", "AddN(8)", "ConcatV2(4)", "Sum", "Split(4)", "Identity"]


def _ours_cases(gen_dir: Path) -> dict[str, tuple]:
    """label -> (make_graph, setup, call, n) through opgen's generated wrappers."""
    from opgen_runtime import Graph

    math = _load(gen_dir / "gen_math_ops.py", "opgen_bench.gen_math_ops")
    array = _load(gen_dir / "gen_array_ops.py", "opgen_bench.gen_array_ops")

    def setup():
        return (
            tuple(array.placeholder(dtype="float32", shape=[4, 4]) for _ in range(8)),
        )

    calls = {
        "Add": lambda p: math.add(p[0], p[1]),
        "MatMul": lambda p: math.mat_mul(p[0], p[1]),
        "AddN(8)": lambda p: math.add_n(list(p)),
        "ConcatV2(4)": lambda p: array.concat_v2(list(p[:4]), 0),
        "Sum": lambda p: math.sum(p[0], [0], keep_dims=False),
        "Split(4)": lambda p: array.split(0, p[0], 4),
        "Identity": lambda p: array.identity(p[0]),
    }
    return {label: (Graph, setup, call, 400) for label, call in calls.items()}


def _tf_cases() -> dict[str, tuple]:
    """label -> (make_graph, setup, call, n) through TF's own generated wrappers in a tf.Graph."""
    import tensorflow as tf
    from tensorflow.python.ops import gen_array_ops as tf_array
    from tensorflow.python.ops import gen_math_ops as tf_math

    def setup():
        return (
            tuple(
                tf_array.placeholder(dtype=tf.float32, shape=[4, 4]) for _ in range(8)
            ),
        )

    calls = {
        "Add": lambda p: tf_math.add(p[0], p[1]),
        "MatMul": lambda p: tf_math.mat_mul(p[0], p[1]),
        "AddN(8)": lambda p: tf_math.add_n(list(p)),
        "ConcatV2(4)": lambda p: tf_array.concat_v2(list(p[:4]), 0),
        "Sum": lambda p: tf_math._sum(p[0], [0], keep_dims=False),
        "Split(4)": lambda p: tf_array.split(0, p[0], 4),
        "Identity": lambda p: tf_array.identity(p[0]),
    }
    return {label: (tf.Graph, setup, call, 60) for label, call in calls.items()}


LARGE_ROUNDS = 20_000  # 5 ops a round (Add, MatMul, Identity, Sum + its axis Const)


def _large_graph(make_graph, setup, step) -> str:
    """Builds a 100k-op graph (plus 4 Placeholders) in a fresh graph; returns "µs per op,
    µs per op over the first 10k ops, over the last 10k, as_graph_def seconds, CPU µs per op"
    (the process's CPU time: less sensitive than wall time to other jobs on the machine)."""
    graph = make_graph()
    with graph.as_default():
        p = setup()
        x = p[0]
        gc.collect()
        cpu_start = time.process_time()
        start = time.perf_counter()
        marks = [start]
        for i in range(LARGE_ROUNDS):
            x = step(x, p)
            if (i + 1) % (LARGE_ROUNDS // 10) == 0:
                marks.append(time.perf_counter())
        built = time.perf_counter()
        cpu_built = time.process_time()
        graph.as_graph_def()
        exported = time.perf_counter()
    ops = LARGE_ROUNDS * 5
    window = ops / 10 / 1e6
    result = (
        f"{(built - start) / ops * 1e6} {(marks[1] - marks[0]) / window} "
        f"{(marks[-1] - marks[-2]) / window} {exported - built} "
        f"{(cpu_built - cpu_start) / ops * 1e6}"
    )
    del graph, p, x
    gc.collect()
    return result


def _large_steps(gen_dir: Path, side: str) -> tuple:
    if side == "ours":
        from opgen_runtime import Graph

        math = _load(gen_dir / "gen_math_ops.py", "opgen_bench.gen_math_ops")
        array = _load(gen_dir / "gen_array_ops.py", "opgen_bench.gen_array_ops")
        make_graph, float32, sum_ = Graph, "float32", math.sum
    else:
        import tensorflow as tf
        from tensorflow.python.ops import gen_array_ops as array
        from tensorflow.python.ops import gen_math_ops as math

        make_graph, float32, sum_ = tf.Graph, tf.float32, math._sum

    def setup():
        return [array.placeholder(dtype=float32, shape=[4, 4]) for _ in range(4)]

    def step(x, p):
        x = math.add(x, p[1])
        y = math.mat_mul(x, p[2])
        array.identity(y)
        sum_(y, [0], keep_dims=False)
        return x

    return make_graph, setup, step


def _worker(side: str, gen_dir: Path) -> int:
    """Times cases named on stdin ("ours Add", "tf Add"), one result line each.

    The "embedded" worker never imports TensorFlow (the embedded runtime's setting); the
    "tensorflow" worker serves TF's cases and ours with TF loaded in the same process
    (opgen's wrappers then also check whether TF is building a graph)."""
    cases = {("ours", label): case for label, case in _ours_cases(gen_dir).items()}
    if side == "tensorflow":
        cases.update({("tf", label): case for label, case in _tf_cases().items()})
    print("ready", flush=True)
    for line in sys.stdin:
        which, label = line.split(maxsplit=1)
        if label.strip() == "large":
            print(_large_graph(*_large_steps(gen_dir, which)), flush=True)
        else:
            print(_time_once(*cases[which, label.strip()]), flush=True)
    return 0


class _Worker:
    def __init__(self, side: str, gen_dir: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", side, str(gen_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=_subprocess_env(),
        )
        assert self.process.stdout.readline().strip() == "ready"

    def time(self, which: str, label: str) -> float:
        self.process.stdin.write(f"{which} {label}\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def large(self, which: str) -> list[float]:
        self.process.stdin.write(f"{which} large\n")
        self.process.stdin.flush()
        return [float(v) for v in self.process.stdout.readline().split()]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def bench_large_graph(gen_dir: Path, repeat: int) -> tuple[list, list]:
    """`repeat` interleaved rounds of the 100k-op build + export: (ours, TF) per round, each
    [µs per op, µs per op first 10k, last 10k, as_graph_def s, CPU µs per op]; ours in a
    process without TF.
    """
    embedded = _Worker("embedded", gen_dir)
    tensorflow = _Worker("tensorflow", gen_dir)
    ours, theirs = [], []
    try:
        for _ in range(repeat):
            ours.append(embedded.large("ours"))
            theirs.append(tensorflow.large("tf"))
        return ours, theirs
    finally:
        embedded.close()
        tensorflow.close()


def _report_large_graph(gen_dir: Path, repeat: int) -> None:
    ours, theirs = bench_large_graph(gen_dir, repeat)

    def stat(rows, i):
        values = [row[i] for row in rows]
        return min(values), statistics.median(values)

    print(
        f"100k-op graph (Add, MatMul, Identity, Sum + Const; {repeat} interleaved rounds, fresh "
        "graph each, GC on, heap collected first): min / median"
    )
    labels = [
        "µs per op",
        "µs per op, first 10k",
        "µs per op, last 10k",
        "as_graph_def s",
        "CPU µs per op",
    ]
    for i, label in enumerate(labels):
        (o_min, o_med), (t_min, t_med) = stat(ours, i), stat(theirs, i)
        print(
            f"  {label:<22} embedded {o_min:8.3f} / {o_med:8.3f}   "
            f"tensorflow {t_min:8.3f} / {t_med:8.3f}"
        )
    (o_min, o_med), (t_min, t_med) = stat(ours, 0), stat(theirs, 0)
    ratio, low, high = _round_ratios([r[0] for r in theirs], [r[0] for r in ours])
    print(
        f"  creation speed-up: {t_min / o_min:.1f}x by min, {t_med / o_med:.1f}x by median; "
        f"per round TF / ours: median {ratio:.1f}x, range {low:.1f}-{high:.1f}x (target >= 20x)"
    )
    ratio, low, high = _round_ratios([r[4] for r in theirs], [r[4] for r in ours])
    print(
        f"  creation speed-up in CPU time, per round TF / ours: median {ratio:.1f}x, "
        f"range {low:.1f}-{high:.1f}x"
    )
    (o_min, o_med), (t_min, t_med) = stat(ours, 3), stat(theirs, 3)
    print(
        f"  export ratio (ours / TF): {o_min / t_min:.2f}x by min, {o_med / t_med:.2f}x by "
        "median (target <= 1x)"
    )
    (f_min, f_med), (l_min, l_med) = stat(ours, 1), stat(ours, 2)
    print(
        f"  embedded last 10k / first 10k µs per op: {l_min / f_min:.2f}x by min, "
        f"{l_med / f_med:.2f}x by median (flat = 1x)"
    )


def bench_op_creation(
    gen_dir: Path, repeat: int
) -> list[tuple[str, list[float], list[float], list[float]]]:
    """(label, ours without TF loaded, ours with TF loaded, TF): µs per op in each of `repeat`
    interleaved rounds, each in a fresh graph."""
    embedded = _Worker("embedded", gen_dir)
    tensorflow = _Worker("tensorflow", gen_dir)
    try:
        results = []
        for label in CASES:
            rounds: tuple[list[float], list[float], list[float]] = ([], [], [])
            for _ in range(repeat):
                rounds[0].append(embedded.time("ours", label))
                rounds[1].append(tensorflow.time("ours", label))
                rounds[2].append(tensorflow.time("tf", label))
            results.append((label, *rounds))
        return results
    finally:
        embedded.close()
        tensorflow.close()


def _round_ratios(
    numerators: list[float], denominators: list[float]
) -> tuple[float, float, float]:
    """(median, lowest, highest) of the per-round ratio (the speed-up, given TF's times first)."""
    ratios = [n / d for n, d in zip(numerators, denominators)]
    return statistics.median(ratios), min(ratios), max(ratios)


_IMPORT_SCRIPT = """
import importlib.util, sys, time
sys.path.insert(0, {tests!r})
{pre}
spec = importlib.util.spec_from_file_location({name!r}, {path!r})
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
start = time.perf_counter()
if {from_source!r}:
    with open(spec.origin, "rb") as f:
        exec(compile(f.read(), spec.origin, "exec"), module.__dict__)
else:
    spec.loader.exec_module(module)
print((time.perf_counter() - start) * 1000)
"""


def _subprocess_env() -> dict[str, str]:
    """This checkout on the path; bytecode caching on (this machine sets PYTHONDONTWRITEBYTECODE,
    which would make every generated-module import compile from source)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _import_ms(path: Path, pre: str, name: str, from_source: bool = False) -> float:
    """Milliseconds, in a fresh process, of executing the module at `path` after `pre` ran.

    By default the module runs from its cached bytecode, as a user's import does (a first
    import warms `__pycache__`, and TF's modules ship with theirs); `from_source` times
    compiling the source and executing it instead.
    """
    code = _IMPORT_SCRIPT.format(
        tests=str(REPO / "tests"),
        pre=pre,
        name=name,
        path=str(path),
        from_source=from_source,
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=_subprocess_env(),
    )
    return float(out.stdout.strip().splitlines()[-1])


_RUNTIME_IMPORTED = "import typing, opgen_runtime.ops.op_def_library, opgen_runtime.ops.execute"


def bench_import(gen_dir: Path, repeat: int) -> dict[str, list[float]]:
    """Import times (ms) in `repeat` interleaved rounds, one fresh process per import: ours
    from bytecode with opgen_runtime imported ("ours"), compiled from source, cold (importing
    opgen_runtime too), and TF's gen_math_ops executed again after `import tensorflow`."""
    from tensorflow.python.ops import gen_math_ops as tf_math

    module = gen_dir / "gen_math_ops.py"
    name = "opgen_bench.gen_math_ops"
    cases = {
        "ours": (module, _RUNTIME_IMPORTED, name, False),
        "ours_from_source": (module, _RUNTIME_IMPORTED, name, True),
        "ours_cold": (module, "", name, False),
        "tf": (Path(tf_math.__file__), "import tensorflow", "tf_gen_math_ops_again", False),
    }
    for case in cases.values():
        _import_ms(*case)  # the first run writes the bytecode cache
    times: dict[str, list[float]] = {label: [] for label in cases}
    for _ in range(repeat):
        for label, case in cases.items():
            times[label].append(_import_ms(*case))
    return times


def _registration_ms(gen_dir: Path, repeat: int) -> float:
    """Median time, each in a fresh process, of registering TF's 155 gen_math_ops OpDefs (what a module import does)."""
    from oracle.tf_registry import tf_op_list
    from tensorflow.python.ops import gen_math_ops

    from opgen_runtime.proto import op_def_pb2

    blob = gen_dir / "math_ops_oplist.pb"
    blob.write_bytes(
        op_def_pb2.OpList(
            op=[op for op in tf_op_list().op if hasattr(gen_math_ops, op.name)]
        ).SerializeToString()
    )
    code = (
        f"import time; from opgen_runtime import registry; data = open({str(blob)!r}, 'rb').read(); "
        "s = time.perf_counter(); registry.register_op_list('m', data); print((time.perf_counter() - s) * 1000)"
    )
    times = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env=_subprocess_env())  # fmt: skip
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat",
        type=int,
        default=15,
        help="interleaved rounds per op / imports per module",
    )
    parser.add_argument(
        "--large-repeat",
        type=int,
        default=5,
        help="interleaved rounds of the 100k-op graph (a TF round takes ~15 s)",
    )
    parser.add_argument(
        "--only-large", action="store_true", help="only the 100k-op graph row"
    )
    parser.add_argument(
        "--worker", nargs=2, metavar=("SIDE", "GEN_DIR"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.worker:
        return _worker(args.worker[0], Path(args.worker[1]))
    gen_dir = _build_modules()
    _report_large_graph(gen_dir, args.large_repeat)
    if args.only_large:
        return 0
    print(
        f"op creation through generated wrappers: µs per op, median of {args.repeat} interleaved "
        "rounds of 400 ops (TF: 60) in a fresh graph; speed-up: the median of the per-round "
        "ratios TF / opgen (lowest-highest round). embedded = opgen's wrappers in a process "
        "without TensorFlow, tensorflow = TF's own generated wrappers in a tf.Graph; last "
        "columns: opgen's wrappers in the TF process"
    )
    print(
        f"{'op':<12} {'embedded':>9} {'tensorflow':>11} {'speed-up':>20}   "
        f"{'embedded, TF loaded':>20} {'speed-up':>20}"
    )
    medians, medians_tf_loaded = [], []
    for label, ours, ours_tf_loaded, theirs in bench_op_creation(gen_dir, args.repeat):
        ratio, low, high = _round_ratios(theirs, ours)
        ratio_tf, low_tf, high_tf = _round_ratios(theirs, ours_tf_loaded)
        medians.append(ratio)
        medians_tf_loaded.append(ratio_tf)
        print(
            f"{label:<12} {statistics.median(ours):>9.1f} {statistics.median(theirs):>11.1f} "
            f"{f'{ratio:.1f}x ({low:.1f}-{high:.1f})':>20}   "
            f"{statistics.median(ours_tf_loaded):>20.1f} "
            f"{f'{ratio_tf:.1f}x ({low_tf:.1f}-{high_tf:.1f})':>20}"
        )
    print(
        f"median speed-up: lowest op {min(medians):.1f}x, geometric mean "
        f"{statistics.geometric_mean(medians):.1f}x (TF loaded in the same process: lowest "
        f"{min(medians_tf_loaded):.1f}x, geometric mean "
        f"{statistics.geometric_mean(medians_tf_loaded):.1f}x); target >= 20x for every op"
    )
    times = bench_import(gen_dir, args.repeat)
    median = {label: statistics.median(values) for label, values in times.items()}
    warm, low, high = _round_ratios(times["ours"], times["tf"])  # ours / TF per round
    cold = statistics.median(o / t for o, t in zip(times["ours_cold"], times["tf"]))
    print(
        f"import of generated 155-op gen_math_ops, median of {args.repeat} interleaved rounds of "
        f"fresh processes, from cached bytecode like TF's: {median['ours']:.1f} ms with "
        f"opgen_runtime already imported, {median['ours_cold']:.1f} ms cold (incl. importing "
        f"opgen_runtime); executing TF's gen_math_ops (from its .pyc): {median['tf']:.1f} ms"
    )
    print(
        f"import ratio ours / TF per round: warm median {warm:.3f}x (range {low:.3f}-{high:.3f}x), "
        f"cold median {cold:.3f}x (target <= 0.2x warm)"
    )
    print(
        f"  compiling from source instead (no bytecode cache): {median['ours_from_source']:.1f} ms "
        f"({median['ours_from_source'] / median['tf']:.3f}x)"
    )
    print(
        f"  of which opgen_runtime's own work (register_op_list of the 155 OpDefs): "
        f"{_registration_ms(gen_dir, args.repeat):.2f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
