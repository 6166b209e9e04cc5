"""Work done in a forked process while this one goes on: a site's board figures (matplotlib,
one core) are drawn while its run pages are written.

Forking shares what the work reads without sending it; only the arguments and the result are
pickled. On one CPU, or where fork is not offered, the work runs here first: the same result,
in the same order, without the wait of a second process.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def aside(work: Callable[..., T], *args: object) -> Iterator[Future[T]]:
    """`work(*args)` running in a forked process for the length of the block; its future (an
    error it raises comes back from `result()`, named as raised)."""
    if (os.cpu_count() or 1) < 2 or "fork" not in mp.get_all_start_methods():
        done: Future[T] = Future()
        try:
            done.set_result(work(*args))
        except Exception as err:  # handed to `result()`, as the pool would
            done.set_exception(err)
        yield done
        return
    with ProcessPoolExecutor(1, mp_context=mp.get_context("fork")) as pool:
        yield pool.submit(work, *args)
