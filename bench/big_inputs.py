"""Big inputs (issue 22): the C++ reading front end on 10 MB sources of unusual shapes, and the
import of a generated 10k-op module.

Each case is a source file written to a temporary directory and gathered
(`opgen.spec.gather.gather`: lex, preprocess, extract chains, attr grammar, build, validate)
in a fresh child process per round, which reports the wall time of the gather and its peak
RSS (`ru_maxrss`, the interpreter and opgen's imports included), and its CPU time (which says
more than the wall time when other jobs share the machine). Cases:

- `semicolons`: 10 MB of `;`;
- `identifiers`: 10 MB of short identifiers separated by spaces;
- `string default`: one REGISTER_OP whose `string` attr has a 10 MB default;
- `deep shape`: one REGISTER_OP whose `shape` attr default has rank 625,000 (10 MB);
- `100k ops`: 100,000 REGISTER_OPs, one input, one output and one attr each (9 MB);
- `ops at the limit`: as many of them as a translation unit holds within opgen/limits.py's
  MAX_TRANSLATION_UNIT_TOKENS (20 tokens each), so the whole gather runs;
- `OpList text`: a 10 MB text-format OpList (`.pbtxt`) of such ops.

Target: each gather <= 2 s, or a located error (exit 2) when a documented limit
(opgen/limits.py) stops it sooner. Then `opgen build` of 10,000 ops (in sources within the
token limit, one module) and the import of the generated module in fresh processes, first
from source (writes its bytecode), then from the cached bytecode: target <= 1 s; with the
import's peak RSS (compiling from source dominates it). `--max-ops-per-module N` builds the
module split into parts of N ops.

Prints the load, then the median and range over the rounds.
Usage: python bench/big_inputs.py [--rounds N] [--case NAME ...] [--import-ops N] [--max-ops-per-module N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's opgen, not what the venv points at

from opgen.limits import MAX_TRANSLATION_UNIT_TOKENS  # noqa: E402

TARGET_GATHER_SECONDS = 2.0
TARGET_IMPORT_SECONDS = 1.0
MB = 10_000_000


def _semicolons() -> str:
    return ";" * MB


def _identifiers() -> str:
    word = "ident_x "
    return word * (MB // len(word))


def _string_default() -> str:
    return f'REGISTER_OP("BigString").Output("y: float").Attr("s: string = \\"{"a" * MB}\\"");\n'


def _deep_shape() -> str:
    dims = " ".join("dim { size: 1 }" for _ in range(625_000))
    return f'REGISTER_OP("DeepShape").Output("y: float").Attr("s: shape = {{ {dims} }}");\n'


def _ops(count: int, first: int = 0) -> str:
    return "".join(
        f'REGISTER_OP("BigOp{i}").Input("x: T").Output("y: T").Attr("T: {{float, int32}} = DT_FLOAT");\n'
        for i in range(first, first + count))


def _oplist_text() -> str:
    op = ('op {{\n  name: "BigOp{i}"\n  input_arg {{\n    name: "x"\n    type_attr: "T"\n  }}\n'
          '  output_arg {{\n    name: "y"\n    type_attr: "T"\n  }}\n  attr {{\n    name: "T"\n    type: "type"\n'
          '    default_value {{\n      type: DT_FLOAT\n    }}\n    allowed_values {{\n      list {{\n'
          '        type: DT_FLOAT\n        type: DT_INT32\n      }}\n    }}\n  }}\n}}\n')
    return "".join(op.format(i=i) for i in range(MB // len(op.format(i=10_000))))


CASES: dict[str, Callable[[], str]] = {
    "semicolons": _semicolons,
    "identifiers": _identifiers,
    "string default": _string_default,
    "deep shape": _deep_shape,
    "100k ops": lambda: _ops(100_000),
    "ops at the limit": lambda: _ops(MAX_TRANSLATION_UNIT_TOKENS // 20),
    "OpList text": _oplist_text,
}
SUFFIX = {"OpList text": ".pbtxt"}

# The child: gathers one file, prints {"seconds", "cpu", "maxrss_kb", "ops", "error"} as JSON.
_GATHER_CHILD = """
import json, resource, sys, time
from opgen.errors import OpgenError
from opgen.spec.gather import gather
start, cpu_start = time.perf_counter(), time.process_time()
error = None
ops = 0
try:
    ops = len(gather([sys.argv[1]], warn=lambda message: None).op_list.op)
except OpgenError as e:
    error = str(e).splitlines()[0][:200]
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
print(json.dumps({"seconds": seconds, "cpu": cpu, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "ops": ops, "error": error}))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": tempfile.mkdtemp(prefix="opgen-bench-cache.")}


def _summary(values: list[float], unit: str = "s", digits: int = 2) -> str:
    return (f"median {statistics.median(values):.{digits}f} {unit} "
            f"(range {min(values):.{digits}f}-{max(values):.{digits}f})")


