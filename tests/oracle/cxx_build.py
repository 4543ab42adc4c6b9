"""Compile C++ against the installed TensorFlow wheel, cached by content hash.

Shared by the oracle harness (`harness.py`) and the op-library route (`tf_library.py`).
Artefacts live in `${XDG_CACHE_HOME:-~/.cache}/opgen/<kind>-<hash>/`; a build happens in a
temporary sibling directory that is renamed into place, under a file lock, so concurrent
test processes (pytest-xdist workers, other engineers) never see a half-built artefact
and never compile the same thing twice.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path


class CxxBuildError(RuntimeError):
    """g++ failed; the message carries the compiler's diagnostics."""


@dataclass(frozen=True)
class TfInstall:
    package_dir: Path  # site-packages/tensorflow
    version: str

    @property
    def include_dir(self) -> Path:
        return self.package_dir / "include"

    @property
    def framework_lib(self) -> Path:
        return self.package_dir / "libtensorflow_framework.so.2"


@functools.cache
def tf_install() -> TfInstall:
    """Locate the TF wheel without importing it (importing TF costs seconds)."""
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        raise CxxBuildError("tensorflow is not installed (pip install -e '.[oracle]')")
    package_dir = Path(next(iter(spec.submodule_search_locations)))
    version = "unknown"
    for dist in ("tensorflow-cpu", "tensorflow"):
        try:
            version = importlib.metadata.version(dist)
            break
        except importlib.metadata.PackageNotFoundError:
            continue
    return TfInstall(package_dir, version)


@functools.cache
def tf_flags() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(compile flags, link flags) from `tf.sysconfig`, plus an rpath to the TF lib dir.

    Only called on a cache miss: the flags are a function of the TF installation, whose
    identity (path + version) is already part of every cache key.
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    compile_flags = tuple(tf.sysconfig.get_compile_flags())
    link_flags = (*tf.sysconfig.get_link_flags(), f"-Wl,-rpath,{tf_install().package_dir}")
    return compile_flags, link_flags


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "opgen"


def content_hash(parts: Iterable[bytes | str]) -> str:
    """sha256 over the parts plus the TF installation identity (length-prefixed, unambiguous)."""
    h = hashlib.sha256()
    install = tf_install()
    for part in (str(install.package_dir), install.version, *parts):
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:20]


def cached_build(kind: str, key: str, build: Callable[[Path], None]) -> Path:
    """Return `cache_root()/<kind>-<key>/`, calling `build(tmp_dir)` to create it on a miss."""
    root = cache_root()
    final = root / f"{kind}-{key}"
    if final.is_dir():
        return final
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".{kind}-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if final.is_dir():  # built by another process while we waited
            return final
        tmp = Path(tempfile.mkdtemp(prefix=f".{kind}-{key}.", dir=root))
        try:
            build(tmp)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return final


def run_gxx(args: list[str], cwd: Path) -> None:
    """Run g++ with `args`; raise CxxBuildError with its diagnostics on failure."""
    proc = subprocess.run(["g++", *args], check=False, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if "error" in line]
        detail = "\n".join(errors[:30]) or proc.stderr[-4000:]
        raise CxxBuildError(f"g++ failed (exit {proc.returncode}):\n{detail}")


def compile_op_library(source: Path, so_name: str, defines: tuple[str, ...] = ()) -> Path:
    """`source` (ops and kernels) compiled into a shared library for `tf.load_op_library`,
    with `-D` for each of `defines`."""

    def build(out: Path) -> None:
        compile_flags, link_flags = tf_flags()
        run_gxx(["-std=c++17", "-shared", "-fPIC", "-O1", *(f"-D{d}" for d in defines), str(source), "-o", so_name,
                 *compile_flags, *link_flags], out)

    key = content_hash([source.read_bytes(), so_name, *defines])
    return cached_build("custom-oplib", key, build) / so_name
