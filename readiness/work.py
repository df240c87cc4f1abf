"""The compute pool: where cache misses are computed, and how much of that work is admitted.

A miss for many countries costs milliseconds of serializing, hashing and compressing; on the
event loop, every other request (cached ones included) waits meanwhile. So answers estimated
larger than ``inline_bytes`` are computed in worker threads instead, at most ``threads`` at
a time, and the work admitted (running or waiting for a thread) is bounded by its estimated
size: beyond ``queue_bytes``, a miss is refused with ``Overloaded`` (503, ``Retry-After``)
rather than queued without bound. docs/CACHING.md#the-compute-pool-bounded-work-for-misses
and docs/DECISIONS.md#cache-misses explain the choice.

Over time, the work of misses (inline and in threads alike) is bounded by a budget of estimated
bytes per second (``ComputeBudget``): a flood of distinct misses, small or large, is refused
beyond it rather than computed, so cached answers keep most of the event loop and the GIL.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn, TypeVar

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
    bytes_per_second: int = 0
    """The compute budget (``ComputeBudget``); 0 for none."""
    shed_pause: float = 0.0
    """Seconds a refused miss for a thread (a large answer) waits before its 503 is sent."""


class ComputeBudget:
    """A token bucket of estimated bytes: it holds at most one second of ``rate`` and refills
    at ``rate`` per second. A computation is admitted while the bucket is not empty, and takes
    its cost from it, even beyond what is left: the overdraft is paid back by the refill before
    the next one is admitted, so the rate holds on average whatever the sizes. An idle server's
    bucket is full, so its next computation is always admitted, however large.
    """

    def __init__(self, rate: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.tokens = float(rate)
        """Bytes that may still be computed now; negative while an overdraft is paid back."""
        self._clock = clock
        self._refilled = clock()

    def admit(self, cost: int) -> bool:
        """Take ``cost`` from the bucket and return True, or return False if it is empty."""
        now = self._clock()
        self.tokens = min(float(self.rate), self.tokens + (now - self._refilled) * self.rate)
        self._refilled = now
        if self.tokens <= 0:
            return False
        self.tokens -= cost
        return True


class CollectorPause:
    """Python's cyclic garbage collector held off while a worker thread computes.

    A large answer is built from tens of thousands of short-lived containers (rows, cells,
    lists), all alive until it is serialized. The allocations trigger collections in the
    worker thread, and one of the oldest generation then walks them all, with the GIL held
    throughout: 20 to 35 ms during which the event loop answers nothing, the longest stalls a
    cached answer saw under a flood of costly misses
    (docs/PERFORMANCE.md#the-costly-flood-and-the-garbage-collector-2026-11-27). Reference
    counting frees those containers when the computation ends, so no collection is needed for
    them; ``paused`` disables the collector while any computation runs (it is one switch for the
    whole process) and enables it again after the last, if it was enabled before. Collections
    that fall due meanwhile run at the next allocation after, over what survived.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._was_enabled = False

    def paused(self, job: Callable[[], T]) -> T:
        """``job()``, with the collector off while it runs."""
        with self._lock:
            if self._running == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._running += 1
        try:
            return job()
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0 and self._was_enabled:
                    gc.enable()


_COLLECTOR = CollectorPause()
"""The one pause of the process's one collector, shared by every pool."""


class ComputePool:
    """Runs computations on the event loop or in worker threads, and sheds beyond the bound.

    The threads are the event loop's default executor's (asyncio sizes it to at least five;
    the settings allow at most four here, leaving one for archive reads). A worker thread
    holds the GIL for the pure-Python part of a computation only: gzip and BLAKE2b, most of a
    large answer's cost, release it, and the event loop gets the GIL back at least every
    switch interval (``READINESS_SWITCH_INTERVAL_US``, which server.py sets: 1 ms) meanwhile.
    """

    def __init__(self, limits: ComputeLimits, metrics: Metrics) -> None:
        self.limits = limits
        self.admitted = 0
        """Computations admitted to the threads: running or waiting for one."""
        self.admitted_bytes = 0
        """Their estimated bytes."""
        self._threads = asyncio.Semaphore(max(1, limits.threads))
        self._metrics = metrics
        self.budget = ComputeBudget(limits.bytes_per_second) if limits.bytes_per_second else None

    async def run(self, cost: int, job: Callable[[], T]) -> T:
        """Return ``job()``, computed on the event loop if ``cost`` (estimated bytes) is at
        most ``inline_bytes``, else in a worker thread.

        Raises Overloaded, without running ``job``, when admitting ``cost`` would take the
        admitted work over ``queue_bytes``, or when the budget is spent; one computation is
        always admitted when none is, however large, and the budget of an idle server is full,
        so every valid query can be answered by an idle server.
        """
        if self.limits.threads == 0 or cost <= self.limits.inline_bytes:
            if not self._afford(cost):
                await self._refuse(over_budget=True, pause=0.0)
            return job()
        if self.admitted and self.admitted_bytes + cost > self.limits.queue_bytes:
            await self._refuse(over_budget=False, pause=self.limits.shed_pause)
        if not self._afford(cost):
            await self._refuse(over_budget=True, pause=self.limits.shed_pause)
        self._count(1, cost)
        try:
            await self._threads.acquire()
        except asyncio.CancelledError:  # while waiting: never started, so never finishes
            self._count(-1, -cost)
            raise
        running = asyncio.get_running_loop().run_in_executor(None, _COLLECTOR.paused, job)
        running.add_done_callback(lambda _: self._finished(cost))
        # A cancelled caller leaves the thread running: the slot and the admitted bytes are
        # given back when it ends, not before, so the bound always holds for real threads.
        return await asyncio.shield(running)

    def _afford(self, cost: int) -> bool:
        """Whether the budget admits ``cost`` (taken from it if so)."""
        return self.budget is None or self.budget.admit(cost)

    async def _refuse(self, *, over_budget: bool, pause: float) -> NoReturn:
        """Count a refused miss and raise Overloaded, after ``pause`` seconds.

        A large miss's refusal waits (``shed_pause``): a client that asks again at once on each
        of its connections is slowed to a few refusals a second each, for the cost of a timer.
        A small miss's is sent at once: small misses come many times faster, and a timer per
        refusal would cost the event loop more than the pause saves.
        """
        self._metrics.compute_shed.inc()
        if over_budget:
            self._metrics.compute_over_budget.inc()
        if pause:
            await asyncio.sleep(pause)
        raise Overloaded(RETRY_AFTER_SECONDS)

    def _finished(self, cost: int) -> None:
        self._threads.release()
        self._count(-1, -cost)

    def _count(self, computations: int, size: int) -> None:
        self.admitted += computations
        self.admitted_bytes += size
        self._metrics.compute_queue.set(self.admitted)
        self._metrics.compute_queue_bytes.set(self.admitted_bytes)
