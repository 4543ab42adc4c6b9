"""Work split over forked processes: how opgen's big loops (rendering a registry's ops,
reading and checking a big text OpList) use a machine's cores without sending their inputs
anywhere (a forked worker inherits them)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

M = TypeVar("M")
W = TypeVar("W")


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def in_shares(mine: Callable[[int, int], M], work: Callable[[int, int], W], shares: int) -> tuple[M, list[W]]:
    """(mine(0, shares), [work(1, shares), ..., work(shares - 1, shares)]): share 0 in this
    process (`mine`, which may report progress or raise located errors), while `shares - 1`
    forked workers compute the others (they inherit everything: nothing is sent to them);
    each worker's result comes back pickled through a pipe, and so does an exception it
    raises (re-raised here). Without fork, all in this process.

    A bare `os.fork` per worker rather than a `multiprocessing` pool, whose threads and
    queues cost a build 15 ms to start and stop; a worker that dies without its result is an
    error here (a pool would wait for it forever), and workers still running when this
    process's share fails are killed."""
    if shares <= 1 or not can_fork():
        return mine(0, max(shares, 1)), [work(i, shares) for i in range(1, shares)]
    workers: dict[int, int] = {}  # pid -> the read end of its result's pipe, until reaped
    try:
        for index in range(1, shares):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read)
                _run_share(work, index, shares, write)
            os.close(write)
            workers[pid] = read
        first = mine(0, shares)
        return first, [_result_of(pid, workers.pop(pid)) for pid in list(workers)]
    finally:
        for pid, read in workers.items():
            os.close(read)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _run_share(work: Callable[[int, int], Any], index: int, shares: int, write: int) -> NoReturn:
    """A forked worker: `work(index, shares)` (or the exception it raises) pickled into the
    pipe `write`, then the end of the process, with none of the parent's exit handlers or
    buffered output (they are the parent's to run and flush)."""
    status = 1
    try:
        try:
            result = (True, work(index, shares))
        except BaseException as e:  # noqa: BLE001 (whatever it is, the parent re-raises it)
            result = (False, e)
        try:
            payload = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # noqa: BLE001 (a result or exception that does not pickle)
            payload = pickle.dumps((False, RuntimeError(f"a worker's result does not pickle: {e}")))
        with os.fdopen(write, "wb") as pipe:
            pipe.write(payload)
        status = 0
    finally:
        os._exit(status)


def _result_of(pid: int, read: int) -> Any:
    """The result of worker `pid`, read whole from its pipe, once it has ended."""
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    if not data:
        raise RuntimeError(f"opgen's worker process {pid} ended without its result (killed?)")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value
