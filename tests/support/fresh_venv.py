"""Fresh virtual environments for the packaging tests: what a user's `pip install` gives,
with nothing of the test environment (opgen's dependencies, the clone on PYTHONPATH)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import tomllib

from support.paths import REPO


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a user's process: no PYTHONPATH (the clone), no pip configuration
    pointing into the test venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return {**env, "TF_CPP_MIN_LOG_LEVEL": "3", **extra}


def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run a command; its stdout, or an assertion error with its output."""
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env or clean_env(), capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def create(path: Path, layer: Path | None = None) -> Path:
    """A new venv at `path` (its python); `layer`: a site-packages directory it also sees,
    after its own (a `.pth` line, as `--system-site-packages` does for the base interpreter)."""
    run(sys.executable, "-m", "venv", path)
    python = path / "bin" / "python"
    if layer is not None:
        (site_packages(python) / "_layer.pth").write_text(f"{layer}\n")
    return python


def site_packages(python: Path) -> Path:
    return Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())


def distributions(python: Path) -> set[str]:
    """The distributions installed in the venv's own site-packages (not a layer's)."""
    return {p.name.split("-")[0].lower().replace("_", "-") for p in site_packages(python).glob("*.dist-info")}


def build_wheel(project: Path, out: Path, *extra: str, env: dict[str, str] | None = None) -> Path:
    """`pip wheel` of a copy of `project` (an in-tree build would leave build/ and *.egg-info
    in the checkout) into `out`; the wheel's path."""
    source = out / f"{project.name}-src"
    shutil.copytree(project, source, symlinks=True,
                    ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__"))
    before = set(out.glob("*.whl"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, *extra, source, env=env)
    (wheel,) = set(out.glob("*.whl")) - before
    return wheel


def tensorflow_pin() -> str:
    """The pinned TensorFlow requirement of the oracle extra (`tensorflow-cpu==2.21.0`)."""
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (pin,) = extras["oracle"]
    return pin


def tensorflow_layer() -> Path:
    """site-packages of a venv holding `pip install <tensorflow_pin()>` and nothing else, created
    once per pin and Python (about 1-2 minutes) under ${XDG_CACHE_HOME:-~/.cache}/opgen/, so a
    test can give a fresh venv TensorFlow without reinstalling it: the fresh venv gets only its
    own packages, and sees this one's as a layer (`create(..., layer=...)`)."""
    key = f"{tensorflow_pin()}-py{sys.version_info.major}.{sys.version_info.minor}".replace("==", "-")
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "opgen" / f"tf-only-venv-{key}"
    if not (root / "ready").exists():
        tmp = root.with_name(f"{root.name}.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        python = create(tmp)
        run(python, "-m", "pip", "install", "-q", tensorflow_pin())
        (tmp / "ready").write_text("")
        try:
            tmp.rename(root)
        except OSError:  # another process finished first: use its venv
            shutil.rmtree(tmp, ignore_errors=True)
    return site_packages(root / "bin" / "python")
