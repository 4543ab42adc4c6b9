#!/usr/bin/env bash
# Regenerates the _pb2 modules from the .proto files: the runtime's (runtime/opgen_runtime/proto/,
# what generated modules need) and the generator's own (opgen/proto/: api_def, kernel_def,
# op_gen_overrides, which import the runtime's attr_value.proto).
# Uses protoc 31.1 (grpcio-tools 1.75.0): gencode 6.31.1 is the oldest runtime in our
# protobuf range (>=6.31.1,<8), and gencode must not be newer than the runtime loading it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tools_venv="${XDG_CACHE_HOME:-$HOME/.cache}/opgen/grpcio-tools-1.75.0"
if [ ! -x "$tools_venv/bin/python" ]; then
  python3 -m venv "$tools_venv"
  "$tools_venv/bin/pip" install -q "grpcio-tools==1.75.0"
fi
cd "$repo"
rm -f runtime/opgen_runtime/proto/*_pb2.py runtime/opgen_runtime/proto/*_pb2.pyi opgen/proto/*_pb2.py opgen/proto/*_pb2.pyi
protoc() { "$tools_venv/bin/python" -m grpc_tools.protoc "$@"; }
protoc -I runtime --python_out=runtime --pyi_out=runtime runtime/opgen_runtime/proto/*.proto
protoc -I runtime -I . --python_out=. --pyi_out=. opgen/proto/*.proto
echo "regenerated: $(ls runtime/opgen_runtime/proto/*_pb2.py opgen/proto/*_pb2.py | wc -l) modules"
