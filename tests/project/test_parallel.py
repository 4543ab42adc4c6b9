"""opgen.parallel.in_shares: shares computed in forked workers, results and errors back in order."""

from __future__ import annotations

import os
import threading

import pytest

from opgen import parallel

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="in_shares forks only where fork exists")


def test_each_share_runs_in_its_own_process_and_comes_back_in_order():
    me = os.getpid()
    mine, rest = parallel.in_shares(lambda i, n: (i, n, os.getpid()), lambda i, n: (i, n, os.getpid()), 3)
    assert mine == (0, 3, me)
    assert [(i, n) for i, n, _ in rest] == [(1, 3), (2, 3)]
    pids = {pid for _, _, pid in rest}
    assert len(pids) == 2 and me not in pids


def test_a_workers_exception_is_raised_here():
    def work(i: int, n: int) -> int:
        raise ValueError(f"share {i} of {n} failed")

    with pytest.raises(ValueError, match="share 1 of 2 failed"):
        parallel.in_shares(lambda i, n: 0, work, 2)


def test_a_worker_that_dies_without_its_result_is_an_error():
    with pytest.raises(RuntimeError, match="ended without its result"):
        parallel.in_shares(lambda i, n: 0, lambda i, n: os._exit(3), 2)


def test_a_result_that_does_not_pickle_is_an_error():
    with pytest.raises(RuntimeError, match="does not pickle"):
        parallel.in_shares(lambda i, n: 0, lambda i, n: threading.Lock(), 2)


def test_workers_still_running_when_this_share_fails_are_killed_and_reaped():
    started_read, started_write = os.pipe()
    never_read, never_write = os.pipe()

    def work(i: int, n: int) -> None:
        os.write(started_write, os.getpid().to_bytes(4, "little"))
        os.read(never_read, 1)  # never written: the worker waits until it is killed

    worker = []

    def mine(i: int, n: int) -> None:
        worker.append(int.from_bytes(os.read(started_read, 4), "little"))  # the worker has started
        raise KeyError("this share failed")

    try:
        with pytest.raises(KeyError, match="this share failed"):
            parallel.in_shares(mine, work, 2)
    finally:
        for fd in (started_read, started_write, never_read, never_write):
            os.close(fd)
    with pytest.raises(ChildProcessError):  # reaped: no zombie left
        os.waitpid(worker[0], os.WNOHANG)


def test_without_fork_every_share_runs_here(monkeypatch):
    monkeypatch.setattr(parallel, "can_fork", lambda: False)
    me = os.getpid()
    mine, rest = parallel.in_shares(lambda i, n: (i, os.getpid()), lambda i, n: (i, os.getpid()), 3)
    assert [mine, *rest] == [(0, me), (1, me), (2, me)]
