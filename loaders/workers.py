"""Worker threads that know whether they are working: what a process may wait for at exit.

An idle worker thread stays alive until its pool shuts down, so the threads alive at exit say
nothing about work still running. A read stuck on a hung volume is work that never ends: the
process must exit without waiting for it, and only a count of running calls tells the two
apart (``server._run``).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_T = TypeVar("_T")

_EXECUTORS: weakref.WeakSet[CountingExecutor] = weakref.WeakSet()


class CountingExecutor(ThreadPoolExecutor):
    """A thread pool counting the calls submitted to it that have not returned yet."""

    def __init__(self, max_workers: int | None = None, thread_name_prefix: str = "") -> None:
        super().__init__(max_workers, thread_name_prefix=thread_name_prefix)
        self.busy = 0
        self._lock = threading.Lock()
        _EXECUTORS.add(self)

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        """Submit ``fn``, counted as busy from now until it returns or raises."""
        with self._lock:
            self.busy += 1

        def counted() -> _T:
            try:
                return fn(*args, **kwargs)
            finally:
                with self._lock:
                    self.busy -= 1

        try:
            return super().submit(counted)
        except BaseException:
            with self._lock:
                self.busy -= 1
            raise


def busy_workers() -> int:
    """Calls still running in every CountingExecutor of this process."""
    return sum(executor.busy for executor in list(_EXECUTORS))
