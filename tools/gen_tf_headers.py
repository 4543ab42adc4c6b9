"""Regenerates opgen/spec/tf_headers.txt.gz: the headers TensorFlow's wheel ships under
`tensorflow/`, `tsl/`, `xla/` and `third_party/` (the pinned tensorflow-cpu==2.21.0's
`tf.sysconfig.get_include()`), each with the macros an op source sees once it includes it:
`p` when it includes `tsl/platform/platform.h` (the platform macros, `PLATFORM_POSIX`...),
`v` when it includes `tensorflow/core/public/version.h` (`TF_GRAPH_DEF_VERSION`...), `s` when
it includes `tensorflow/core/framework/common_shape_fns.h` (the named shape functions,
`shape_inference::UnchangedShape`...), directly or through other headers of the wheel (each
header counts as including itself). A line is `FLAGS PATH` (`-` for none), sorted by path.

    PYTHONPATH=. python tools/gen_tf_headers.py          # rewrite the file
    PYTHONPATH=. python tools/gen_tf_headers.py --check  # exit 1 when it differs

An `#include` line counts whatever conditional it stands in (the headers include these two
unconditionally); tests/gather/test_tf_headers.py checks the macros against g++ reading
the real headers, and the `s` flag against g++ compiling
an op whose SetShapeFn names one of those functions.
"""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "opgen" / "spec" / "tf_headers.txt.gz"
LISTED = ("tensorflow/", "tsl/", "xla/", "third_party/")
SOURCES = {"p": "tsl/platform/platform.h", "v": "tensorflow/core/public/version.h",
           "s": "tensorflow/core/framework/common_shape_fns.h"}
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^">\n]+)[">]', re.MULTILINE)


def tf_include_dir() -> str:
    """The wheel's include directory, asked of a child process (TF's import is slow and noisy)."""
    run = subprocess.run([sys.executable, "-c", "import tensorflow as tf; print(tf.sysconfig.get_include())"],
                         capture_output=True, text=True, check=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    return run.stdout.strip().splitlines()[-1]


def headers_text(include_dir: str) -> str:
    """The file's text (before compression) for the wheel whose headers are in `include_dir`."""
    paths = []
    for folder, _, names in os.walk(include_dir):
        paths += [os.path.relpath(os.path.join(folder, name), include_dir) for name in names]
    known = set(paths)
    included_by: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        with open(os.path.join(include_dir, path), encoding="utf-8", errors="replace") as f:
            for target in _INCLUDE.findall(f.read()):
                if target in known:
                    included_by[target].append(path)
    flags: dict[str, str] = defaultdict(str)
    for flag, source in SOURCES.items():
        reach, todo = {source}, [source]
        while todo:
            for includer in included_by[todo.pop()]:
                if includer not in reach:
                    reach.add(includer)
                    todo.append(includer)
        for path in reach:
            flags[path] += flag
    listed = sorted(p for p in paths if p.startswith(LISTED))
    return "".join(f"{flags[p] or '-'} {p}\n" for p in listed)


def compressed(text: str) -> bytes:
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)  # mtime 0: the same bytes each run


def main(argv: list[str]) -> int:
    data = compressed(headers_text(tf_include_dir()))
    if argv == ["--check"]:
        if OUTPUT.read_bytes() != data:
            print(f"{OUTPUT.relative_to(REPO)} is not TF's headers: run tools/gen_tf_headers.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_bytes(data)
    print(f"wrote {OUTPUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
