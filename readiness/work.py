"""The compute pool: where cache misses are computed, and how much of that work is admitted.

A miss for many countries costs milliseconds of serializing, hashing and compressing; on the
event loop, every other request (cached ones included) waits meanwhile. So answers estimated
larger than ``inline_bytes`` are computed in worker threads instead, at most ``threads`` at
a time, and the work admitted (running or waiting for a thread) is bounded by its estimated
size: beyond ``queue_bytes``, a miss is refused with ``Overloaded`` (503, ``Retry-After``)
rather than queued without bound. docs/CACHING.md#the-compute-pool-bounded-work-for-misses
and docs/DECISIONS.md#cache-misses explain the choice.

Over time, the work of misses (inline and in threads alike) is bounded by a budget of estimated
bytes per second, shared fairly between clients (``readiness/budget.py``): a flood of distinct
misses, small or large, waits in its own client's queue and is refused beyond it rather than
computed, so cached answers keep most of the event loop and the GIL, and other clients' misses
their turns.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn, TypeVar

from readiness.budget import RETRY_AFTER_SECONDS, BudgetLimits, FairBudget
from readiness.domain.errors import Overloaded
from readiness.metrics import Metrics

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ComputeLimits:
    """How misses are computed: ``threads`` 0 computes every answer on the event loop (no
    bound); otherwise answers estimated above ``inline_bytes`` go to at most ``threads``
    worker threads, and at most ``queue_bytes`` of them (estimated) are admitted at a time."""

    threads: int
    inline_bytes: int
    queue_bytes: int
    budget: BudgetLimits | None = None
    """The compute budget (``readiness/budget.py``); None for none."""
    shed_pause: float = 0.0
    """Seconds a refused miss for a thread (a large answer) waits before its 503 is sent."""


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
        self.budget: FairBudget | None = None
        if limits.budget is not None:
            budget = self.budget = FairBudget(limits.budget)
            metrics.compute_waiting.set_function(lambda: budget.waiting)

    async def run(self, cost: int, job: Callable[[], T], client: str = "") -> T:
        """Return ``job()``, computed on the event loop if ``cost`` (estimated bytes) is at
        most ``inline_bytes``, else in a worker thread, once the budget admits it for
        ``client`` (``readiness/http/clients.py``: who asked; "" for the service itself).

        Raises Overloaded, without running ``job``, when the budget refuses it (its client's
        queue is full, or it waited too long: ``FairBudget.take``) or when admitting ``cost``
        would take the work admitted to the threads over ``queue_bytes``; one computation is
        always admitted when none is, however large, and the budget of an idle server is
        full, so every valid query can be answered by an idle server.
        """
        inline = self.limits.threads == 0 or cost <= self.limits.inline_bytes
        await self.charge(cost, client, pause=0.0 if inline else self.limits.shed_pause)
        if inline:
            return job()
        if self.admitted and self.admitted_bytes + cost > self.limits.queue_bytes:
            await self._refuse(over_budget=False, pause=self.limits.shed_pause)
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

    async def charge(self, cost: int, client: str, pause: float = 0.0) -> None:
        """Take ``cost`` from ``client``'s share of the budget, waiting its turn: before a
        computation (``run``), or for work that is not one (reading an archive). Raises
        Overloaded, after ``pause`` seconds, when the budget refuses it."""
        if self.budget is not None:
            try:
                await self.budget.take(client, cost)
            except Overloaded:
                await self._refuse(over_budget=True, pause=pause)

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
