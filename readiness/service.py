"""ReadinessService: from a Query to an Answer, through the cache, the snapshot and the domain."""

from __future__ import annotations

from enum import Enum

from loaders import Snapshot, SnapshotStore

from readiness.cache import Answer, AnswerCache
from readiness.envelope import answer_body
from readiness.errors import ArchiveNotFound, CountryNotFound, NotReady
from readiness.query import Query, archive_id
from readiness.select import missing_codes, project, select


class Route(Enum):
    """The two routes of SPEC 4.1; they differ only for unmatched codes (DESIGN §3)."""

    V1 = "v1"
    LEGACY = "legacy"


class CacheOutcome(Enum):
    """Where an answer came from, for the access log and metrics."""

    HIT = "hit"
    MISS = "miss"


class ReadinessService:
    """Answers queries: picks the snapshot, looks in the cache, computes on a miss."""

    def __init__(self, store: SnapshotStore, cache: AnswerCache) -> None:
        self.store = store
        self.cache = cache

    async def answer(self, query: Query, route: Route) -> tuple[Answer, CacheOutcome]:
        """Return the answer for ``query`` on ``route`` and whether the cache had it.

        Raises NotReady without a current snapshot, ArchiveNotFound for an unavailable
        year (SPEC 4.3 rule 6) and, on the legacy route only, CountryNotFound.
        """
        snapshot = await self._snapshot(query)
        key = f"{snapshot.id}|{route.value}|{query.canonical()}"
        cached = self.cache.get(key)
        if cached is not None:
            return cached, CacheOutcome.HIT
        answer = compute(snapshot, query, route)
        self.cache.put(key, answer)
        return answer, CacheOutcome.MISS

    async def _snapshot(self, query: Query) -> Snapshot:
        if query.year is None:
            if self.store.current is None:
                raise NotReady()
            return self.store.current
        archive = await self.store.archive(archive_id(query.year))
        if archive is None:
            raise ArchiveNotFound(query.year)
        return archive


def compute(snapshot: Snapshot, query: Query, route: Route) -> Answer:
    """Compute and serialize the answer to ``query`` from one snapshot, without any cache.

    On the legacy route an unmatched code is an error (DESIGN §3); on v1 it only lowers
    the count (SPEC 4.3 rule 3).
    """
    if route is Route.LEGACY:
        missing = missing_codes(snapshot, query)
        if missing:
            raise CountryNotFound(missing)
    label = "current" if query.year is None else snapshot.id
    return Answer(answer_body(query, label, project(select(snapshot, query), query)))
