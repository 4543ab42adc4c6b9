"""Shared by the apidiff tests: the scenario corpus tests/golden/apidiff/, a two-op project
source (`SPEC_V1`), `opgen` run in-process with its output captured, and git with a fixed
identity and no user configuration."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from opgen import cli
from support.paths import TESTS

CORPUS = TESTS / "golden" / "apidiff"
SCENARIOS = sorted(p.name for p in CORPUS.iterdir() if (p / "old").is_dir() and (p / "new").is_dir())
# a side given as one file `old.<ext>` / `new.<ext>` (an OpList or C++ file): its modules are
# named after the file, so it takes the other side's
FILE_SCENARIOS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and p.name not in SCENARIOS)

SPEC_V1 = """\
#include "tensorflow/core/framework/op.h"
REGISTER_OP("Scale")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("factor: float = 1.0")
    .Doc(R"doc(
Scales `x`.
)doc");
REGISTER_OP("Divide")
    .Input("x: float")
    .Output("quotient: float")
    .Output("remainder: float")
    .Attr("rounding: string");
REGISTER_KERNEL_BUILDER(Name("Divide").Device(DEVICE_CPU), DivideOp);
REGISTER_KERNEL_BUILDER(Name("Divide").Device(DEVICE_GPU).HostMemory("remainder").Priority(1), DivideOp);
"""


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """`opgen argv` in this process: (exit code, stdout, stderr)."""
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def git(repo: Path, *args: str) -> str:
    """`git args` in `repo` (checked), as a fixed author without global or system config; stdout."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull)
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def scenario_side(folder: Path, side: str) -> str:
    """`old` / `new`: a spec tree, or the one file `old.<ext>` / `new.<ext>`."""
    return side if (folder / side).is_dir() else next(p.name for p in folder.glob(f"{side}.*"))
