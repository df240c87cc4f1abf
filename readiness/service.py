"""ReadinessService: from a Query to an Answer, through both cache tiers, the snapshots and the
route's compute function (its ``source``: ``readiness/domain/route.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import partial

from loaders import SNAPSHOT_ID, SingleFlight, Snapshot, SnapshotStore, Summary
from readiness.cache.admission import RedisAdmission
from readiness.cache.answers import AnswerCache
from readiness.cache.keys import cache_key, collection_key, pinned_key, request_key, snapshots_key
from readiness.cache.redis_tier import RedisTier
from readiness.domain.answer import Answer
from readiness.domain.errors import (
    AnswerTooLarge,
    ArchiveNotFound,
    ChangeReportNotFound,
    InvalidFilesSnapshotId,
    InvalidSnapshotId,
    NotReady,
    SnapshotNotFound,
)
from readiness.domain.package import CURRENT
from readiness.domain.query import Query
from readiness.domain.route import FromFiles, FromReport, FromSnapshots, FromSummaries, Route
from readiness.domain.tables import shown_over_time, snapshots_over_time
from readiness.metrics import Metrics
from readiness.work import ComputeLimits, ComputePool


class CacheOutcome(Enum):
    """Where an answer came from, for the access log."""

    HIT = "hit"
    REDIS = "redis"
    MISS = "miss"
    INCOMPLETE = "incomplete"
    """Computed without a snapshot that could not be read (``SnapshotStore.missing``): kept
    in no tier, and sent with ``Cache-Control: no-store``."""


ARCHIVE_READ_BYTES = 256 * 1024
"""What reading an archive the store does not hold costs a client's budget: about 30 ms of a
second of 8 MiB, the CPU of reviving a packed archive on a busy machine (a first read from
its files costs more, once per process)."""

NARROWING = ("codes", "indicators", "years", "fields", "region", "income")
"""The parameters that make an answer smaller, in the order a refusal names them."""

Found = tuple[Answer, CacheOutcome]
"""An answer and where it came from."""


@dataclass(frozen=True, slots=True)
class RedisTtl:
    """How long Redis keeps answers: archives never change, so theirs may live longer."""

    current: int
    archive: int


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
        admission: RedisAdmission | None = None,
        *,
        max_answer_bytes: int | None = None,
    ) -> None:
        """Without ``pool``, every miss is computed on the event loop, without a bound;
        without ``admission``, every computed answer is written to Redis at once; without
        ``max_answer_bytes``, an answer of any estimated size is computed."""
        self.store = store
        self.memory = memory
        self.metrics = metrics
        self.redis = redis
        self.ttl = ttl
        self.pool = pool if pool is not None else ComputePool(ComputeLimits(0, 0, 0), metrics)
        self.admission = admission if admission is not None else RedisAdmission(0)
        """Which computed answers go to Redis: those asked for again (``_offer``)."""
        self.max_answer_bytes = max_answer_bytes
        self._flights: SingleFlight[Found | None] = SingleFlight()
        """Per key, the lookup under way; None as its result: only Redis was asked, and missed
        (``from_redis``), so a waiter looks again itself."""
        self._writes: set[asyncio.Task[None]] = set()  # held until done, or the loop may drop them

    def from_memory(self, query: Query, route: Route, path: Sequence[str] = (), client: str = "") -> Answer | None:
        """The current snapshot's answer if tier 1 has it, without awaiting anything: the hit
        path, kept as short as possible. None for a miss and for archives (use ``answer``).
        ``path``: the arguments of the route's path (a change report's snapshot id);
        ``client``: who asked (``readiness/http/clients.py``), for Redis admission."""
        snapshot = self.store.current
        if snapshot is None or query.pinned:
            return None
        if not _one_snapshot(query, route):
            return self._keyed_from_memory(snapshot, query, route, path)
        request = request_key(route, query)
        cached = self.memory.get(key := cache_key(snapshot, request))
        if cached is None:
            return None
        self.metrics.memory_hit.inc()
        if self.redis is not None:
            self.redis.count(snapshot.id, request)
            if hash(key) in self.admission.pending:  # computed once, not yet in Redis
                self._asked_again(key, cached, self.ttl.current, client)
        return cached

    def shares(self, query: Query, route: Route) -> bool:
        """Whether ``from_redis`` looks for this query: a current-snapshot answer of a route
        answered from one snapshot, with Redis configured."""
        return (self.redis is not None and self.store.current is not None
                and not query.pinned and _one_snapshot(query, route))

    async def from_redis(self, query: Query, route: Route) -> Found | None:
        """The current snapshot's answer from tier 2, for the hit lane after a tier-1 miss
        (only where ``shares``): Redis asked once per key at a time, never a computation; a
        lookup or computation under way for the key is joined instead. None when Redis does
        not have it or the joined work failed: the handler then computes, and
        ``answer(..., redis_checked=True)`` skips the lookup already made."""
        snapshot = self.store.current
        redis = self.redis
        if redis is None or snapshot is None or not self.shares(query, route):
            return None
        request = request_key(route, query)
        key = cache_key(snapshot, request)

        async def lookup() -> Found | None:
            shared = await redis.get(key)
            if shared is None:
                return None
            self.memory.put(key, shared)
            self._count(snapshot, request)
            return shared, CacheOutcome.REDIS

        try:
            found = await self._flights.run(key, lookup)
        except Exception:  # a joined computation failed: the handler computes again and renders the error
            return None
        if found is not None:
            self.metrics.memory_miss.inc()
        return found

    def _keyed_from_memory(self, current: Snapshot, query: Query, route: Route, path: Sequence[str]) -> Answer | None:
        """``from_memory`` for the answers whose keys need the summaries, which are in memory
        once read (``summaries_now``): those from the summaries, a change report, the indicator
        table over ``years``."""
        summaries = self.store.summaries_now()
        if summaries is None:
            return None
        request = request_key(route, query)
        source = route.source
        if isinstance(source, FromReport | FromFiles):
            wanted = current.id if isinstance(source, FromFiles) and path == (CURRENT,) else path[0] if path else ""
            summary = _summary_of(summaries, wanted)
            if summary is None:
                return None
            key = pinned_key(summary.series, current.id, request)
        elif isinstance(source, FromSnapshots):  # over years: keyed by the snapshots the range shows
            key = snapshots_key(current, shown_over_time(summaries, current.id, query.years, query.recent), request)
        else:
            key = collection_key(current, summaries, request)
        cached = self.memory.get(key)
        if cached is not None:
            self.metrics.memory_hit.inc()
        return cached

    async def answer(
        self, query: Query, route: Route, path: Sequence[str] = (), *, redis_checked: bool = False, client: str = ""
    ) -> Found:
        """Return the answer for ``query`` on ``route`` and where it came from, the way the
        route's source says (``Route.source``): from whole snapshots (one, or several over
        ``years``), from every snapshot's summary, or from a change report (``path``: the
        arguments of the route's path, the report's snapshot id).

        Raises NotReady without a current snapshot, and the route's 404s: ArchiveNotFound for an
        unavailable year (docs/API.md#parameters: year), SnapshotNotFound for a ``snapshot`` the
        catalogue does not list, NoSnapshotInYears, ChangeReportNotFound and, on the legacy route
        only, CountryNotFound; AnswerTooLarge beyond ``max_answer_bytes``. ``redis_checked``: the
        hit lane asked Redis for this request and it missed, so a miss here computes without
        asking again. ``client``: who asked (``readiness/http/clients.py``), whose share of the
        compute budget a miss takes and whose second request may admit an answer to Redis.
        """
        source = route.source
        if isinstance(source, FromSummaries):
            return await self._from_summaries(source, query, route, client)
        if isinstance(source, FromReport):
            return await self._from_report(source, query, route, path, client)
        if isinstance(source, FromFiles):
            return await self._from_files(source, query, route, path, client)
        if query.over_time:
            return await self._from_snapshots_over_time(source, query, route, client)
        return await self._from_snapshot(source, query, route, redis_checked, client)

    async def produced(self, key: str, cost: int, job: Callable[[], Answer], client: str = "") -> Found:
        """An answer that is no route's (a page's preview image: ``readiness/pages/preview.py``)
        under ``key`` (``readiness.cache.keys``), as a route's is kept and priced: both tiers,
        one computation per key at a time, ``job`` run by the compute pool at ``cost``
        (estimated bytes of the budget) for ``client``. Raises Overloaded when the budget
        refuses it."""
        return await self._through_tiers(key, None, partial(self.pool.run, cost, job, client), self.ttl.current, client)

    async def _from_snapshot(
        self, source: FromSnapshots, query: Query, route: Route, redis_checked: bool, client: str
    ) -> Found:
        """An answer from the one snapshot the query chooses: the current one, or the one
        ``year`` or ``snapshot`` pins (``SnapshotStore.archive``), through both tiers."""
        request = request_key(route, query)
        ttl = self.ttl.archive if query.pinned else self.ttl.current
        if query.pinned and (held := self._pinned_from_memory(query, request, client)) is not None:
            return held, CacheOutcome.HIT
        snapshot = await self._snapshot(query, client)
        chosen, current_id = [snapshot], self._current().id
        produce = self._priced(route, source.cost(chosen, query),
                               partial(source.compute, chosen, current_id, query, route), client)
        key = pinned_key(snapshot, current_id, request) if query.pinned else cache_key(snapshot, request)
        return await self._through_tiers(key, (snapshot, request), produce, ttl, client, ask_redis=not redis_checked)

    async def _from_summaries(self, source: FromSummaries, query: Query, route: Route, client: str) -> Found:
        """An answer computed from every snapshot's summary (read first if not in memory)
        through both tiers; computed apart from them (INCOMPLETE) while a snapshot it should
        show has no summary (docs/CACHING.md). The route's cost function raises its 404s
        before any work is admitted."""
        current = self._current()
        summaries = await self._summaries()
        produce = self._priced(route, source.cost(summaries, current, query),
                               partial(source.compute, summaries, current, query, route), client)
        if self.store.missing():  # its key names the snapshots shown, but no cache may keep an answer lacking one
            return await self._incomplete(produce)
        key = collection_key(current, summaries, request_key(route, query))
        return await self._through_tiers(key, None, produce, self.ttl.current, client)

    async def _from_report(
        self, source: FromReport, query: Query, route: Route, path: Sequence[str], client: str
    ) -> Found:
        """The change report of the snapshot the path names, through both tiers.

        Raises InvalidSnapshotId unless it is ``YYYY-MM``, SnapshotNotFound unless the
        catalogue lists it, ChangeReportNotFound when it has no usable report. The id reaches
        the file system only as a listed snapshot's id (``SnapshotStore.change_report``)."""
        current = self._current()
        snapshot_id = path[0] if path else ""
        if not SNAPSHOT_ID.fullmatch(snapshot_id):
            raise InvalidSnapshotId(snapshot_id)
        summaries = await self._summaries()
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
            return await self.pool.run(len(raw), partial(source.compute, series, current.id, raw, query, route), client)

        key = pinned_key(series, current.id, request_key(route, query))
        return await self._through_tiers(key, None, produce, self.ttl.archive, client)

    async def _from_files(
        self, source: FromFiles, query: Query, route: Route, path: Sequence[str], client: str
    ) -> Found:
        """A bulk file of the snapshot the path names (``current``, or an id the catalogue lists),
        through both tiers, keyed by the snapshot's id and content digest (its summary's), so a
        file in tier 1 never reads an archive; built on a miss from the loaded snapshot, priced
        by the route's cost function (docs/API.md#downloads).

        Raises InvalidFilesSnapshotId unless ``current`` or ``YYYY-MM``, SnapshotNotFound unless the
        catalogue lists it (or its archive cannot be read now). The id reaches the file system
        only as a listed snapshot's id (``SnapshotStore.archive``)."""
        current = self._current()
        wanted = current.id if tuple(path) == (CURRENT,) else path[0] if path else ""
        if not SNAPSHOT_ID.fullmatch(wanted):
            raise InvalidFilesSnapshotId(wanted)
        summaries = await self._summaries()
        summary = _summary_of(summaries, wanted)
        if summary is None:
            raise SnapshotNotFound(wanted)
        key = cache_key(summary.series, request_key(route, query))
        cached = self._from_tier1(key, None, self.ttl.archive, client)
        if cached is not None:
            return cached, CacheOutcome.HIT
        snapshot = current if wanted == current.id else await self._archive(wanted, client)
        if snapshot is None:
            raise SnapshotNotFound(wanted)
        produce = self._priced(route, source.cost(snapshot), partial(source.compute, snapshot, summary, query, route),
                               client)
        return await self._through_tiers(key, None, produce, self.ttl.archive, client)

    def _pinned_from_memory(self, query: Query, request: str, client: str) -> Answer | None:
        """A pinned query's answer in tier 1, found under the key of the summary held for its
        snapshot (the same id and content digest as the snapshot's), so that a cached answer
        never reads an archive: a client cycling through more snapshots than the store has
        archive slots would otherwise revive one per request (docs/DECISIONS.md#snapshots-and-archives).
        None on a miss, or with no summary held: ``answer`` then reads the archive and keys by it."""
        current = self._current()
        wanted = query.snapshot_in(current.id)
        summary = None if wanted is None or wanted > current.id else self.store.summary(wanted)
        if summary is None:
            return None
        key = pinned_key(summary.series, current.id, request)
        return self._from_tier1(key, (summary.series, request), self.ttl.archive, client)

    async def _from_snapshots_over_time(
        self, source: FromSnapshots, query: Query, route: Route, client: str
    ) -> Found:
        """An answer over ``years`` or ``mrv``: from every snapshot history shows for them
        (``tables.snapshots_over_time``), each read whole through ``SnapshotStore.archive`` (its
        slots and read timeout) only on a tier-1 miss, through both tiers under a key naming every
        snapshot used (``snapshots_key``). Computed apart from the tiers (INCOMPLETE) while one of
        them cannot be read.

        Raises NotReady without a current snapshot, NoSnapshotInYears when the range selects
        none, ArchiveNotFound when none of those it selects can be read."""
        current = self._current()
        summaries = await self._summaries()
        chosen = snapshots_over_time(summaries, current.id, query.years, query.recent)
        request = request_key(route, query)
        cached = self._from_tier1(snapshots_key(current, chosen, request), None, self.ttl.current, client)
        if cached is not None:
            return cached, CacheOutcome.HIT
        loaded = [await self._archive(series.id, client) for series in chosen]
        snapshots = [snapshot for snapshot in loaded if snapshot is not None]
        if not snapshots:  # none readable now: as for year= with its archive unreadable
            raise ArchiveNotFound(int(chosen[-1].id[:4]))
        produce = self._priced(route, source.cost(snapshots, query),
                               partial(source.compute, snapshots, current.id, query, route), client)
        if self.store.missing() or len(snapshots) < len(chosen):  # no cache may keep an answer lacking one
            return await self._incomplete(produce)
        key = snapshots_key(current, snapshots, request)  # the snapshots read: the same digests as ``chosen``'s
        return await self._through_tiers(key, None, produce, self.ttl.current, client)

    def _priced(
        self, route: Route, price: int, job: Callable[[], Answer], client: str
    ) -> Callable[[], Awaitable[Answer]]:
        """``job`` as the pool runs it for ``client`` at ``price`` (estimated bytes). Raises
        AnswerTooLarge now, before any work, when ``price`` is over ``max_answer_bytes``,
        naming the parameters of ``route`` that ask for less."""
        if self.max_answer_bytes is not None and price > self.max_answer_bytes:
            narrowing = tuple(name for name in NARROWING if name in route.grammar)
            raise AnswerTooLarge(price, self.max_answer_bytes, route.paged, narrowing)
        return partial(self.pool.run, price, job, client)

    async def _through_tiers(
        self,
        key: str,
        counted: tuple[Snapshot, str] | None,
        produce: Callable[[], Awaitable[Answer]],
        ttl: int,
        client: str,
        *,
        ask_redis: bool = True,
    ) -> Found:
        """The answer under ``key``: tier 1, then (once per key at a time) Redis unless
        ``ask_redis`` is False, then ``produce`` (which may raise: the leader's followers get
        the error too). ``counted`` is the (snapshot, request) popularity counts cached
        answers under, if any; ``client`` who asked."""
        cached = self._from_tier1(key, counted, ttl, client)
        if cached is not None:
            return cached, CacheOutcome.HIT
        self.metrics.memory_miss.inc()
        fill = partial(self._fill, key, counted, produce, ttl, ask_redis, client)
        while (found := await self._flights.run(key, fill)) is None:
            # Joined the hit lane's Redis lookup, which missed. A computation that finished
            # since is in tier 1; otherwise run again, as the leader or behind a new one.
            cached = self.memory.get(key)
            if cached is not None:
                return cached, CacheOutcome.HIT
        return found

    def _from_tier1(self, key: str, counted: tuple[Snapshot, str] | None, ttl: int, client: str) -> Answer | None:
        """The answer under ``key`` in tier 1, counted as a hit (and in popularity, for
        ``counted``; written to Redis if asked for again within the admission window); None
        on a miss, not counted (the caller's next step does)."""
        cached = self.memory.get(key)
        if cached is None:
            return None
        self.metrics.memory_hit.inc()
        if counted is not None:
            self._count(*counted)
        if hash(key) in self.admission.pending:
            self._asked_again(key, cached, ttl, client)
        return cached

    async def _fill(
        self,
        key: str,
        counted: tuple[Snapshot, str] | None,
        produce: Callable[[], Awaitable[Answer]],
        ttl: int,
        ask_redis: bool,
        client: str,
    ) -> Found:
        """The leader's work for ``key``: Redis, then ``produce``; the answer is kept in tier 1
        and offered to Redis (``_offer``)."""
        if self.redis is not None and ask_redis:
            shared = await self.redis.get(key)
            if shared is not None:
                self.memory.put(key, shared)
                if counted is not None:
                    self._count(*counted)
                return shared, CacheOutcome.REDIS
        # May raise Overloaded: the leader's followers get it too.
        answer = await produce()
        self.metrics.computations.inc()
        self.memory.put(key, answer)
        self._offer(key, answer, ttl, client)
        return answer, CacheOutcome.MISS

    def _offer(self, key: str, answer: Answer, ttl: int, client: str) -> None:
        """A computed answer goes to Redis if another client asked for it within the admission
        window, or if it is too large for Redis (``put`` counts and drops it); otherwise its key
        is noted, and the next request for it from another client writes it
        (docs/CACHING.md#redis-admission)."""
        if self.redis is None:
            return
        if self.redis.fits(answer) and not self.admission.admit(key, client):
            self.metrics.redis_deferred.inc()
            return
        self._write(key, answer, ttl)

    def _asked_again(self, key: str, cached: Answer, ttl: int, client: str) -> None:
        """A tier-1 hit on a key computed once and not yet in Redis: written now if another
        client's request noted it within the admission window."""
        if self.redis is not None and self.admission.admit(key, client):
            self._write(key, cached, ttl)

    def _write(self, key: str, answer: Answer, ttl: int) -> None:
        """Write ``answer`` to Redis in the background: the client does not wait for it."""
        if self.redis is not None:
            write = asyncio.ensure_future(self.redis.put(key, answer, ttl))
            self._writes.add(write)  # held until done, or the loop may drop it
            write.add_done_callback(self._writes.discard)

    def _count(self, snapshot: Snapshot, request: str) -> None:
        """Popularity counts only answers served from a cache: asked before and answered
        successfully, so one-off queries and errors never reach the warm-up's list."""
        if self.redis is not None:
            self.redis.count(snapshot.id, request)

    async def _summaries(self) -> Sequence[Summary]:
        """Every listed snapshot's summary: those in memory, else read (``SnapshotStore.summaries``)."""
        summaries = self.store.summaries_now()
        return summaries if summaries is not None else await self.store.summaries()

    async def _incomplete(self, produce: Callable[[], Awaitable[Answer]]) -> Found:
        """An answer computed while a snapshot it should show cannot be read: through the pool,
        but kept in no tier (INCOMPLETE)."""
        answer = await produce()
        self.metrics.computations.inc()
        return answer, CacheOutcome.INCOMPLETE

    def _current(self) -> Snapshot:
        if self.store.current is None:
            raise NotReady()
        return self.store.current

    async def _archive(self, snapshot_id: str, client: str) -> Snapshot | None:
        """``SnapshotStore.archive``; reading one the store does not hold in memory first takes
        ``ARCHIVE_READ_BYTES`` from ``client``'s share of the compute budget (it may wait, or be
        refused: Overloaded), so a client cycling through more snapshots than the store keeps
        waits for its own reads (docs/CACHING.md#archives-in-memory)."""
        if not self.store.holds(snapshot_id):
            await self.pool.charge(ARCHIVE_READ_BYTES, client)
        return await self.store.archive(snapshot_id)

    async def _snapshot(self, query: Query, client: str) -> Snapshot:
        current = self._current()  # no archive is served without a current snapshot: NotReady, not 404
        wanted = query.snapshot_in(current.id)
        if wanted is None:
            return current
        archive = await self._archive(wanted, client)
        if archive is None:
            raise ArchiveNotFound(query.year) if query.year is not None else SnapshotNotFound(wanted)
        return archive


def _one_snapshot(query: Query, route: Route) -> bool:
    """Whether ``query`` is answered from one whole snapshot (``FromSnapshots``, no ``years``):
    keyed by that snapshot alone, so the hit lane finds it without the summaries."""
    return isinstance(route.source, FromSnapshots) and not query.over_time


def _summary_of(summaries: Sequence[Summary], snapshot_id: str) -> Summary | None:
    return next((summary for summary in summaries if summary.id == snapshot_id), None)
