"""Python client of the C++ oracle harness (`tests/oracle/harness/op_oracle.cc`).

The harness is TensorFlow 2.21's own OpDefBuilder / ValidateOpDef / OpDefCompatible /
OpRegistry code, linked from the wheel's `libtensorflow_framework.so.2`, driven over a
length-prefixed binary protocol (documented at the top of op_oracle.cc). It is compiled
once per content hash and started once per test process (so once per pytest-xdist
worker); `get_oracle()` returns that shared instance.

    oracle = get_oracle()
    r = oracle.finalize("AddN", [SpecCall("Input", ("inputs: N * T",)), ...])
    r.ok, r.stage, r.op_def, r.error
"""

from __future__ import annotations

import atexit
import os
import struct
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from opgen_runtime.proto import op_def_pb2

from .cxx_build import cached_build, content_hash, run_gxx, tf_flags

HARNESS_SOURCE = Path(__file__).resolve().parent / "harness" / "op_oracle.cc"
# -O1: the harness is I/O bound; compiling with -O2 only costs build time.
HARNESS_CXXFLAGS = ("-O1", "-w")

# Builder methods the harness accepts (the REGISTER_OP chain API, plus AllowAttrTypeAny and
# the private ControlOutput). SetShapeFn / SetForwardTypeFn arguments are ignored: the
# functions never reach the OpDef, but a second SetShapeFn call is still an error.
BUILDER_METHODS = frozenset(
    {
        "Attr",
        "Input",
        "Output",
        "ControlOutput",
        "Doc",
        "SetIsCommutative",
        "SetIsAggregate",
        "SetIsStateful",
        "SetAllowsUninitializedInput",
        "SetIsDistributedCommunication",
        "SetDoNotOptimize",
        "AllowAttrTypeAny",
        "Deprecated",
        "SetShapeFn",
        "SetForwardTypeFn",
        "SetTypeConstructor",
    }
)
# TF 2.21's full_type:: helpers (tensorflow/core/framework/full_type_util.h) with their
# arguments after the helper name; UnaryTensorContainer's second argument is a FullTypeId
# name (TFT_*) or a type-attr name, selecting the C++ overload.
TYPE_CONSTRUCTORS = {
    "NoOp": 0,
    "NoOutputs": 0,
    "Nullary": 1,  # (TFT_x)
    "Unary": 2,  # (TFT_x, "T")
    "UnaryGeneric": 1,  # (TFT_x)
    "UnaryTensorContainer": 2,  # (TFT_x, TFT_y) or (TFT_x, "T")
    "VariadicTensorContainer": 2,  # (TFT_x, "T")
}


class OracleError(RuntimeError):
    """The harness could not run a request (bad SpecCall, crashed process, protocol error)."""


@dataclass(frozen=True)
class SpecCall:
    """One builder call of a REGISTER_OP chain, e.g. SpecCall("Attr", ("T: type",)).

    Deprecated takes (int, str); SetTypeConstructor takes the helper name then its args,
    e.g. SpecCall("SetTypeConstructor", ("UnaryTensorContainer", "TFT_ARRAY", "T")).
    """

    method: str
    args: tuple = ()


@dataclass(frozen=True)
class OracleResult:
    ok: bool
    op_def: op_def_pb2.OpDef | None  # set when ok
    error: str | None  # TF's status message when not ok
    stage: str  # "finalize" | "validate" | "ok"


@dataclass(frozen=True)
class RegisterResult:
    # Per spec, in order: None = registered, else TF's message.
    statuses: list[str | None]
    op_list: op_def_pb2.OpList  # OpRegistry::Export of the private registry


def _encode_call(call: SpecCall) -> list[bytes]:
    if call.method not in BUILDER_METHODS:
        raise OracleError(f"unknown builder method {call.method!r}")
    if call.method == "SetTypeConstructor" and (
        not call.args or call.args[0] not in TYPE_CONSTRUCTORS
    ):
        raise OracleError(
            f"unknown full_type:: helper in {call!r}; known: {sorted(TYPE_CONSTRUCTORS)}"
        )
    args = []
    for arg in call.args:
        if isinstance(arg, bool) or not isinstance(arg, (str, bytes, int)):
            raise OracleError(
                f"SpecCall argument must be str or int, got {arg!r} in {call!r}"
            )
        args.append(arg if isinstance(arg, bytes) else str(arg).encode())
    return [call.method.encode(), str(len(args)).encode(), *args]


def _encode_spec(name: str, calls: Sequence[SpecCall]) -> list[bytes]:
    fields = [name.encode(), str(len(calls)).encode()]
    for call in calls:
        fields += _encode_call(call)
    return fields


def _status(field: bytes) -> str | None:
    return field.decode() if field else None


