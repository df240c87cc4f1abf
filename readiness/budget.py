"""The compute budget, shared fairly between clients.

Every cache miss costs the process work before its answer exists (selecting, serializing,
hashing, compressing), and that work is what a flood of first-time queries spends. The budget
bounds it over time: estimated bytes of answers computed per second (``rate``), a token bucket
holding at most one second of them. How the bucket is shared is what makes it fair:

- While the bucket can pay, a miss is admitted at once: an idle server computes anything.
- When it cannot, the miss waits in its client's queue, and the bucket, as it refills, pays
  the queued clients in turn, by deficit round robin (each client's turn is worth up to
  ``quantum`` bytes, the cost of one turn at a time is carried over): a client asking for
  large answers waits behind its own requests, not in front of everyone else's, and a client
  asking for small ones gets its share of bytes however much another asks for.
- One request may overdraw the bucket by at most ``overdraft`` bytes: the next one, anyone's,
  waits no longer than that takes to refill. No request is charged more than one second of
  ``rate`` (a larger answer is refused before it gets here: ``readiness.domain.pricing``).
- A client has at most ``queue_per_client`` requests waiting and each waits at most
  ``max_wait`` seconds; beyond either, the miss is refused (``Overloaded``, 503 with
  ``Retry-After``). A client, not a connection: one address (IPv6: one /64) has one queue,
  however many connections it opens (``readiness/http/clients.py``).

The state is only the waiting requests and their clients' deficits: a client with nothing
waiting has no entry, so the memory is bounded by the queues, not by how many clients have
ever asked. docs/CACHING.md#the-compute-budget explains the choice and the values.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from readiness.domain.errors import Overloaded

RETRY_AFTER_SECONDS = 1
"""What a refused client is told to wait: the bucket refills in at most a second."""


@dataclass(frozen=True, slots=True)
class BudgetLimits:
    """The budget's numbers: the ``READINESS_COMPUTE_*`` settings."""

    rate: int
    """Estimated bytes of misses computed per second; the bucket holds one second of them."""
    overdraft: int
    """Bytes one admitted request may take the bucket below empty."""
    max_wait: float
    """Seconds a waiting request waits at most before it is refused."""
    queue_per_client: int
    """Requests one client may have waiting; the next is refused at once."""
    queue_total: int = 10_000
    """Requests all clients may have waiting together (a bound on memory whatever the clients)."""


@dataclass(eq=False, slots=True)
class _Waiter:
    """A request waiting to be admitted: what it costs and the future its caller awaits."""

    client: str
    charge: int
    admitted: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class FairBudget:
    """Admits misses against a budget of bytes per second, in fair turns between clients."""

    def __init__(self, limits: BudgetLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.tokens = float(limits.rate)
        """Bytes that may be computed now; negative during an overdraft."""
        self.quantum = max(1, limits.rate // 8)
        """Bytes a client's turn is worth: an eighth of a second of the rate."""
        self._clock = clock
        self._refilled = clock()
        self._queues: OrderedDict[str, deque[_Waiter]] = OrderedDict()
        """The clients with requests waiting, in the order of their next turn."""
        self._credit: dict[str, int] = {}
        """Deficit round robin's counter of each client in ``_queues``."""
        self._turn: str | None = None
        """The client whose turn it is (the first of ``_queues``), once its quantum is added."""
        self._waiting = 0
        self._wake: asyncio.TimerHandle | None = None

    @property
    def waiting(self) -> int:
        """Requests waiting now, all clients together."""
        return self._waiting

    def clients_waiting(self) -> int:
        """Clients with a request waiting now."""
        return len(self._queues)

    async def take(self, client: str, cost: int) -> None:
        """Return once ``cost`` bytes are admitted for ``client``, at once while the bucket
        can pay and nobody waits, else in the client's turn. Raises Overloaded when the
        client already has ``queue_per_client`` requests waiting, when ``queue_total`` are
        waiting, or after ``max_wait`` seconds; a cancelled caller leaves its queue."""
        charge = min(cost, self.limits.rate)
        self._refill()
        if not self._queues and self._affords(charge):
            self.tokens -= charge
            return
        waiter = self._enqueue(client, charge)
        self._admit_in_turn()
        try:
            await asyncio.wait_for(asyncio.shield(waiter.admitted), self.limits.max_wait)
        except (TimeoutError, asyncio.CancelledError) as stopped:
            if waiter.admitted.done() and not waiter.admitted.cancelled():
                if isinstance(stopped, asyncio.CancelledError):
                    raise  # admitted as it was cancelled: the bytes are spent either way
                return
            self._leave(waiter)
            if isinstance(stopped, asyncio.CancelledError):
                raise
            raise Overloaded(RETRY_AFTER_SECONDS) from None

    def _enqueue(self, client: str, charge: int) -> _Waiter:
        queue = self._queues.get(client)
        if self._waiting >= self.limits.queue_total or (
                queue is not None and len(queue) >= self.limits.queue_per_client):
            raise Overloaded(RETRY_AFTER_SECONDS)
        waiter = _Waiter(client, charge)
        if queue is None:
            self._queues[client] = queue = deque()
            self._credit[client] = 0
        queue.append(waiter)
        self._waiting += 1
        return waiter

    def _leave(self, waiter: _Waiter) -> None:
        """Take a waiter that gave up out of its queue (and its client out of the round if
        that was its last)."""
        queue = self._queues.get(waiter.client)
        if queue is None or waiter not in queue:
            return
        queue.remove(waiter)
        self._waiting -= 1
        if not queue:
            del self._queues[waiter.client]
            del self._credit[waiter.client]
            if self._turn == waiter.client:
                self._turn = None
        self._admit_in_turn()  # the head may have changed

    def _admit_in_turn(self) -> None:
        """Admit waiting requests in their clients' turns while the bucket can pay; when it
        cannot, wake up when it will have refilled enough for the next in turn."""
        self._refill()
        while self._queues:
            client, queue = next(iter(self._queues.items()))
            if self._turn != client:  # its turn begins: worth a quantum more
                self._turn = client
                self._credit[client] += self.quantum
            head = queue[0]
            if self._credit[client] < head.charge:  # its turn is over: the next client's begins
                self._turn = None
                self._queues.move_to_end(client)
                continue
            if not self._affords(head.charge):
                self._wake_for(head.charge)
                return
            queue.popleft()
            self._waiting -= 1
            self._credit[client] -= head.charge
            self.tokens -= head.charge
            if not queue:
                del self._queues[client]
                del self._credit[client]
                self._turn = None
            head.admitted.set_result(None)
        self._cancel_wake()

    def _affords(self, charge: int) -> bool:
        return self.tokens > 0 and self.tokens - charge >= -self.limits.overdraft

    def _refill(self) -> None:
        now = self._clock()
        self.tokens = min(float(self.limits.rate), self.tokens + (now - self._refilled) * self.limits.rate)
        self._refilled = now

    def _wake_for(self, charge: int) -> None:
        """Call ``_admit_in_turn`` again once the bucket can pay ``charge``."""
        needed = max(charge - self.limits.overdraft - self.tokens, -self.tokens, 0.0) + 1.0
        self._cancel_wake()
        self._wake = asyncio.get_running_loop().call_later(needed / self.limits.rate, self._woken)

    def _woken(self) -> None:
        self._wake = None
        self._admit_in_turn()

    def _cancel_wake(self) -> None:
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None
