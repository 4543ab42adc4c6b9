#!/usr/bin/env bash
# Prints the path of a virtualenv with opgen's test+oracle requirements, creating it on first use.
# The venv lives outside the clone, keyed by a hash of the [project] dependency tables, so CI
# runs on the same machine reuse it; this clone is then installed editable into it (no deps).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
key=$(python3 - "$repo/pyproject.toml" <<'PY'
import hashlib, sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
blob = repr((project["dependencies"], sorted(project["optional-dependencies"].items()), sys.version))
print(hashlib.sha256(blob.encode()).hexdigest()[:16])
PY
)
venv="${OPGEN_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/venv-$key}"
if [ ! -x "$venv/bin/python" ]; then
  tmp="$venv.tmp.$$"
  rm -rf "$tmp"
  python3 -m venv "$tmp" >&2
  "$tmp/bin/python" -m pip install -q --upgrade pip >&2
  "$tmp/bin/python" -m pip install -q -e "$repo[test,oracle]" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; exit 1; }
  rm -rf "$venv"
  mv "$tmp" "$venv"
  # The venv was created at $tmp; fix the absolute paths its scripts carry.
  grep -rlI --null "$tmp" "$venv/bin" | xargs -0 -r sed -i "s#$tmp#$venv#g"
fi
"$venv/bin/python" -m pip install -q --no-deps -e "$repo" >"$venv/editable.log" 2>&1 || { cat "$venv/editable.log" >&2; exit 1; }
echo "$venv"
