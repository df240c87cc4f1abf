"""Single-flight: concurrent requests for one key share one piece of work.

A cold popular key after a release is asked for by many clients at once; an archive nobody
asked for since the start is asked for by several requests in the same moment; a poll and a
request both want CURRENT from a volume that may hang. Without this, each caller would do the
same work again; with it, the first call for a key starts one run and every call that arrives
while it runs shares its outcome, so a key costs one run however many ask
(docs/CACHING.md#the-path-of-one-request).

Two kinds of work, one method each:

- ``run``: the first caller (the leader) runs the work itself and the others (followers)
  await its outcome. The run belongs to the leader's request: the service's Redis lookup and
  computation (``readiness/service.py``).
- ``run_detached`` and ``run_detached_within``: the work is started once as a task or a
  worker thread's future of its own and belongs to no caller, so that one caller going away
  (or giving up at its deadline) stops nothing: an archive load half done is still worth
  finishing for the next request (``loaders/store.py``), and a read under way in a thread
  cannot be stopped anyway (``loaders/bounded.py``).

It lives in ``loaders``, the lowest layer, so that the loaders and the service above them may
both import it (docs/ARCHITECTURE.md#layers).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Overdue(Exception):
    """A detached run is still going past a caller's deadline (``run_detached_within``).

    The run goes on: the next caller for its key joins it, and ``when_finished`` tells when it
    ends after all.
    """

    def __init__(self, key: str, seconds: float, first: bool, running: asyncio.Future[Any]) -> None:
        super().__init__(f"{key} has not finished after {seconds:.0f} s")
        self.key = key
        self.seconds = seconds
        """How long the run has been going, counted from its start, not from this call."""
        self.first = first
        """Whether this is the first call to find this run overdue: report a stuck run once."""
        self._running = running

    def when_finished(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` (on the event loop) once the overdue run ends, however it ends."""
        self._running.add_done_callback(lambda _: callback())


@dataclass(slots=True)
class _Flight(Generic[T]):
    future: asyncio.Future[T]
    started: float
    """The event loop's clock when the run began: every caller's deadline counts from it."""
    overdue: bool = False
    """Whether a caller already found the run past its deadline (``Overdue.first``)."""


class SingleFlight(Generic[T]):
    """At most one run per key; callers that arrive meanwhile share its outcome.

    - The run's result is every caller's result.
    - The run's exception is raised in every caller too: they asked for the same thing, and
      running it again at once would only repeat the failure (an overloaded pool, a missing
      report, an unreadable file).
    - Nothing is kept: once a run ends, the key is free and the next call runs again.
    - A caller cancelled while it awaits a run it did not lead is only its own loss: the run
      and the other callers go on.
    - With ``run`` the work is the leader's: a cancelled leader (its client went away) fails
      nobody, the followers find the key free and one of them leads a new run. With
      ``run_detached`` the work is nobody's and no caller's cancellation reaches it.

    One instance is meant for one kind of work: a key's ``run`` and its detached run would be two
    separate runs, neither sharing the other's.
    """

    def __init__(self) -> None:
        self._led: dict[str, asyncio.Future[T]] = {}
        """``run``'s runs: a bare future each, the leader's path being the service's hot one."""
        self._detached: dict[str, _Flight[T]] = {}

    def __contains__(self, key: str) -> bool:
        """Whether a run for ``key`` is under way now."""
        return key in self._led or key in self._detached

    def __len__(self) -> int:
        return len(self._led) + len(self._detached)

    async def run(self, key: str, work: Callable[[], Awaitable[T]]) -> T:
        """The outcome of ``work()`` for ``key``: run it as the leader, or share the run
        already under way."""
        while (running := self._led.get(key)) is not None:
            try:
                return await asyncio.shield(running)  # a follower's cancellation is its own
            except asyncio.CancelledError:
                if not running.cancelled():
                    raise  # this caller was cancelled, not the leader
        future = self._led[key] = asyncio.get_running_loop().create_future()
        try:
            result = await work()
        except asyncio.CancelledError:
            future.cancel()  # followers wake and lead again
            raise
        except Exception as error:
            future.set_exception(error)
            future.exception()  # retrieved: with no follower, asyncio would warn it never was
            raise
        else:
            future.set_result(result)
            return result
        finally:
            del self._led[key]

    async def run_detached(self, key: str, start: Callable[[], Awaitable[T]]) -> T:
        """The outcome of the run for ``key``: started by ``start()`` if none is under way,
        else the one that is.

        ``start`` returns a coroutine, run as a task of its own, or a future (a worker thread's,
        from ``loop.run_in_executor``); it is called only when no run for ``key`` is under way.
        Every caller awaits the run shielded, so cancelling a caller never cancels the run. A
        run cancelled from outside (its executor shut down) raises CancelledError in every
        caller.
        """
        return await asyncio.shield(self._flight(key, start).future)

    async def run_detached_within(self, key: str, start: Callable[[], Awaitable[T]], timeout: float) -> T:
        """``run_detached``, each caller awaiting the run until at most ``timeout`` seconds after
        it STARTED.

        The deadline counts from the run's start, not from the call, so a caller that finds a
        run already overdue is not made to wait at all. Raises Overdue then (the run goes on,
        shared by the next caller), and whatever the run raised if it ended within the deadline.
        """
        flight = self._flight(key, start)
        loop = asyncio.get_running_loop()
        remaining = flight.started + timeout - loop.time()
        if remaining > 0 or flight.future.done():
            try:
                return await asyncio.wait_for(asyncio.shield(flight.future), remaining)
            except TimeoutError:
                if flight.future.done():  # the run's own TimeoutError (an ETIMEDOUT read), or it ended at the deadline
                    return flight.future.result()
        first, flight.overdue = not flight.overdue, True
        raise Overdue(key, loop.time() - flight.started, first, flight.future)

    def _flight(self, key: str, start: Callable[[], Awaitable[T]]) -> _Flight[T]:
        """The detached run under way for ``key``, started by ``start`` if there is none."""
        flight = self._detached.get(key)
        if flight is None:
            loop = asyncio.get_running_loop()
            flight = self._detached[key] = _Flight(asyncio.ensure_future(start()), loop.time())
            flight.future.add_done_callback(partial(self._landed, key))
        return flight

    def _landed(self, key: str, future: asyncio.Future[T]) -> None:
        """Free the key of a detached run that ended. (Its flight is still the key's: a caller
        arriving between the end and this callback joins the ended run, never starts one.)"""
        del self._detached[key]
        if not future.cancelled():
            future.exception()  # retrieved: when every caller gave up waiting, asyncio would warn it never was
