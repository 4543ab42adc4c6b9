"""Benchmark: `opgen build` of TensorFlow 2.21's whole registry vs TF's own C++ generator.

Every opgen figure is measured in rounds interleaved with TF's
`_pywrap_python_op_gen.GetPythonWrappers(OpList)` on the same OpList (one TF call right before
each opgen run), and printed as the median and range over the rounds, with the ratio
opgen / TF of each round (median and range):
  * opgen cold build (empty format cache, empty output dir), with ruff and with black;
  * opgen rebuild after changing one op (warm cache): only that op's chunk is re-rendered;
  * opgen no-op rebuild, in memory and from an OpList file.
Those figures are in-process (render + format + compare + write), like TF's call; imports
and interpreter start-up are excluded from both. Targets (median ratio, issue 22): cold <= 3x
TF, one op changed <= 0.5x, nothing changed <= 0.3x.
Then whole processes, interleaved: a cold `opgen build tf_registry.pb` (fresh cache and output,
the default formatter) against `python -c "import tensorflow"` + TF's generator on the same
file, wall and CPU time (the children's user + system time); target: opgen faster.

Usage: python bench/build_bench.py [--jobs N] [--skip-black] [--rounds N] [--process-rounds N]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]  # this checkout, not what the venv points at
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-black", action="store_true", help="skip the (slow) cold black builds")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds per figure (3 for black)")
    parser.add_argument("--process-rounds", type=int, default=3, help="interleaved rounds of the whole processes")
    args = parser.parse_args()

    from oracle.tf_registry import tf_op_list, tf_op_list_bytes
    from tensorflow.python.framework import _pywrap_python_op_gen

    from opgen.errors import Location
    from opgen.model import GatherResult, OpSource
    from opgen.outputs import tree_writer
    from opgen.overrides.apidef import ApiModel
    from opgen.render import build
    from opgen.spec.gather import gather
    from opgen.spec.oplist_io import dump_op_list

    op_list = tf_op_list()
    raw = tf_op_list_bytes()
    # `opgen build` never imports TensorFlow: its heap, here only for the oracle, is frozen so
    # that collections outside opgen's GC-free render do not walk it.
    gc.collect()
    gc.freeze()

    def gathered_of(ol) -> GatherResult:
        return GatherResult(ol, {op.name: OpSource(Location("tf_registry.pbtxt", i + 1)) for i, op in enumerate(ol.op)})

    def run(out: Path, gathered_ops: GatherResult, formatter: str) -> tuple[float, int]:
        opts = build.BuildOptions(out=out, templates=None, formatter=formatter, jobs=args.jobs, modules={},
                                  root=REPO, config_location=Location("pyproject.toml"))
        t = time.perf_counter()
        # As `opgen build` without overrides: default ApiDefs are built on demand.
        result = build.render_tree(gathered_ops, ApiModel({}), opts)
        tree_writer.commit(out, tree_writer.compute_changes(out, result.files, result.hex_digests(), result.stale))
        return time.perf_counter() - t, result.formatted

    def run_from_file(out: Path, source: Path) -> float:
        """A no-op `opgen build` from an OpList file: gather (cached text parse), render, compare."""
        t = time.perf_counter()
        gathered_file = gather([str(source)], include_internal=True, cache=True)
        opts = build.BuildOptions(
            out=out,
            templates=None,
            formatter="ruff",
            jobs=args.jobs,
            modules={"*": "gen_tf_registry"},
            root=REPO,
            config_location=Location("pyproject.toml"),
        )
        result = build.render_tree(gathered_file, ApiModel({}), opts)
        tree_writer.commit(out, tree_writer.compute_changes(out, result.files, result.hex_digests(), result.stale))
        return time.perf_counter() - t

    def tf_run() -> float:
        t = time.perf_counter()
        _pywrap_python_op_gen.GetPythonWrappers(raw)
        return time.perf_counter() - t

    tf_times: list[float] = []
    rows: list[tuple[str, list[float], list[float], str]] = []  # label, opgen times, opgen/TF per round, target

    def rounds(label: str, target: str, n: int, opgen_run) -> None:
        """`n` rounds of one TF call, then `opgen_run(round)` (returning seconds)."""
        times, ratios = [], []
        for i in range(n):
            tf = tf_run()
            tf_times.append(tf)
            times.append(opgen_run(i))
            ratios.append(times[-1] / tf)
        rows.append((label, times, ratios, target))

    started = time.strftime("%H:%M UTC %Y-%m-%d", time.gmtime())
    load_before = os.getloadavg()[0]
    changed = type(op_list)()
    changed.CopyFrom(op_list)
    target = next(op for op in changed.op if op.name == "MatMul")
    gathered_changed = gathered_of(changed)
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as tmp:
        chunks: list[int] = []

        def cold(i: int, formatter: str = "ruff") -> float:
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / f"cache-{formatter}{i}")
            seconds, formatted = run(Path(tmp) / f"out-{formatter}{i}", gathered_changed, formatter)
            chunks.append(formatted)
            return seconds

        rounds("cold build, ruff", "<= 3x", args.rounds, cold)
        ruff_chunks = chunks[-1]
        out = Path(tmp) / "out-ruff0"

        def one_op(i: int, formatter: str = "ruff", out: Path = out) -> float:
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / f"cache-{formatter}0")
            target.summary = f"Changed summary #{i} for the one-op-changed benchmark ({formatter})."
            return run(out, gathered_changed, formatter)[0]

        rounds("rebuild, one op changed (ruff)", "<= 0.5x", args.rounds, one_op)
        rounds("rebuild, nothing changed", "<= 0.3x", args.rounds, lambda i: run(out, gathered_changed, "ruff")[0])
        for suffix in (".pbtxt", ".pb"):  # from an OpList file, gathering (parse + validate) included
            source = Path(tmp) / f"tf_registry{suffix}"
            source.write_bytes(dump_op_list(changed, suffix[1:]))
            run_from_file(out, source)  # the first run parses the text and caches it
            rounds(f"rebuild from {suffix}, nothing changed", "<= 1x" if suffix == ".pbtxt" else "", args.rounds,
                   lambda i, source=source: run_from_file(out, source))
        same = None
        if not args.skip_black:
            black_rounds = max(1, min(3, args.rounds))
            rounds(f"cold build, black, {args.jobs} workers", "<= 3x", black_rounds, lambda i: cold(i, "black"))
            out_b = Path(tmp) / "out-black0"
            rounds("rebuild, one op changed (black)", "<= 0.5x", args.rounds, lambda i: one_op(i, "black", out_b))
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache-ruff0")
            run(out, gathered_changed, "ruff")
            same = (out / "gen_tf_registry.py").read_bytes() == (out_b / "gen_tf_registry.py").read_bytes()

    print(
        f"TensorFlow registry: {len(op_list.op)} ops; machine: {os.cpu_count()} cores; started {started}, "
        f"load {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; {ruff_chunks} chunks formatted in a cold build"
    )
    print(f"  {'':<44} {'median':>8} {'range':>15}  {'opgen/TF: median':>16} {'range':>13}  target")
    print(f"  {'TF GetPythonWrappers (C++), every round':<44} {statistics.median(tf_times):8.3f} "
          f"{min(tf_times):7.3f}-{max(tf_times):.3f} s")
    for label, times, ratios, target_text in rows:
        print(f"  {label:<44} {statistics.median(times):8.3f} {min(times):7.3f}-{max(times):.3f} s  "
              f"{statistics.median(ratios):15.2f}x {min(ratios):6.2f}-{max(ratios):.2f}x  {target_text}")
    if same is not None:
        print(f"  black and ruff outputs byte-identical: {'yes' if same else 'NO'}")
    if args.process_rounds:
        whole_processes(raw, args.process_rounds)
    return 0


def whole_processes(raw: bytes, rounds: int) -> None:
    """`opgen build` of the registry as a command against TensorFlow's import plus its generator."""
    import resource
    import subprocess

    def timed(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    tf_code = ("import sys, tensorflow\nfrom tensorflow.python.framework import _pywrap_python_op_gen\n"
               "_pywrap_python_op_gen.GetPythonWrappers(open(sys.argv[1], 'rb').read())")
    results: dict[str, list[tuple[float, float]]] = {"opgen": [], "tf": []}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="opgen-bench-process-") as tmp:
        source = Path(tmp) / "tf_registry.pb"
        source.write_bytes(raw)
        env = {**os.environ, "PYTHONPATH": str(REPO), "TF_CPP_MIN_LOG_LEVEL": "3"}
        for i in range(rounds):
            results["tf"].append(timed([sys.executable, "-c", tf_code, str(source)], env, tmp))
            results["opgen"].append(timed([sys.executable, "-m", "opgen", "build", str(source), "--out", f"out{i}"],
                                          {**env, "XDG_CACHE_HOME": f"{tmp}/cache{i}"}, tmp))
    load_after = os.getloadavg()[0]
    print(f"whole processes, {rounds} interleaved rounds, load {load_before:.2f} before, {load_after:.2f} after:")
    for label, key in (("opgen build tf_registry.pb (cold)", "opgen"), ("import tensorflow + GetPythonWrappers", "tf")):
        walls, cpus = [w for w, _ in results[key]], [c for _, c in results[key]]
        print(f"  {label:<44} wall {statistics.median(walls):6.2f} s ({min(walls):.2f}-{max(walls):.2f}), "
              f"CPU {statistics.median(cpus):6.2f} s ({min(cpus):.2f}-{max(cpus):.2f})")
    ratios = [o[0] / t[0] for o, t in zip(results["opgen"], results["tf"])]
    print(f"  opgen/TF wall per round: median {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}x), "
          "target < 1x")


if __name__ == "__main__":
    sys.exit(main())
