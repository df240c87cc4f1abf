"""Reads off the event loop, each awaited for a bounded time and shared while it runs.

A snapshot volume can hang (a stuck NFS read): a read in a worker thread then never returns.
``BoundedReads`` keeps such a read from costing the event loop anything but a log line: every
read runs in its own small pool and is awaited at most ``timeout`` seconds; concurrent reads
of the same thing share one run (``SingleFlight.run_detached_within``), so a hung volume holds
a few threads, never one per poll or request (docs/OPERATIONS.md#a-hung-snapshot-volume).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar, cast

from loaders.singleflight import Overdue, SingleFlight
from loaders.workers import CountingExecutor

log = logging.getLogger("readiness.loaders")

T = TypeVar("T")

IO_THREADS = 4
"""Worker threads for file reads. Reads are shared per file, so a hung volume blocks at most
CURRENT, the listing, one manifest and the snapshots being loaded, never a thread per poll."""


class ReadTimeout(Exception):
    """A file-system read took longer than the timeout; it may still be stuck."""


class BoundedReads:
    """Runs reads of ``data_dir`` in worker threads, each awaited at most ``timeout`` seconds."""

    def __init__(self, data_dir: Path, timeout: float) -> None:
        self.data_dir = data_dir
        self.timeout = timeout
        self._reads: SingleFlight[object] = SingleFlight()
        """Reads under way, by what they read: each is shared and outlives its callers (a read
        in a thread cannot be stopped)."""
        self._executor = CountingExecutor(IO_THREADS, thread_name_prefix="snapshot-io")

    async def run(self, what: str, work: Callable[[], T]) -> T:
        """Run ``work`` in a worker thread and await it at most ``timeout`` seconds.

        Concurrent calls for the same ``what`` share one run, and the timeout counts from its
        start. Raises ReadTimeout, logged once per stuck read; a caller that finds the read
        still stuck past its timeout is not made to wait again.
        """
        loop = asyncio.get_running_loop()
        try:
            result = await self._reads.run_detached_within(
                what, partial(loop.run_in_executor, self._executor, work), self.timeout
            )
        except Overdue as stuck:
            if stuck.first:
                log.error("reading %s in %s timed out after %.0f s; the volume may be hung",
                          what, self.data_dir, stuck.seconds)
                stuck.when_finished(partial(log.warning, "reading %s in %s finished after all", what, self.data_dir))
            raise ReadTimeout(f"reading {what} has not finished after {stuck.seconds:.0f} s (volume hung?)") from None
        return cast(T, result)  # the run for ``what`` is this ``work``'s, or an equal one's

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
        while self._reads and loop.time() < deadline:
            await asyncio.sleep(step)
        return not self._reads

    def close(self) -> None:
        """Stop the worker threads, without waiting for a read that is stuck."""
        self._executor.shutdown(wait=False, cancel_futures=True)
