"""Work split over forked processes: how opgen's big loops (rendering a registry's ops,
reading and checking a big text OpList) use a machine's cores without sending their inputs
anywhere (a forked worker inherits them)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from typing import Any, TypeVar

M = TypeVar("M")
W = TypeVar("W")

# The work of the pool running now, which its forked workers inherit (set only while it runs).
_WORK: list[Callable[[int, int], Any]] = []


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
    forked workers compute the others (they inherit everything: only each share's index is
    sent); each worker's result comes back pickled, and so does an exception it raises
    (re-raised here). Without fork, all in this process."""
    if shares <= 1 or not can_fork():
        return mine(0, max(shares, 1)), [work(i, shares) for i in range(1, shares)]
    _WORK.append(work)
    try:
        with multiprocessing.get_context("fork").Pool(shares - 1) as pool:
            pending = pool.map_async(_run_share, [(i, shares) for i in range(1, shares)])
            first = mine(0, shares)
            return first, pending.get()
    finally:
        _WORK.pop()


def _run_share(share: tuple[int, int]) -> Any:
    index, shares = share
    return _WORK[-1](index, shares)
