"""ReadinessService: from a Query to an Answer, through both cache tiers, the snapshot and the domain."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import partial

from loaders import SNAPSHOT_ID, Snapshot, SnapshotStore, Summary

from readiness.cache.answers import Answer, AnswerCache
from readiness.domain.csv_table import to_csv
from readiness.datasets import (
    check_history,
    compute_catalogue,
    compute_changes,
    compute_history,
    compute_indicators,
    indicators_cost,
)
from readiness.domain.envelope import answer_body
from readiness.domain.errors import (
    ArchiveNotFound,
    ChangeReportNotFound,
    CountryNotFound,
    InvalidSnapshotId,
    NotFound,
    NotReady,
    SnapshotNotFound,
)
from readiness.domain.meta import AnswerMeta, Format
from readiness.metrics import Metrics
from readiness.domain.query import Query, Route, archive_id
from readiness.cache.redis_tier import RedisTier
from readiness.domain.tables import Record, default_history_rows
from readiness.domain.select import columns, limited, missing_codes, project, select
from readiness.work import ComputeLimits, ComputePool, estimated_bytes

__all__ = [
    "COLLECTION_ROUTES",
    "COMPUTE",
    "CacheOutcome",
    "ReadinessService",
    "RedisTtl",
    "Route",
    "answer_meta",
    "cache_key",
    "collection_key",
    "compute",
    "compute_readiness",
    "request_key",
]


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


def answer_meta(snapshot: Snapshot, query: Query, download: str, total: int | None) -> AnswerMeta:
    """What an answer from ``snapshot`` says in its headers (docs/API.md, Headers): the
    query's format, the snapshot's id and publication date, ``total`` rows before ``limit``,
    and ``download`` (the route's name) to name a CSV file."""
    return AnswerMeta(query.format, snapshot.id, snapshot.published, total, download)


def compute_readiness(snapshot: Snapshot, query: Query, route: Route) -> Answer:
    """The answer of ``/api/v1/readiness`` and ``/api/readiness``: JSON or CSV, ``limit`` rows
    of the countries that match, ``X-Total-Count`` all of them.

    On the legacy route an unmatched code is an error (docs/DECISIONS.md); on v1 it only lowers
    the count (docs/API.md, The response: unmatched codes).
    """
    if route is Route.LEGACY:
        missing = missing_codes(snapshot, query)
        if missing:
            raise CountryNotFound(missing)
    matched = select(snapshot, query)
    rows = project(limited(matched, query.limit), query)
    meta = answer_meta(snapshot, query, "readiness", len(matched))
    if query.format is Format.CSV:
        return Answer.of(to_csv(columns(query), rows), meta)
    label = "current" if query.year is None else snapshot.id
    return Answer.of(answer_body(query, label, rows, len(matched)), meta)


Compute = Callable[[Snapshot, Query, Route], Answer]
"""How a route's answer is made from one snapshot and a query, without any cache."""

COMPUTE: dict[Route, Compute] = {
    Route.V1: compute_readiness,
    Route.LEGACY: compute_readiness,
    Route.INDICATORS: compute_indicators,
}
"""Each served route's compute function: a new route adds its own here."""


COST: dict[Route, Callable[[Snapshot, Query], int]] = {Route.INDICATORS: indicators_cost}
"""How a route's miss is priced for the compute pool, when not ``estimated_bytes``."""

COLLECTION_ROUTES = frozenset({Route.HISTORY, Route.SNAPSHOTS})
"""Routes answered from every snapshot's summary rather than from one snapshot."""

SHARED_ROUTES = frozenset(COMPUTE)
"""Routes answered from one snapshot by ``answer``: the ones whose Redis lookup the hit lane
may make itself (``from_redis``)."""

SERIES_ROW_BYTES = 220
"""About how many bytes one history row serializes to."""

CHANGES_PATH = re.compile(r"/api/v1/snapshots/([0-9]{4}-[0-9]{2})/changes/?")
"""A change report's path, as the hit lane reads its id (the route table matches it first)."""


def collection_key(current: Snapshot, summaries: Sequence[Summary], request: str) -> str:
    """The cache key of a history or catalogue answer: the current snapshot's, with a digest
    of every snapshot shown (id and content digest) before the request (docs/CACHING.md).

    Such answers change when any snapshot is published, replaced or becomes readable, so the
    key names them all; the current snapshot's id first keeps the swap's drop by prefix."""
    shown = ";".join(f"{summary.id}:{summary.series.digest}" for summary in summaries)
    digest = hashlib.blake2b(shown.encode(), digest_size=CONTENT_DIGEST_CHARS // 2).hexdigest()
    return cache_key(current, f"{digest}|{request}")


def compute(snapshot: Snapshot, query: Query, route: Route) -> Answer:
    """Compute and serialize the answer to ``query`` on ``route`` from one snapshot, without
    any cache. Raises NotFound for a route without a compute function (none is served)."""
    computer = COMPUTE.get(route)
    if computer is None:
        raise NotFound(f"/{route.value}")
    return computer(snapshot, query, route)


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
        self._inflight: dict[str, asyncio.Future[tuple[Answer, CacheOutcome] | None]] = {}
        """Per key, the lookup under way; None as its result: only Redis was asked, and missed
        (``from_redis``), so a waiter looks again itself."""
        self._writes: set[asyncio.Task[None]] = set()  # held until done, or the loop may drop them
        self._history_rows: dict[str, tuple[str, Mapping[str, Record]]] = {}
        """Per snapshot id: its content digest and its default history rows, built once."""

    def from_memory(self, query: Query, route: Route, path: str = "") -> Answer | None:
        """The current snapshot's answer if tier 1 has it, without awaiting anything: the hit
        path, kept as short as possible. None for a miss and for archives (use ``answer``).
        ``path`` is the request's, for the change report route (its id is in the path)."""
        snapshot = self.store.current
        if snapshot is None or query.year is not None:
            return None
        if route in COLLECTION_ROUTES or route is Route.CHANGES:
            return self._data_from_memory(snapshot, query, route, path)
        request = request_key(route, query)
        cached = self.memory.get(cache_key(snapshot, request))
        if cached is None:
            return None
        self.metrics.memory_hit.inc()
        if self.redis is not None:
            self.redis.count(snapshot.id, request)
        return cached

    def shares(self, query: Query, route: Route) -> bool:
        """Whether ``from_redis`` looks for this query: a current-snapshot answer of a route
        answered from one snapshot, with Redis configured."""
        return self.redis is not None and self.store.current is not None and query.year is None and route in SHARED_ROUTES

    async def from_redis(self, query: Query, route: Route) -> tuple[Answer, CacheOutcome] | None:
        """The current snapshot's answer from tier 2, for the hit lane after a tier-1 miss
        (only where ``shares``): Redis asked once per key at a time, never a computation; a
        lookup or computation under way for the key is joined instead. None when Redis does
        not have it or the joined work failed: the handler then computes, and
        ``answer(..., redis_checked=True)`` skips the lookup already made."""
        snapshot = self.store.current
        if self.redis is None or snapshot is None or not self.shares(query, route):
            return None
        request = request_key(route, query)
        key = cache_key(snapshot, request)
        pending = self._inflight.get(key)
        if pending is not None:
            try:
                joined = await asyncio.shield(pending)
            except Exception:  # the handler computes again and renders the error
                return None
            if joined is not None:
                self.metrics.memory_miss.inc()
            return joined
        pending = self._inflight[key] = asyncio.get_running_loop().create_future()
        result: tuple[Answer, CacheOutcome] | None = None
        try:
            shared = await self.redis.get(key)
            if shared is not None:
                self.metrics.memory_miss.inc()
                self.memory.put(key, shared)
                self._count(snapshot, request)
                result = (shared, CacheOutcome.REDIS)
        finally:
            del self._inflight[key]
            pending.set_result(result)  # also when cancelled: waiters then look again
        return result

    def _data_from_memory(self, current: Snapshot, query: Query, route: Route, path: str) -> Answer | None:
        """``from_memory`` for history, the catalogue and change reports: their keys need the
        summaries, which are in memory once read (``summaries_now``)."""
        summaries = self.store.summaries_now()
        if summaries is None:
            return None
        if route is Route.CHANGES:
            match = CHANGES_PATH.fullmatch(path)
            summary = None if match is None else _summary_of(summaries, match.group(1))
            if summary is None:
                return None
            key = cache_key(summary.series, request_key(route, query))
        else:
            key = collection_key(current, summaries, request_key(route, query))
        cached = self.memory.get(key)
        if cached is not None:
            self.metrics.memory_hit.inc()
        return cached

    async def answer_collection(self, query: Query, route: Route) -> tuple[Answer, CacheOutcome]:
        """The answer of history or the catalogue (``COLLECTION_ROUTES``), computed from every
        snapshot's summary (read first if not in memory) through both tiers.

        Raises NotReady without a current snapshot, InvalidParameter for history ``fields``
        that history rows lack."""
        current = self._current()
        if route is Route.HISTORY:
            check_history(query)
        summaries = self.store.summaries_now()
        if summaries is None:
            summaries = await self.store.summaries()
        key = collection_key(current, summaries, request_key(route, query))
        if route is Route.HISTORY:
            cost = SERIES_ROW_BYTES * sum(summary.economies for summary in summaries)
            job: Callable[[], Answer] = partial(compute_history, summaries, current.id, query, self._rows_of)
        else:
            cost, job = 0, partial(compute_catalogue, summaries, current)
        return await self._through_tiers(key, None, partial(self.pool.run, cost, job), self.ttl.current)

    def _rows_of(self, series: Snapshot) -> Mapping[str, Record]:
        """The default history rows of ``series``, built on first use and kept per snapshot id
        (one set per snapshot on disk; a replaced snapshot's digest rebuilds them)."""
        held = self._history_rows.get(series.id)
        if held is None or held[0] != series.digest:
            held = (series.digest, default_history_rows(series))
            self._history_rows[series.id] = held  # one assignment: safe from a compute thread
        return held[1]

    async def answer_changes(self, snapshot_id: str, query: Query) -> tuple[Answer, CacheOutcome]:
        """The change report of snapshot ``snapshot_id`` (a path segment) through both tiers.

        Raises InvalidSnapshotId unless it is ``YYYY-MM``, SnapshotNotFound unless the
        catalogue lists it, ChangeReportNotFound when it has no usable report. The id reaches
        the file system only as a listed snapshot's id (``SnapshotStore.change_report``)."""
        self._current()
        if not SNAPSHOT_ID.fullmatch(snapshot_id):
            raise InvalidSnapshotId(snapshot_id)
        summaries = self.store.summaries_now()
        if summaries is None:
            summaries = await self.store.summaries()
        summary = _summary_of(summaries, snapshot_id)
        if summary is None:
            raise SnapshotNotFound(snapshot_id)
        if not summary.has_changes:
            raise ChangeReportNotFound(snapshot_id)
        series = summary.series

        async def produce() -> Answer:
            raw = await self.store.change_report(snapshot_id)
            if raw is None:
                raise ChangeReportNotFound(snapshot_id, damaged=True)
            return await self.pool.run(len(raw), partial(compute_changes, series, raw, query))

        key = cache_key(series, request_key(Route.CHANGES, query))
        return await self._through_tiers(key, None, produce, self.ttl.archive)

    async def answer(self, query: Query, route: Route, *, redis_checked: bool = False) -> tuple[Answer, CacheOutcome]:
        """Return the answer for ``query`` on ``route`` and where it came from.

        Raises NotReady without a current snapshot, ArchiveNotFound for an unavailable
        year (docs/API.md, Parameters: year) and, on the legacy route only, CountryNotFound.
        History and the catalogue are answered from every snapshot (``answer_collection``).
        ``redis_checked``: the hit lane asked Redis for this request and it missed, so a miss
        here computes without asking again.
        """
        if route in COLLECTION_ROUTES:
            return await self.answer_collection(query, route)
        snapshot = await self._snapshot(query)
        request = request_key(route, query)
        cost = COST.get(route, estimated_bytes)(snapshot, query)
        produce = partial(self.pool.run, cost, partial(compute, snapshot, query, route))
        ttl = self.ttl.current if query.year is None else self.ttl.archive
        return await self._through_tiers(cache_key(snapshot, request), (snapshot, request), produce, ttl,
                                         ask_redis=not redis_checked)

    async def _through_tiers(
        self,
        key: str,
        counted: tuple[Snapshot, str] | None,
        produce: Callable[[], Awaitable[Answer]],
        ttl: int,
        *,
        ask_redis: bool = True,
    ) -> tuple[Answer, CacheOutcome]:
        """The answer under ``key``: tier 1, then (once per key at a time) Redis unless
        ``ask_redis`` is False, then ``produce`` (which may raise: the leader's followers get
        the error too). ``counted`` is the (snapshot, request) popularity counts cached
        answers under, if any."""
        cached = self.memory.get(key)
        if cached is not None:
            self.metrics.memory_hit.inc()
            if counted is not None:
                self._count(*counted)
            return cached, CacheOutcome.HIT
        self.metrics.memory_miss.inc()
        pending = self._inflight.get(key)
        while pending is not None:
            joined = await asyncio.shield(pending)  # a follower: its cancellation is its own
            if joined is not None:
                return joined
            # The lane's lookup missed Redis: the first waiter computes; a waiter that runs only
            # after that computation finished finds it in tier 1.
            cached = self.memory.get(key)
            if cached is not None:
                return cached, CacheOutcome.HIT
            pending = self._inflight.get(key)
        pending = self._inflight[key] = asyncio.get_running_loop().create_future()
        try:
            result = await self._fill(key, produce, ttl, ask_redis)
        except asyncio.CancelledError:
            pending.cancel()
            raise
        except Exception as error:  # handed to the followers, then raised here as well
            pending.set_exception(error)
            pending.exception()  # retrieved: with no follower asyncio would warn it never was
            raise
        else:
            pending.set_result(result)
            if result[1] is CacheOutcome.REDIS and counted is not None:
                self._count(*counted)
            return result
        finally:
            del self._inflight[key]

    async def _fill(
        self, key: str, produce: Callable[[], Awaitable[Answer]], ttl: int, ask_redis: bool
    ) -> tuple[Answer, CacheOutcome]:
        if self.redis is not None and ask_redis:
            shared = await self.redis.get(key)
            if shared is not None:
                self.memory.put(key, shared)
                return shared, CacheOutcome.REDIS
        # May raise Overloaded: the leader's followers get it too (``_through_tiers``).
        answer = await produce()
        self.metrics.computations.inc()
        self.memory.put(key, answer)
        if self.redis is not None:
            write = asyncio.ensure_future(self.redis.put(key, answer, ttl))
            self._writes.add(write)  # the client does not wait for the shared copy
            write.add_done_callback(self._writes.discard)
        return answer, CacheOutcome.MISS

    def _count(self, snapshot: Snapshot, request: str) -> None:
        """Popularity counts only answers served from a cache: asked before and answered
        successfully, so one-off queries and errors never reach the warm-up's list."""
        if self.redis is not None:
            self.redis.count(snapshot.id, request)

    def _current(self) -> Snapshot:
        if self.store.current is None:
            raise NotReady()
        return self.store.current

    async def _snapshot(self, query: Query) -> Snapshot:
        if query.year is None:
            return self._current()
        archive = await self.store.archive(archive_id(query.year))
        if archive is None:
            raise ArchiveNotFound(query.year)
        return archive


def _summary_of(summaries: Sequence[Summary], snapshot_id: str) -> Summary | None:
    return next((summary for summary in summaries if summary.id == snapshot_id), None)
