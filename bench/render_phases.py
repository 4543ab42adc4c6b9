"""Where a cold build's time goes (issue 22): the per-op rendering steps over TF 2.21's registry,
one process, and the timeline of a cold in-process build with its workers.

Per-op steps (CPU time of each step summed over the registry's ops, the minimum over
`--rounds` passes; one process, no fork), as `Renderer._render_one` runs them:
  * its Python API (`function_api` of its merged ApiDef, none here: the registry has no
    overrides, so the API is read from the OpDef as TF's seed ApiDef);
  * the Jinja render of its function and the lines left to the formatter (`render_function`);
  * its summary (`FunctionSummary.of`: the header names the chunk reads);
  * its OpDef statement (`op_def_statement`, serialization included).
Then `--rounds` cold builds as `bench/build_bench.py` times them (fresh cache and output
directory, ruff, `--jobs` workers), each as a timeline from the start of `render_tree`: when
the workers were forked, when this process's share of the ops was rendered and the workers'
came back, and when rendering, then the commit, ended (the steps after the shares run in this
process alone). Prints the load before and after.

Usage: python bench/render_phases.py [--rounds N] [--jobs N]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]  # this checkout, not what the venv points at


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    from oracle.tf_registry import tf_op_list

    from opgen.errors import Location
    from opgen.model import GatherResult, OpSource
    from opgen.outputs import tree_writer
    from opgen.overrides.apidef import ApiModel
    from opgen.python_api.function import SkippedOp, function_api
    from opgen.render import build, emit

    op_list = tf_op_list()
    gc.collect()
    gc.freeze()
    load_before = os.getloadavg()[0]
    ops = list(op_list.op)
    api_model = ApiModel({})
    templates = emit.Templates.load(None)
    apis = [api_model.merged(op) for op in ops]
    functions = [function_api(op, api) for op, api in zip(ops, apis)]
    rendered = [(f, emit.render_function(templates, f)[0]) for f in functions if not isinstance(f, SkippedOp)]
    steps = {
        "function_api": lambda: [function_api(op, api) for op, api in zip(ops, apis)],
        "Jinja render + residual lines": lambda: [emit.render_function(templates, f) for f, _ in rendered],
        "summary (header names)": lambda: [emit.FunctionSummary.of(f, text) for f, text in rendered],
        "OpDef statement": lambda: [
            emit.op_def_statement(build._op_list_entry(op.SerializeToString(deterministic=True))) for op in ops
        ],
    }
    print(f"TensorFlow registry: {len(ops)} ops; load {load_before:.2f}; per-op steps, CPU time over all ops "
          f"(minimum of {args.rounds} passes), one process:")
    total = 0.0
    for label, step in steps.items():
        best = float("inf")
        for _ in range(args.rounds):
            started = time.process_time()
            step()
            best = min(best, time.process_time() - started)
        total += best
        print(f"  {label:<32} {best:6.3f} s  {best / len(ops) * 1e6:6.1f} us/op")
    print(f"  {'all steps':<32} {total:6.3f} s  {total / len(ops) * 1e6:6.1f} us/op")

    gathered = GatherResult(op_list, {op.name: OpSource(Location("tf_registry.pbtxt", i + 1))
                                      for i, op in enumerate(ops)})
    marks: dict[str, float] = {}
    in_shares = build.in_shares

    def timed_shares(mine, work, shares):
        marks["fork"] = time.perf_counter()

        def timed_mine(first: int, step: int):
            result = mine(first, step)
            marks["own share rendered"] = time.perf_counter()
            return result

        result = in_shares(timed_mine, work, shares)
        marks["workers' shares back"] = time.perf_counter()
        return result

    build.in_shares = timed_shares
    print(f"cold builds (ruff, {args.jobs} workers), seconds from the start of render_tree:")
    with tempfile.TemporaryDirectory(prefix="opgen-phases-") as tmp:
        for i in range(args.rounds):
            os.environ["XDG_CACHE_HOME"] = f"{tmp}/cache{i}"
            out = Path(tmp) / f"out{i}"
            opts = build.BuildOptions(out=out, templates=None, formatter="ruff", jobs=args.jobs, modules={},
                                      root=REPO, config_location=Location("pyproject.toml"))
            marks.clear()
            started = time.perf_counter()
            result = build.render_tree(gathered, api_model, opts)
            marks["rendered"] = time.perf_counter()
            tree_writer.commit(out, tree_writer.compute_changes(out, result.files, result.hex_digests(), result.stale))
            marks["committed"] = time.perf_counter()
            print("  " + ", ".join(f"{label} {at - started:.3f}" for label, at in marks.items()))
    build.in_shares = in_shares
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
