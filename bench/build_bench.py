"""Benchmark: `opgen build` of TensorFlow 2.21's whole registry vs TF's own C++ generator.

Prints, from one run on this machine:
  * TF: `_pywrap_python_op_gen.GetPythonWrappers(OpList)` on the same OpList (best of 3);
  * opgen cold build (empty format cache, empty output dir), with ruff and with black;
  * opgen rebuild after changing one op (warm cache): only that op's chunk is re-rendered;
  * opgen no-op rebuild.
opgen's figures are in-process (render + format + compare + write), like TF's call;
imports and interpreter start-up are excluded from both. Targets: cold <= 10x TF,
one-op-changed <= 1x TF.

Usage: python bench/build_bench.py [--jobs N] [--skip-black]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _best(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-black", action="store_true", help="skip the (slow) cold black build")
    parser.add_argument("--repeat", type=int, default=3, help="runs per opgen figure (the best is shown)")
    args = parser.parse_args()

    from oracle.tf_registry import tf_op_list, tf_op_list_bytes
    from tensorflow.python.framework import _pywrap_python_op_gen

    from opgen.apidef import ApiModel
    from opgen.errors import Location
    from opgen.render import build, tree_writer
    from opgen.spec.gather import gather
    from opgen.spec.model import GatherResult, OpSource
    from opgen.spec.oplist_io import dump_op_list

    op_list = tf_op_list()
    raw = tf_op_list_bytes()
    tf_time = _best(lambda: _pywrap_python_op_gen.GetPythonWrappers(raw))

    def gathered(ol):
        return GatherResult(ol, {op.name: OpSource(Location("tf_registry.pbtxt", i + 1)) for i, op in enumerate(ol.op)})

    def run(out: Path, ol, formatter: str) -> tuple[float, int]:
        opts = build.BuildOptions(out=out, templates=None, formatter=formatter, jobs=args.jobs, modules={},
                                  root=REPO, config_location=Location("pyproject.toml"))
        t = time.perf_counter()
        # As `opgen build` without overrides: default ApiDefs are built on demand.
        result = build.render_tree(gathered(ol), ApiModel({}), opts)
        tree_writer.commit(out, build.compute_changes(out, result.files))
        return time.perf_counter() - t, result.formatted

    def run_from_file(out: Path, source: Path) -> float:
        """A no-op `opgen build` from an OpList file: gather (cached text parse), render, compare."""
        t = time.perf_counter()
        gathered_file = gather([str(source)], include_internal=True, cache=True)
        opts = build.BuildOptions(out=out, templates=None, formatter="ruff", jobs=args.jobs, modules={"*": "gen_tf_registry"},
                                  root=REPO, config_location=Location("pyproject.toml"))
        result = build.render_tree(gathered_file, ApiModel({}), opts)
        tree_writer.commit(out, build.compute_changes(out, result.files))
        return time.perf_counter() - t

    rows = [("TF GetPythonWrappers (C++), full regeneration, best of 3", tf_time, None, "")]
    changed = type(op_list)()
    changed.CopyFrom(op_list)
    target = next(op for op in changed.op if op.name == "MatMul")
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as tmp:
        colds = []
        for i in range(args.repeat):
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / f"cache{i}")
            colds.append(run(Path(tmp) / f"out{i}", op_list, "ruff"))
        cold = min(t for t, _ in colds)
        rows.append((f"opgen cold build, ruff ({colds[0][1]} chunks formatted), best of {args.repeat}", cold, cold / tf_time, "<= 10x"))
        out = Path(tmp) / "out0"
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache0")
        ones = []
        for i in range(args.repeat + 2):
            target.summary = f"Changed summary #{i} for the one-op-changed benchmark."
            ones.append(run(out, changed, "ruff")[0])
        one = min(ones)
        rows.append((f"opgen rebuild, one op changed (ruff), best of {len(ones)}", one, one / tf_time, "<= 1x"))
        noop = min(run(out, changed, "ruff")[0] for _ in range(3))
        rows.append(("opgen rebuild, nothing changed, best of 3", noop, noop / tf_time, ""))
        for suffix in (".pbtxt", ".pb"):  # from an OpList file, gathering (parse + validate) included
            source = Path(tmp) / f"tf_registry{suffix}"
            source.write_bytes(dump_op_list(changed, suffix[1:]))
            run_from_file(out, source)  # the first run parses the text and caches it
            from_file = min(run_from_file(out, source) for _ in range(3))
            rows.append((f"opgen rebuild from {suffix}, nothing changed, best of 3", from_file, from_file / tf_time,
                         "<= 1x" if suffix == ".pbtxt" else ""))
        if not args.skip_black:
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache_black")
            out_b = Path(tmp) / "out_black"
            cold_b, n_b = run(out_b, changed, "black")
            rows.append((f"opgen cold build, black, {args.jobs} workers ({n_b} chunks)", cold_b, cold_b / tf_time, "<= 10x"))
            target.summary = "Changed for black."
            one_black = run(out_b, changed, "black")[0]
            rows.append(("opgen rebuild, one op changed (black)", one_black, one_black / tf_time, "<= 1x"))
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache0")
            run(out, changed, "ruff")
            same = (out / "gen_tf_registry.py").read_bytes() == (out_b / "gen_tf_registry.py").read_bytes()
            rows.append(("black and ruff outputs byte-identical", float(same), None, ""))

    print(f"TensorFlow registry: {len(op_list.op)} ops; machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    for label, seconds, ratio, target_text in rows:
        if label.startswith("black and ruff"):
            print(f"  {label:<62} {'yes' if seconds else 'NO'}")
            continue
        ratio_text = f"{ratio:6.2f}x TF" if ratio is not None else "          "
        print(f"  {label:<62} {seconds:8.3f} s  {ratio_text}  {target_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
