"""ReadinessService: from a Query to an Answer, through both cache tiers, the snapshot and the domain."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from enum import Enum
from functools import partial

from loaders import Snapshot, SnapshotStore

from readiness.cache import Answer, AnswerCache
from readiness.envelope import answer_body
from readiness.errors import ArchiveNotFound, CountryNotFound, NotReady
from readiness.metrics import Metrics
from readiness.query import Query, archive_id
from readiness.redis_tier import RedisTier
from readiness.select import missing_codes, project, select
from readiness.work import ComputeLimits, ComputePool, estimated_bytes


class Route(Enum):
    """The two routes of docs/API.md; they differ only for unmatched codes (docs/DECISIONS.md)."""

    V1 = "v1"
    LEGACY = "legacy"


class CacheOutcome(Enum):
    """Where an answer came from, for the access log."""

    HIT = "hit"
    REDIS = "redis"
    MISS = "miss"


@dataclass(frozen=True, slots=True)
class RedisTtl:
    """How long Redis keeps answers: archives never change, so theirs may live longer."""

    current: int
    archive: int


def request_key(route: Route, query: Query) -> str:
    """Route + canonical query: what popularity is counted by, and replayed by the warm-up."""
    return f"{route.value}|{query.canonical()}"


CONTENT_DIGEST_CHARS = 16
"""Hex characters of the snapshot's content digest in a cache key: 64 bits tell apart any two
data directories that happen to share a snapshot id."""


def cache_key(snapshot: Snapshot, request: str) -> str:
    """Snapshot id + content digest + route + canonical query (docs/CACHING.md):
    equal keys give identical bytes, even across data directories sharing one Redis.

    The one function that builds keys: the servers and the warm-up must agree on them. The id
    comes first so that one snapshot's keys share the prefix ``<id>|``.
    """
    return f"{snapshot.id}|{snapshot.digest[:CONTENT_DIGEST_CHARS]}|{request}"


def compute(snapshot: Snapshot, query: Query, route: Route) -> Answer:
    """Compute and serialize the answer to ``query`` from one snapshot, without any cache.

    On the legacy route an unmatched code is an error (docs/DECISIONS.md); on v1 it only lowers
    the count (docs/API.md, The response: unmatched codes).
    """
    if route is Route.LEGACY:
        missing = missing_codes(snapshot, query)
        if missing:
            raise CountryNotFound(missing)
    label = "current" if query.year is None else snapshot.id
    return Answer.of(answer_body(query, label, project(select(snapshot, query), query)))


class ReadinessService:
    """Answers queries: picks the snapshot, looks in memory, then Redis, computes on a miss.

    Concurrent misses on one key share one computation (single-flight): the first request
    does the work, the others wait for its result, so a cold popular key does not stampede
    the snapshot or Redis. The compute pool (``readiness/work.py``) decides where a
    computation runs, and refuses it (Overloaded) beyond its bound.
    """

    def __init__(
        self,
        store: SnapshotStore,
        memory: AnswerCache,
        metrics: Metrics,
        redis: RedisTier | None,
        ttl: RedisTtl,
        pool: ComputePool | None = None,
    ) -> None:
        """Without ``pool``, every miss is computed on the event loop, without a bound."""
        self.store = store
        self.memory = memory
        self.metrics = metrics
        self.redis = redis
        self.ttl = ttl
        self.pool = pool if pool is not None else ComputePool(ComputeLimits(0, 0, 0), metrics)
        self._inflight: dict[str, asyncio.Future[tuple[Answer, CacheOutcome]]] = {}
        self._writes: set[asyncio.Task[None]] = set()  # held until done, or the loop may drop them

    def from_memory(self, query: Query, route: Route) -> Answer | None:
        """The current snapshot's answer if tier 1 has it, without awaiting anything: the hit
        path, kept as short as possible. None for a miss and for archives (use ``answer``)."""
        snapshot = self.store.current
        if snapshot is None or query.year is not None:
            return None
        request = request_key(route, query)
        cached = self.memory.get(cache_key(snapshot, request))
        if cached is None:
            return None
        self.metrics.memory_hit.inc()
        if self.redis is not None:
            self.redis.count(snapshot.id, request)
        return cached

    async def answer(self, query: Query, route: Route) -> tuple[Answer, CacheOutcome]:
        """Return the answer for ``query`` on ``route`` and where it came from.

        Raises NotReady without a current snapshot, ArchiveNotFound for an unavailable
        year (docs/API.md, Parameters: year) and, on the legacy route only, CountryNotFound.
        """
        snapshot = await self._snapshot(query)
        request = request_key(route, query)
        key = cache_key(snapshot, request)
        cached = self.memory.get(key)
        if cached is not None:
            self.metrics.memory_hit.inc()
            self._count(snapshot, request)
            return cached, CacheOutcome.HIT
        self.metrics.memory_miss.inc()
        pending = self._inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)  # a follower: its cancellation is its own
        pending = self._inflight[key] = asyncio.get_running_loop().create_future()
        try:
            result = await self._fill(key, snapshot, query, route)
        except asyncio.CancelledError:
            pending.cancel()
            raise
        except Exception as error:  # handed to the followers, then raised here as well
            pending.set_exception(error)
            pending.exception()  # retrieved: with no follower asyncio would warn it never was
            raise
        else:
            pending.set_result(result)
            if result[1] is CacheOutcome.REDIS:
                self._count(snapshot, request)
            return result
        finally:
            del self._inflight[key]

    async def _fill(self, key: str, snapshot: Snapshot, query: Query, route: Route) -> tuple[Answer, CacheOutcome]:
        if self.redis is not None:
            shared = await self.redis.get(key)
            if shared is not None:
                self.memory.put(key, shared)
                return shared, CacheOutcome.REDIS
        # May raise Overloaded: the leader's followers get it too (``answer``).
        answer = await self.pool.run(estimated_bytes(snapshot, query), partial(compute, snapshot, query, route))
        self.metrics.computations.inc()
        self.memory.put(key, answer)
        if self.redis is not None:
            ttl = self.ttl.current if query.year is None else self.ttl.archive
            write = asyncio.ensure_future(self.redis.put(key, answer, ttl))
            self._writes.add(write)  # the client does not wait for the shared copy
            write.add_done_callback(self._writes.discard)
        return answer, CacheOutcome.MISS

    def _count(self, snapshot: Snapshot, request: str) -> None:
        """Popularity counts only answers served from a cache: asked before and answered
        successfully, so one-off queries and errors never reach the warm-up's list."""
        if self.redis is not None:
            self.redis.count(snapshot.id, request)

    async def _snapshot(self, query: Query) -> Snapshot:
        if query.year is None:
            if self.store.current is None:
                raise NotReady()
            return self.store.current
        archive = await self.store.archive(archive_id(query.year))
        if archive is None:
            raise ArchiveNotFound(query.year)
        return archive
