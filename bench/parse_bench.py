"""Parse benchmark: TF 2.21's whole op registry written out as REGISTER_OP C++ with docs,
gathered end to end (`opgen.spec.gather.gather`: lex, preprocess, extract chains,
Finalize + ValidateOpDef, register, export), next to g++ compiling the same file.

Corpus: TF's registry (TF_GetAllOpList, docs stripped by TF) with deterministic
synthetic docs attached (summary, a description with markdown `#` lines, LaTeX and
quotes, one entry per arg/attr), written by `opgen.spec.emit_cc.op_list_to_cc`. The
gathered OpList is checked against the source OpList before any figure is printed.

g++ is measured with `-fsyntax-only` against TF's headers (parsing + semantic analysis of
the REGISTER_OP chains, no code generation or linking): the cheapest thing a C++ route
to the OpList has to do before it can even run OpDefBuilder.

Usage: python bench/parse_bench.py [--runs N] [--no-gxx]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]  # this checkout, not what the venv points at

TARGET_SECONDS = 0.5


def registry_with_docs():
    """TF's registry (only ops `opgen specs` can express) with synthetic docs."""
    from oracle.tf_registry import tf_op_list

    from opgen.spec.emit_cc import Inexpressible, cc_for_op_def
    from opgen_runtime.proto import op_def_pb2

    result = op_def_pb2.OpList()
    for op in tf_op_list().op:
        try:
            cc_for_op_def(op)
        except Inexpressible:
            continue
        doc_op = result.op.add()
        doc_op.CopyFrom(op)
        doc_op.summary = f"Computes {op.name}."
        doc_op.description = (
            f"# {op.name}\n"
            "With `code`, \"quotes\" and $$y = \\\\alpha x$$; the heading above would stop pcpp."
        )
        for arg in doc_op.input_arg:
            arg.description = "An input."
    return result


def time_gather(path: Path, runs: int):
    from opgen.spec.gather import gather

    times, cpu_times = [], []
    op_list = None
    for _ in range(runs):
        start, cpu_start = time.perf_counter(), time.process_time()
        op_list = gather([str(path)], include_internal=True).op_list
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    return op_list, times, cpu_times


def time_scan_only(path: Path, runs: int) -> float:
    from opgen.spec.gather import scan_cpp_file
    from opgen.spec.helpers import helper_table
    from opgen.spec.preprocessor import Preprocessor

    best = float("inf")
    gc.disable()  # as gather() does
    for _ in range(runs):
        start = time.perf_counter()
        scan_cpp_file(str(path), Preprocessor(), helper_table(None))
        best = min(best, time.perf_counter() - start)
    gc.enable()
    return best


def time_gxx(path: Path) -> float:
    import tensorflow as tf

    cmd = ["g++", "-std=c++17", "-fsyntax-only", "-w", *tf.sysconfig.get_compile_flags(), str(path)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-gxx", action="store_true", help="skip the g++ measurement")
    args = parser.parse_args()

    from opgen.spec.emit_cc import op_list_to_cc

    source = registry_with_docs()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tf_registry_ops.cc"
        path.write_text(op_list_to_cc(source), encoding="utf-8")
        size_mb = path.stat().st_size / 1e6
        op_list, times, cpu_times = time_gather(path, args.runs)
        if op_list != _sorted(source):
            print("ERROR: the gathered OpList differs from the registry the corpus was written from")
            return 1
        scan = time_scan_only(path, args.runs)
        gxx = None if args.no_gxx else time_gxx(path)

    best, median = min(times), statistics.median(times)
    print(f"corpus: {len(source.op)} ops, {size_mb:.2f} MB of REGISTER_OP C++ with docs")
    print(f"opgen gather (end to end), best of {args.runs}: {best:.3f} s  (median {median:.3f} s, "
          f"{best / size_mb:.3f} s/MB)  target <= {TARGET_SECONDS} s: {'OK' if best <= TARGET_SECONDS else 'MISSED'}")
    print(f"  CPU time (less sensitive to other processes on the machine), best: {min(cpu_times):.3f} s")
    print(f"  of which lex + preprocess + chain extraction: {scan:.3f} s ({scan / size_mb:.3f} s/MB)")
    if gxx is not None:
        print(f"g++ -fsyntax-only (same file, TF 2.21 headers): {gxx:.2f} s  -> opgen is {gxx / best:.0f}x faster")
    return 0


def _sorted(op_list):
    from opgen_runtime.proto import op_def_pb2

    result = op_def_pb2.OpList()
    result.op.extend(sorted(op_list.op, key=lambda op: op.name.encode()))
    return result


if __name__ == "__main__":
    sys.exit(main())
