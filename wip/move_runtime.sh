#!/usr/bin/env bash
# Issue 18 item 3, the mechanical part: opgen/runtime becomes the import package `opgen_runtime`
# of the distribution opgen-runtime (runtime/opgen_runtime/, with the protos it needs), and every
# import, dotted name and path naming them is rewritten. Run from the root of a checkout that
# has the slim-runtime branch's other commits (runtime/pyproject.toml, tools/gen_protos.sh for
# the new layout, ...); it makes ONE commit. Nothing here is hand-written code: moves, a symlink,
# regular-expression rewrites, protoc, `opgen build` and the golden refresh.
#   bash /work/notes/move_runtime.sh            # OPGEN_PYTHON=<python with opgen's deps> to override
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
py=${OPGEN_PYTHON:-/root/.cache/opgen/venv-44aafe48d1f6f008/bin/python}
[ -d opgen/runtime ] && [ ! -e runtime/opgen_runtime ] || { echo "already moved?" >&2; exit 1; }
[ -z "$(git status --porcelain)" ] || { echo "commit or stash first" >&2; exit 1; }
# The protos the runtime imports (directly or through their imports); api_def, kernel_def and
# op_gen_overrides are the generator's own and stay in opgen/proto.
runtime_protos="attr_value full_type function graph graph_debug_info node_def op_def resource_handle tensor tensor_shape types versions"

# 1. Move the runtime and its protos.
mkdir -p runtime
git mv opgen/runtime runtime/opgen_runtime
mkdir -p runtime/opgen_runtime/proto
git mv opgen/proto/datatypes.py runtime/opgen_runtime/proto/datatypes.py
for p in $runtime_protos; do
  git mv "opgen/proto/$p.proto" "runtime/opgen_runtime/proto/$p.proto"
  git rm -q "opgen/proto/${p}_pb2.py" "opgen/proto/${p}_pb2.pyi"
done
cp opgen/proto/__init__.py runtime/opgen_runtime/proto/__init__.py

# 2. PYTHONPATH=<clone> finds opgen_runtime as it finds opgen (tests, .ci/run, developers).
ln -s runtime/opgen_runtime opgen_runtime

# 3. Rewrite imports, dotted names and paths in every tracked text file (gencode is regenerated).
git add -A
RUNTIME_PROTOS="$runtime_protos" "$py" - <<'PY'
import os
import re
import subprocess
from pathlib import Path

runtime_protos = set(os.environ["RUNTIME_PROTOS"].split())


def is_runtime(name: str) -> bool:
    """A name imported from opgen.proto that now lives in opgen_runtime.proto."""
    base = name.split(" as ")[0].strip()
    return base == "datatypes" or base.removesuffix("_pb2") in runtime_protos


def split_import(match: re.Match) -> str:
    """`from opgen.proto import a, b` -> one import from each package that has a name of it."""
    indent, body = match.group("indent"), match.group("paren") or match.group("plain")
    names = [n.strip() for n in body.replace("\n", " ").split(",") if n.strip()]
    lines = []
    for package, group in (("opgen.proto", [n for n in names if not is_runtime(n)]),
                           ("opgen_runtime.proto", [n for n in names if is_runtime(n)])):
        if not group:
            continue
        if match.group("paren") is not None and len(group) > 1:
            inner = "".join(f"{indent}    {n},\n" for n in group)
            lines.append(f"{indent}from {package} import (\n{inner}{indent})")
        else:
            lines.append(f"{indent}from {package} import {', '.join(group)}")
    return "\n".join(lines)


protos = "|".join(sorted(runtime_protos))
rules = [
    (re.compile(r"^from opgen import runtime$", re.M), "import opgen_runtime as runtime"),
    (re.compile(r"^(?P<indent>[ \t]*)from opgen\.proto import (?:\((?P<paren>[^)]*)\)|(?P<plain>[\w ,]+))", re.M),
     split_import),
    # inside a line (code in a string): only when every name moved, else left for step 3's check
    (re.compile(r"\bfrom opgen\.proto import (?P<names>[\w ,]+)"),
     lambda m: m.group(0).replace("opgen.proto", "opgen_runtime.proto")
     if all(is_runtime(n) for n in m.group("names").split(",")) else m.group(0)),
    (re.compile(rf"\bopgen\.proto\.(datatypes|(?:{protos})_pb2)\b"), r"opgen_runtime.proto.\1"),
    (re.compile(rf"\bopgen/proto/(datatypes\.py|(?:{protos})\.proto|(?:{protos})_pb2\.pyi?)\b"),
     r"opgen_runtime/proto/\1"),
    (re.compile(r"\bopgen\.runtime\b"), "opgen_runtime"),
    (re.compile(r"\bopgen/runtime\b"), "opgen_runtime"),
]
files = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout.decode().split("\0")
changed = 0
for name in filter(None, files):
    path = Path(name)
    if path.is_symlink() or not path.is_file() or re.search(r"_pb2\.pyi?$", name):
        continue
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        continue
    new = text
    for pattern, replacement in rules:
        new = pattern.sub(replacement, new)
    if new != text:
        path.write_text(new, encoding="utf-8")
        changed += 1
print(f"rewrote {changed} files")
left = subprocess.run(["git", "grep", "-n", "-E", r"opgen\.runtime\b|opgen/runtime\b", "--", ":!*_pb2.py*"],
                      capture_output=True, text=True).stdout
assert not left, f"left unrewritten:\n{left}"
PY

# 4. Regenerate what is generated: gencode at the new proto paths, generated/, the render goldens.
bash tools/gen_protos.sh
PYTHONPATH=$PWD "$py" -m opgen build --quiet
PYTHONPATH=$PWD OPGEN_UPDATE_GOLDEN=1 TF_CPP_MIN_LOG_LEVEL=3 "$py" -m pytest -q -n 0 -p no:cacheprovider \
  tests/test_render_golden.py >/dev/null
git add -A
git commit -q -m "Move the runtime to runtime/opgen_runtime (import opgen_runtime, distribution opgen-runtime) with the protos it needs; rewrite imports and paths (mechanical: made by move_runtime.sh)"
git show --stat --format=%s HEAD | tail -3
