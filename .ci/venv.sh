#!/usr/bin/env bash
# Prints the path of a virtualenv holding opgen's dependencies with the test and oracle
# extras, creating it on first use. It lives outside the clone, keyed by a hash of the
# [project] dependency tables, so CI runs on the same machine reuse it. opgen itself is
# not installed there (nor opgen-runtime): callers put the clone first on PYTHONPATH (see
# .ci/run; the clone's opgen_runtime is a symlink to runtime/opgen_runtime), so the venv never
# points at one particular clone.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
key=$(python3 - "$repo/pyproject.toml" "$repo/runtime/pyproject.toml" <<'PY'
import hashlib, sys, tomllib
project, runtime = (tomllib.load(open(path, "rb"))["project"] for path in sys.argv[1:])
blob = repr(("deps-only venv", project["dependencies"], sorted(project["optional-dependencies"].items()),
             runtime["dependencies"], sys.version))
print(hashlib.sha256(blob.encode()).hexdigest()[:16])
PY
)
venv="${OPGEN_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/venv-$key}"
if [ ! -x "$venv/bin/python" ]; then
  echo "opgen: first run: creating the test venv $venv with opgen's dependencies, the test" \
       "tools and the TensorFlow oracle (tensorflow-cpu==2.21.0): about 1.7 GB, 1-4 minutes" >&2
  started=$SECONDS
  tmp="$venv.tmp.$$"
  rm -rf "$tmp"
  python3 -m venv "$tmp" >&2
  {
    "$tmp/bin/python" -m pip install --upgrade pip &&
    "$tmp/bin/python" -m pip install -e "$repo/runtime" -e "$repo[test,oracle]" &&
    "$tmp/bin/python" -m pip uninstall -y opgen opgen-runtime
  } >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; exit 1; }
  rm -rf "$venv"
  mv "$tmp" "$venv"
  # The venv was created at $tmp; fix the absolute paths its scripts carry.
  grep -rlI --null "$tmp" "$venv/bin" | xargs -0 -r sed -i "s#$tmp#$venv#g"
  echo "opgen: test venv ready in $((SECONDS - started)) s" >&2
fi
echo "$venv"