class Oracle:
    """A running harness process. Thread-safe; one request at a time."""

    # Specs per request in finalize_many: bounds the size of one message.
    BATCH = 2000

    def __init__(self, binary: Path):
        # Lives as long as the process; kept for the crash report of _request.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        self._proc = subprocess.Popen(
            [str(binary)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )
        self._lock = threading.Lock()
        if self._request([b"ping"]) != [b"ok"]:
            raise OracleError("harness did not answer ping")

    def alive(self) -> bool:
        return self._proc.poll() is None

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._stderr.close()

    def _request(self, fields: list[bytes]) -> list[bytes]:
        message = [struct.pack("<I", len(fields))]
        for f in fields:
            message += (struct.pack("<I", len(f)), f)
        with self._lock:
            try:
                self._proc.stdin.write(b"".join(message))
                self._proc.stdin.flush()
                (count,) = struct.unpack("<I", self._read(4))
                reply = []
                for _ in range(count):
                    (length,) = struct.unpack("<I", self._read(4))
                    reply.append(self._read(length))
            except (BrokenPipeError, EOFError) as e:
                raise OracleError(f"oracle harness died: {self._stderr_tail()}") from e
        if len(reply) == 1 and reply[0].startswith(b"protocol_error: "):
            self._proc.wait(timeout=10)  # the harness exits after a protocol error
            raise OracleError(reply[0].decode())
        return reply

    def _read(self, n: int) -> bytes:
        data = self._proc.stdout.read(n)
        if len(data) != n:
            raise EOFError
        return data

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()[-2000:].decode(errors="replace")

    # --- OpDefBuilder::Finalize + ValidateOpDef -------------------------------------------

    def finalize(self, name: str, calls: Sequence[SpecCall]) -> OracleResult:
        return self.finalize_many([(name, calls)])[0]

    def finalize_many(
        self, specs: Sequence[tuple[str, Sequence[SpecCall]]]
    ) -> list[OracleResult]:
        results: list[OracleResult] = []
        for start in range(0, len(specs), self.BATCH):
            chunk = specs[start : start + self.BATCH]
            fields = [b"finalize", str(len(chunk)).encode()]
            for name, calls in chunk:
                fields += _encode_spec(name, calls)
            reply = self._request(fields)
            for i in range(0, len(reply), 2):
                stage, payload = reply[i].decode(), reply[i + 1]
                if stage == "ok":
                    results.append(
                        OracleResult(
                            True, op_def_pb2.OpDef.FromString(payload), None, "ok"
                        )
                    )
                elif stage in ("finalize", "validate"):
                    results.append(OracleResult(False, None, payload.decode(), stage))
                else:
                    raise OracleError(f"{chunk[i // 2][0]}: {payload.decode()}")
        return results

    # --- op_def_util ---------------------------------------------------------------------

    def validate(self, op_def: op_def_pb2.OpDef) -> str | None:
        """ValidateOpDef: None when OK, else TF's message."""
        return _status(self._request([b"validate", op_def.SerializeToString()])[0])

    def compat(
        self, old: op_def_pb2.OpDef, new: op_def_pb2.OpDef
    ) -> tuple[str | None, str | None]:
        """(OpDefCompatible, OpDefAttrDefaultsUnchanged) of one pair, each None when OK."""
        reply = self._request(
            [b"compat", old.SerializeToString(), new.SerializeToString()]
        )
        return _status(reply[0]), _status(reply[1])

    def compatible(
        self, old_op_def: op_def_pb2.OpDef, new_op_def: op_def_pb2.OpDef
    ) -> str | None:
        return self.compat(old_op_def, new_op_def)[0]

    def attr_defaults_unchanged(
        self, old: op_def_pb2.OpDef, new: op_def_pb2.OpDef
    ) -> str | None:
        return self.compat(old, new)[1]

    # --- OpRegistry ----------------------------------------------------------------------

    def register(
        self,
        specs: Sequence[tuple[str, Sequence[SpecCall]]],
        include_internal: bool = True,
    ) -> RegisterResult:
        """Register every spec, in order, into a fresh private OpRegistry and Export it.

        Each status is what RegisterAlreadyLocked returned (Finalize, ValidateOpDef or
        `Op with name X` for a duplicate; the first registration wins). Unlike TF's
        ProcessRegistrations, processing continues after a failure.
        """
        fields = [
            b"register",
            b"1" if include_internal else b"0",
            str(len(specs)).encode(),
        ]
        for name, calls in specs:
            fields += _encode_spec(name, calls)
        reply = self._request(fields)
        statuses = [_status(f) for f in reply[:-1]]
        for (name, _), status in zip(specs, statuses):
            if status and status.startswith("harness error: "):
                raise OracleError(f"{name}: {status}")
        return RegisterResult(statuses, op_def_pb2.OpList.FromString(reply[-1]))


def harness_binary() -> Path:
    """Build (once per content hash) and return the harness executable."""
    source = HARNESS_SOURCE.read_bytes()
    key = content_hash([source, *HARNESS_CXXFLAGS])

    def build(out: Path) -> None:
        compile_flags, link_flags = tf_flags()
        run_gxx(
            [
                *HARNESS_CXXFLAGS,
                *compile_flags,
                str(HARNESS_SOURCE),
                "-o",
                "op_oracle",
                *link_flags,
            ],
            out,
        )

    return cached_build("harness", key, build) / "op_oracle"


_oracle: Oracle | None = None
_oracle_pid: int | None = None
_oracle_lock = threading.Lock()


def get_oracle() -> Oracle:
    """The process-wide harness (started on first use)."""
    global _oracle, _oracle_pid
    with _oracle_lock:
        # Restart after a fork (the pipes belong to the parent) or if the process died
        # (a protocol error makes the harness exit after reporting it).
        if _oracle is None or _oracle_pid != os.getpid() or not _oracle.alive():
            _oracle = Oracle(harness_binary())
            _oracle_pid = os.getpid()
            atexit.register(_oracle.close)
        return _oracle