def bench_gather(name: str, text: str, rounds: int, env: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"big{SUFFIX.get(name, '.cc')}"
        path.write_text(text, encoding="utf-8")
        results = []
        for _ in range(rounds):
            proc = subprocess.run([sys.executable, "-c", _GATHER_CHILD, str(path)], env=env, capture_output=True,
                                  text=True, check=False)
            if proc.returncode != 0:
                print(f"{name}: child failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
                return
            results.append(json.loads(proc.stdout))
    seconds = [r["seconds"] for r in results]
    cpu = [r["cpu"] for r in results]
    rss = [r["maxrss_kb"] / 1024 for r in results]
    outcome = f"error: {results[0]['error']}" if results[0]["error"] else f"{results[0]['ops']} ops"
    verdict = "OK" if statistics.median(seconds) <= TARGET_GATHER_SECONDS else "MISSED"
    print(f"{name} ({len(text) / 1e6:.1f} MB): gather {_summary(seconds)}, target <= {TARGET_GATHER_SECONDS:g} s: "
          f"{verdict}; CPU {_summary(cpu)}; peak RSS {_summary(rss, 'MB', 0)}; {outcome}")


def bench_import(ops: int, rounds: int, env: dict[str, str], max_ops_per_module: int | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ops").mkdir()
        # Sources within the token limit (opgen/limits.py), their ops in one module.
        per_file = MAX_TRANSLATION_UNIT_TOKENS // 20
        for n, first in enumerate(range(0, ops, per_file)):
            (root / "ops" / f"big_{n}.cc").write_text(_ops(min(per_file, ops - first), first), encoding="utf-8")
        split = f"max_ops_per_module = {max_ops_per_module}\n" if max_ops_per_module else ""
        (root / "pyproject.toml").write_text(f'[tool.opgen]\nsources = ["ops"]\nout = "gen"\n{split}'
                                             '[tool.opgen.modules]\n"BigOp*" = "gen_big"\n')
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "opgen", "build"], cwd=root, env=env, capture_output=True,
                              text=True, check=False)
        build_seconds = time.perf_counter() - start
        if proc.returncode != 0:
            print(f"opgen build of {ops} ops failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
            return
        files = sorted((root / "gen").rglob("*.py"))  # gen_big.py, or the package gen_big/ of a split one
        module = root / "gen" / "gen_big"
        dotted = "gen.gen_big"
        child = ("import json, resource, time; start = time.perf_counter(); import importlib; "
                 f"importlib.import_module({dotted!r}); seconds = time.perf_counter() - start; "
                 "print(json.dumps([seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]))")
        import_env = {**env, "PYTHONPATH": os.pathsep.join([str(root), str(REPO)])}
        import_env.pop("PYTHONDONTWRITEBYTECODE", None)  # set on this machine; the warm import needs the .pyc
        # opgen_runtime is imported (and its bytecode cached) first so that only the module counts
        subprocess.run([sys.executable, "-c", "import opgen_runtime"], env=import_env, check=True)
        baseline = [json.loads(subprocess.run([sys.executable, "-c", child.replace(dotted, "opgen_runtime")],
                                              cwd=root, env=import_env, capture_output=True, text=True,
                                              check=True).stdout)[0]
                    for _ in range(rounds)]
        cold, warm, cold_rss = [], [], []
        for _ in range(rounds):
            for cache in (root / "gen").rglob("__pycache__/*.pyc"):
                cache.unlink()
            for times in (cold, warm):
                seconds, rss_kb = json.loads(subprocess.run([sys.executable, "-c", child], cwd=root, env=import_env,
                                                            capture_output=True, text=True, check=True).stdout)
                times.append(seconds)
                if times is cold:
                    cold_rss.append(rss_kb / 1024)
        size_mb = sum(f.stat().st_size for f in files) / 1e6
    verdict = "OK" if statistics.median(warm) <= TARGET_IMPORT_SECONDS else "MISSED"
    shape = f"{module.name}/ ({len(files)} files)" if len(files) > 1 else files[0].name
    print(f"{ops} ops: opgen build {build_seconds:.2f} s; {shape} {size_mb:.1f} MB; import from source "
          f"{_summary(cold)} (peak RSS {_summary(cold_rss, 'MB', 0)}), from bytecode {_summary(warm)} "
          f"(of which opgen_runtime {_summary(baseline, digits=3)}), target <= {TARGET_IMPORT_SECONDS:g} s: {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--case", action="append", choices=[*CASES, "import"], help="run only these cases")
    parser.add_argument("--import-ops", type=int, default=10_000, help="ops in the imported module")
    parser.add_argument("--max-ops-per-module", type=int, help="build the imported module split into parts of N ops")
    args = parser.parse_args()
    env = _env()
    print(f"load {os.getloadavg()[0]:.2f} at start, {time.strftime('%H:%M UTC %Y-%m-%d', time.gmtime())}; "
          f"{args.rounds} rounds, one fresh process each")
    for name, make in CASES.items():
        if not args.case or name in args.case:
            bench_gather(name, make(), args.rounds, env)
    if not args.case or "import" in args.case:
        bench_import(args.import_ops, args.rounds, env, args.max_ops_per_module)
    print(f"load {os.getloadavg()[0]:.2f} at end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
