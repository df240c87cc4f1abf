"""Single-flight: concurrent requests for one key share one piece of work.

A cold popular key after a release is asked for by many clients at once. Without this, each
would ask Redis and compute the same answer; with it, the first caller (the leader) runs the
work and the others (followers) await its result, so a key costs one lookup and at most one
computation however many ask (docs/CACHING.md#the-path-of-one-request).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class SingleFlight(Generic[T]):
    """At most one running ``work`` per key; callers that arrive meanwhile share its outcome.

    - The leader's result is every follower's result.
    - The leader's exception is raised in every follower too: they asked for the same thing,
      and running it again at once would only repeat the failure (an overloaded pool, a
      missing report).
    - A cancelled leader (its client went away) fails nobody: the followers find the key free
      and one of them leads a new run.
    - A cancelled follower is only its own loss: the leader and the other followers go on.
    """

    def __init__(self) -> None:
        self._running: dict[str, asyncio.Future[T]] = {}

    def __contains__(self, key: str) -> bool:
        """Whether work for ``key`` is running now."""
        return key in self._running

    def __len__(self) -> int:
        return len(self._running)

    async def run(self, key: str, work: Callable[[], Awaitable[T]]) -> T:
        """The outcome of ``work()`` for ``key``: run it as the leader, or share the run
        already under way."""
        while (running := self._running.get(key)) is not None:
            try:
                return await asyncio.shield(running)  # a follower's cancellation is its own
            except asyncio.CancelledError:
                if not running.cancelled():
                    raise  # this caller was cancelled, not the leader
        future = self._running[key] = asyncio.get_running_loop().create_future()
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
            del self._running[key]
