"""Shared test set-up: the `oracle` marker skips (with a reason) when TensorFlow is absent.

CI sets OPGEN_REQUIRE_ORACLE=1, which turns a missing TensorFlow into an error instead,
so oracle tests can never be skipped silently there.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

HAVE_TF = importlib.util.find_spec("tensorflow") is not None


def pytest_collection_modifyitems(config, items):
    if HAVE_TF:
        return
    if os.environ.get("OPGEN_REQUIRE_ORACLE") == "1":
        raise pytest.UsageError("OPGEN_REQUIRE_ORACLE=1 but tensorflow is not importable")
    skip = pytest.mark.skip(reason="oracle test: tensorflow-cpu==2.21.0 not installed (pip install -e '.[oracle]')")
    for item in items:
        if "oracle" in item.keywords:
            item.add_marker(skip)


# A test process holds far more live objects than a typical program (TensorFlow, the registry's
# generated modules, the call check's ASTs), and the default thresholds (700, 10, 10) ran a full
# collection every ~70,000 allocations, each traversing all of them: parsing one generated module
# took twice as long as with the collector off. Collections stay on, 300x less often.
gc.set_threshold(50_000, 20, 20)
_frozen_with_tf = False


def pytest_runtest_setup(item):
    """Once TensorFlow is imported (by a fixture or a test module), its objects (millions, alive
    until the process ends) move to the collector's permanent generation: a full collection
    would otherwise traverse them all, which made tests that allocate many objects (parsing
    generated modules) several times slower."""
    global _frozen_with_tf
    if not _frozen_with_tf and "tensorflow" in sys.modules:
        _frozen_with_tf = True
        gc.collect()
        gc.freeze()


@pytest.fixture(scope="session")
def tf():
    """The real TensorFlow, imported once per test process (quietly)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow

    return tensorflow


@pytest.fixture(scope="session")
def _wrapper_call_recorder():
    """Records every module the session builds (support/call_wrappers.py says how)."""
    from support.call_wrappers import recorder

    with pytest.MonkeyPatch.context() as monkeypatch:
        recorder().install(monkeypatch)
        yield recorder()


@pytest.fixture(autouse=True)
def _call_every_built_wrapper(request, _wrapper_call_recorder):
    """After each test: every wrapper of every module it built (in-process, into its
    `tmp_path`, or recorded with `record_build_dir`) is called once; a crash fails the test."""
    yield
    tmp_path = request.node.funcargs.get("tmp_path")
    if tmp_path is not None:
        _wrapper_call_recorder.add_dir(tmp_path)
    failures = _wrapper_call_recorder.check_pending()
    if failures:
        pytest.fail("generated wrappers crashed on their first call:\n" + "\n".join(failures), pytrace=False)
