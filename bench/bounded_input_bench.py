"""Wall time of inputs that used to run away (issue 19's "bounded work"), each gathered or
built end to end in a fresh temporary project:

- `opgen build` of one op whose `list(int)` default holds 100k values (black took ~50 s to
  lay it out; the templates lay it out now): target a couple of seconds;
- `opgen oplist` of 40 headers without guards, each including the next twice (2^40
  inclusions): stops at opgen/limits.py's MAX_INCLUDES with a located error;
- `opgen oplist` of 3,000 TF Lite shim ops in one translation unit (linear reading).

Run: `python bench/bounded_input_bench.py`.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _big_list_default(root: Path) -> list[str]:
    values = ", ".join(str(i) for i in range(100_000))
    (root / "ops").mkdir()
    (root / "ops" / "big.cc").write_text(
        f'REGISTER_OP("BigList").Input("x: float").Output("y: float").Attr("l: list(int) = [{values}]");\n')
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\nout = "gen"\n')
    return ["build"]


def _include_fan_out(root: Path) -> list[str]:
    for i in range(40):
        (root / f"h{i}.h").write_text(f'#include "h{i + 1}.h"\n#include "h{i + 1}.h"\n' if i < 39 else "int x;\n")
    (root / "a.cc").write_text('#include "h0.h"\nREGISTER_OP("A").Output("y: float");\n')
    (root / "pyproject.toml").write_text("")
    return ["oplist", "a.cc", "-o", "ops.pbtxt"]


def _shim_ops(root: Path) -> list[str]:
    classes = "".join(f"""template <tflite::shim::Runtime Rt>
class Op{i} : public tflite::shim::OpKernelShim<Op{i}, Rt> {{
 public:
  static constexpr char kOpName[] = "Op{i}";
  static constexpr char kDoc[] = "Op {i}.";
  static const char* OpName() {{ return kOpName; }}
  static std::vector<std::string> Inputs() {{ return {{"x: float"}}; }}
  static std::vector<std::string> Outputs() {{ return {{"y: float"}}; }}
  static std::vector<std::string> Attrs() {{ return {{absl::StrCat(kA, ": int = {i}")}}; }}
  static const char kA[];
}};
template <tflite::shim::Runtime Rt> const char Op{i}<Rt>::kA[] = "a{i}";
using Kernel{i} = tflite::shim::TfOpKernel<Op{i}>;
REGISTER_TF_OP_SHIM(Kernel{i});
""" for i in range(3000))
    (root / "a.cc").write_text(classes)
    (root / "pyproject.toml").write_text("")
    return ["oplist", "a.cc", "-o", "ops.pbtxt"]


def main() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": tempfile.mkdtemp(prefix="opgen-bench-cache.")}
    for name, setup in [("list(int) default of 100k values, opgen build", _big_list_default),
                        ("40 unguarded headers including the next twice", _include_fan_out),
                        ("3,000 shim ops in one translation unit", _shim_ops)]:
        with tempfile.TemporaryDirectory() as tmp:
            argv = setup(Path(tmp))
            cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "opgen", *argv], cwd=tmp, env=env, capture_output=True,
                                  text=True, check=False)
            elapsed = time.perf_counter() - start
            cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = cpu_after.ru_utime + cpu_after.ru_stime - cpu_before.ru_utime - cpu_before.ru_stime
        # CPU time too: on a loaded machine the wall time says more about the neighbours
        print(f"{name}: {elapsed:.2f} s wall, {cpu:.2f} s CPU (exit {proc.returncode})")


if __name__ == "__main__":
    main()
