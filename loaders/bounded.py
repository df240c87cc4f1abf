"""Reads off the event loop, each awaited for a bounded time and shared while it runs.

A snapshot volume can hang (a stuck NFS read): a read in a worker thread then never returns.
``BoundedReads`` keeps such a read from costing the event loop anything but a log line: every
read runs in its own small pool and is awaited at most ``timeout`` seconds; concurrent reads
of the same thing share one run, so a hung volume holds a few threads, never one per poll or
request (docs/OPERATIONS.md#a-hung-snapshot-volume).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

from loaders.workers import CountingExecutor

log = logging.getLogger("readiness.loaders")

T = TypeVar("T")

IO_THREADS = 4
"""Worker threads for file reads. Reads are shared per file, so a hung volume blocks at most
CURRENT, the listing, one manifest and the snapshots being loaded, never a thread per poll."""


class ReadTimeout(Exception):
    """A file-system read took longer than the timeout; it may still be stuck."""


@dataclass(slots=True)
class _Pending:
    future: asyncio.Future[object]
    started: float
    reported: bool = False


class BoundedReads:
    """Runs reads of ``data_dir`` in worker threads, each awaited at most ``timeout`` seconds."""

    def __init__(self, data_dir: Path, timeout: float) -> None:
        self.data_dir = data_dir
        self.timeout = timeout
        self._pending: dict[str, _Pending] = {}
        self._executor = CountingExecutor(IO_THREADS, thread_name_prefix="snapshot-io")

    async def run(self, what: str, work: Callable[[], T]) -> T:
        """Run ``work`` in a worker thread and await it at most ``timeout`` seconds.

        Concurrent calls for the same ``what`` share one run. Raises ReadTimeout, logged once
        per stuck read; a caller that finds the read still stuck past its timeout is not made
        to wait again.
        """
        loop = asyncio.get_running_loop()
        pending = self._pending.get(what)
        if pending is None:
            future: asyncio.Future[object] = loop.run_in_executor(self._executor, work)
            pending = self._pending[what] = _Pending(future, loop.time())
            future.add_done_callback(partial(self._finished, what, pending))
        remaining = pending.started + self.timeout - loop.time()
        try:
            if remaining <= 0:
                raise TimeoutError
            result = await asyncio.wait_for(asyncio.shield(pending.future), remaining)
        except TimeoutError:
            stuck = loop.time() - pending.started
            if not pending.reported:
                pending.reported = True
                log.error("reading %s in %s timed out after %.0f s; the volume may be hung", what, self.data_dir, stuck)
            raise ReadTimeout(f"reading {what} has not finished after {stuck:.0f} s (volume hung?)") from None
        return result  # type: ignore[return-value]  # the future holds what ``work`` returned

    async def quietly(self, what: str, work: Callable[[], T | None]) -> T | None:
        """``run``, with None for a read that timed out (already logged)."""
        try:
            return await self.run(what, work)
        except ReadTimeout:
            return None

    async def settled(self, seconds: float, step: float = 0.02) -> bool:
        """Wait until no read is running, at most ``seconds``; True if none is. For a clean
        stop: a read stuck on a hung volume is left behind after the bound."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while self._pending and loop.time() < deadline:
            await asyncio.sleep(step)
        return not self._pending

    def close(self) -> None:
        """Stop the worker threads, without waiting for a read that is stuck."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _finished(self, what: str, pending: _Pending, future: asyncio.Future[object]) -> None:
        if self._pending.get(what) is pending:
            del self._pending[what]
        if pending.reported:
            log.warning("reading %s in %s finished after all", what, self.data_dir)
        if not future.cancelled():
            future.exception()  # retrieved, even when every caller gave up waiting
