"""The compute pool: where cache misses are computed, and how much of that work is admitted.

A miss for many countries costs milliseconds of serializing, hashing and compressing; on the
event loop, every other request (cached ones included) waits meanwhile. So answers estimated
larger than ``inline_bytes`` are computed in worker threads instead, at most ``threads`` at
a time, and the work admitted (running or waiting for a thread) is bounded by its estimated
size: beyond ``queue_bytes``, a miss is refused with ``Overloaded`` (503, ``Retry-After``)
rather than queued without bound. docs/CACHING.md and docs/DECISIONS.md explain the choice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from readiness.domain.errors import Overloaded
from readiness.metrics import Metrics

RETRY_AFTER_SECONDS = 1
"""What a shed client is told to wait: a full queue drains in well under a second."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ComputeLimits:
    """How misses are computed: ``threads`` 0 computes every answer on the event loop (no
    bound); otherwise answers estimated above ``inline_bytes`` go to at most ``threads``
    worker threads, and at most ``queue_bytes`` of them (estimated) are admitted at a time."""

    threads: int
    inline_bytes: int
    queue_bytes: int


class ComputePool:
    """Runs computations on the event loop or in worker threads, and sheds beyond the bound.

    The threads are the event loop's default executor's (asyncio sizes it to at least five;
    the settings allow at most four here, leaving one for archive reads). A worker thread
    holds the GIL for the pure-Python part of a computation only: gzip and BLAKE2b, most of a
    large answer's cost, release it, and the event loop gets the GIL back at least every
    switch interval (5 ms) meanwhile.
    """

    def __init__(self, limits: ComputeLimits, metrics: Metrics) -> None:
        self.limits = limits
        self.admitted = 0
        """Computations admitted to the threads: running or waiting for one."""
        self.admitted_bytes = 0
        """Their estimated bytes."""
        self._threads = asyncio.Semaphore(max(1, limits.threads))
        self._metrics = metrics

    async def run(self, cost: int, job: Callable[[], T]) -> T:
        """Return ``job()``, computed on the event loop if ``cost`` (estimated bytes) is at
        most ``inline_bytes``, else in a worker thread.

        Raises Overloaded, without running ``job``, when admitting ``cost`` would take the
        admitted work over ``queue_bytes``; one computation is always admitted when none is,
        however large, so every valid query can be answered by an idle server.
        """
        if self.limits.threads == 0 or cost <= self.limits.inline_bytes:
            return job()
        if self.admitted and self.admitted_bytes + cost > self.limits.queue_bytes:
            self._metrics.compute_shed.inc()
            raise Overloaded(RETRY_AFTER_SECONDS)
        self._count(1, cost)
        try:
            await self._threads.acquire()
        except asyncio.CancelledError:  # while waiting: never started, so never finishes
            self._count(-1, -cost)
            raise
        running = asyncio.get_running_loop().run_in_executor(None, job)
        running.add_done_callback(lambda _: self._finished(cost))
        # A cancelled caller leaves the thread running: the slot and the admitted bytes are
        # given back when it ends, not before, so the bound always holds for real threads.
        return await asyncio.shield(running)

    def _finished(self, cost: int) -> None:
        self._threads.release()
        self._count(-1, -cost)

    def _count(self, computations: int, size: int) -> None:
        self.admitted += computations
        self.admitted_bytes += size
        self._metrics.compute_queue.set(self.admitted)
        self._metrics.compute_queue_bytes.set(self.admitted_bytes)
