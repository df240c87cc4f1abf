"""Tornado handlers: each turns an HTTP request into one call and the result back into HTTP."""

from __future__ import annotations

import time
from urllib.parse import parse_qsl

import orjson

from loaders import Snapshot, SnapshotStore
from readiness.domain.answer import Answer
from readiness.domain.citation import Citation, CitationRequest, citation_answer, download_headers
from readiness.domain.errors import NotFound, NotReady, SnapshotNotFound, UnknownParameter
from readiness.domain.explain import explain_body, explained_route
from readiness.domain.query import Route, parse_query_string
from readiness.http.base import BaseHandler
from readiness.http.representation import LEGACY_HEADERS, CachePolicy, represent_request
from readiness.metrics import CONTENT_TYPE, Metrics
from readiness.service import CacheOutcome, ReadinessService

REDIS_CHECKED = "readiness_redis_checked"
"""Set (True) on a request by the hit lane when it asked Redis for the answer and missed, so
the handler computes without asking again (``ReadinessService.answer``)."""

RELEASE_CACHE_CONTROL = "public, max-age=3600"
"""``Cache-Control`` of an answer that depends on the service's release alone, never on a snapshot
(the OpenAPI document, the route index, what a query means): an hour, as a release rolls out."""

INCOMPLETE_CACHE_CONTROL = "no-store"
"""``Cache-Control`` of an answer computed without a snapshot that could not be read
(``CacheOutcome.INCOMPLETE``): no client or edge may keep it past the outage."""


class QueryHandler(BaseHandler):
    """A route answered by ``ReadinessService`` from a parsed query: through both cache tiers,
    single-flight, the hit lane in front (``readiness/http/hits.py``), ETag/304 and gzip.

    A subclass names its ``route`` (``readiness.domain.query.Route``, whose accepted parameters the
    parser checks) and ``route_label``; the service computes its answers with the route's
    compute function (``readiness.domain.compute.COMPUTE``), or from every snapshot's summary for
    history and the catalogue.
    """

    route: Route
    route_label = "query"

    def initialize(self, service: ReadinessService, policy: CachePolicy) -> None:
        self.service = service
        self.policy = policy

    async def get(self) -> None:
        """Parse, answer through the service's tiers, send. Misses, archives and bad input
        come here; the hit lane (``readiness/http/hits.py``) has already sent current-snapshot
        tier-1 and tier-2 hits, before any handler was built."""
        query = parse_query_string(self.request.query, self.route)
        checked = getattr(self.request, REDIS_CHECKED, False)
        answer, outcome = await self.service.answer(query, self.route, redis_checked=checked)
        self.cache_outcome = outcome.value
        policy = self.policy.archive if query.pinned else self.policy.current
        self.write_answer(answer, INCOMPLETE_CACHE_CONTROL if outcome is CacheOutcome.INCOMPLETE else policy)

    head = get


class ReadinessHandler(QueryHandler):
    """``/api/v1/readiness``: the query operation (docs/API.md)."""

    route = Route.V1
    route_label = "v1"


class IndicatorsHandler(QueryHandler):
    """``/api/v1/indicators``: the indicator values as one long table (docs/API.md)."""

    route = Route.INDICATORS
    route_label = "indicators"


class HistoryHandler(QueryHandler):
    """``/api/v1/history``: scores and ranks over the Decembers and the current snapshot
    (docs/API.md), from the snapshots' summaries."""

    route = Route.HISTORY
    route_label = "history"


class AggregatesHandler(QueryHandler):
    """``/api/v1/aggregates``: summary statistics of the scores by group of economies
    (docs/API.md), from the snapshots' summaries."""

    route = Route.AGGREGATES
    route_label = "aggregates"


class SnapshotsHandler(QueryHandler):
    """``/api/v1/snapshots``: the catalogue of snapshots, indicators and the citation (docs/API.md)."""

    route = Route.SNAPSHOTS
    route_label = "snapshots"


class ChangesHandler(QueryHandler):
    """``/api/v1/snapshots/{id}/changes``: a snapshot's change report (docs/API.md)."""

    route = Route.CHANGES
    route_label = "changes"

    async def get(self, snapshot_id: str) -> None:  # type: ignore[override]  # the path's id
        """Parse, answer the report of ``snapshot_id`` (validated by the service), send."""
        query = parse_query_string(self.request.query, self.route)
        answer, outcome = await self.service.answer_changes(snapshot_id, query)
        self.cache_outcome = outcome.value
        self.write_answer(answer, self.policy.current)

    head = get  # type: ignore[assignment]  # as get: the path's id


class CitationHandler(BaseHandler):
    """``/api/v1/citation``: a listed snapshot's citation as a BibTeX, RIS or CSL-JSON file
    (docs/API.md#get-apiv1citation-the-citation-as-a-file), from its manifest's words. A few
    hundred bytes formatted per request from the summaries in memory: no cache tier, but an
    ETag, 304 and the cache policy of the data routes."""

    route_label = "citation"

    def initialize(self, store: SnapshotStore, policy: CachePolicy) -> None:
        self.store = store
        self.policy = policy

    async def get(self) -> None:
        """Parse ``format`` and ``snapshot``, format the citation, send it as an attachment.
        Raises NotReady without a current snapshot, SnapshotNotFound for an id not listed."""
        request = CitationRequest.parse(self.request.query)
        current = self.store.current
        if current is None:
            raise NotReady()
        wanted = request.snapshot
        series = current if wanted is None or wanted == current.id else await self._listed(wanted)
        citation = Citation.of(series)
        date = self.application.settings["dates"].at(time.time())
        policy = self.policy.archive if request.snapshot is not None else self.policy.current
        start_line, head, body = represent_request(
            self.request.headers, citation_answer(citation, request.format), self.default_headers, policy, date
        )
        if start_line.code == 200:  # a 304 sends no representation, hence no type or file name
            for name, value in download_headers(citation, request.format):
                head[name] = value
        self.send_response(start_line.code, head, body)

    head = get

    async def _listed(self, snapshot_id: str) -> Snapshot:
        """The series of a snapshot the catalogue lists (its summary: no archive is loaded)."""
        summaries = self.store.summaries_now()
        if summaries is None:
            summaries = await self.store.summaries()
        found = next((summary.series for summary in summaries if summary.id == snapshot_id), None)
        if found is None:
            raise SnapshotNotFound(snapshot_id)
        return found


class LegacyReadinessHandler(ReadinessHandler):
    """``/api/readiness``: v1 compatibility route, deprecated from 2027-01-01 (docs/API.md)."""

    route = Route.LEGACY
    route_label = "legacy"
    default_headers = LEGACY_HEADERS
    """Every legacy response announces its deprecation and successor (docs/DECISIONS.md#routes-and-errors)."""


class DocumentHandler(BaseHandler):
    """A fixed JSON document built at start-up: the OpenAPI description, the route index.

    It takes no parameters: like every v1 route, it answers 400 to a name it does not take
    (names beginning with ``_`` are ignored, docs/DECISIONS.md#parameter-rules).
    """

    route_label = "openapi"

    def initialize(self, document: Answer) -> None:
        self.document = document

    def get(self) -> None:
        for name, _ in parse_qsl(self.request.query, keep_blank_values=True):
            if not name.startswith("_"):
                raise UnknownParameter(name, None, ())
        self.write_answer(self.document, RELEASE_CACHE_CONTROL)

    head = get


class QueryMeaningHandler(BaseHandler):
    """``/api/v1/query/{route}``: what the request's query means to the data route ``route``
    (docs/API.md#get-apiv1queryroute-what-a-query-means), parsed by that route's own parser, so
    bad input is the 400 the data route gives. Reads no snapshot: it checks form, not existence."""

    route_label = "query-meaning"

    def get(self, name: str) -> None:
        route, path = explained_route(name)
        query = parse_query_string(self.request.query, route)
        self.write_answer(Answer.of(explain_body(query, path)), RELEASE_CACHE_CONTROL)

    head = get


class HealthHandler(BaseHandler):
    """``/healthz``: the process is alive and its event loop answers."""

    route_label = "healthz"

    def get(self) -> None:
        self.finish(b'{"status":"ok"}')

    head = get


class ReadyHandler(BaseHandler):
    """``/readyz``: a snapshot is loaded and the process is not shutting down
    (docs/OPERATIONS.md#what-readyz-warns-about).

    Still 200 when CURRENT names a snapshot this process cannot serve, the one served lost
    too many country files, or listed snapshots cannot be read (history and the catalogue are
    then answered without them, uncached): every pod reads the same volume, so a 503 would take
    them all out of the Service at once. ``warnings`` says what is wrong
    (``SnapshotStore.warnings``; docs/DECISIONS.md#snapshots-and-archives).
    """

    route_label = "readyz"

    def initialize(self, store: SnapshotStore, max_skipped_percent: int) -> None:
        self.store = store
        self.max_skipped_percent = max_skipped_percent

    def get(self) -> None:
        current = self.store.current
        if current is None or self.application.settings["lifecycle"].draining:
            raise NotReady()
        warnings = self.store.warnings(self.max_skipped_percent)
        body = {"status": "ready", "snapshot": current.id}
        self.finish(orjson.dumps({**body, "warnings": warnings} if warnings else body))

    head = get


class MetricsHandler(BaseHandler):
    """``/metrics``: Prometheus text format."""

    route_label = "metrics"

    def initialize(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def get(self) -> None:
        self.set_header("Content-Type", CONTENT_TYPE)
        self.set_header("Cache-Control", "no-store")
        self.finish(self.metrics.render())

    head = get


class NotFoundHandler(BaseHandler):
    """Every path no route serves: 404 in the error envelope."""

    route_label = "unknown"

    def prepare(self) -> None:
        super().prepare()
        raise NotFound(self.request.path)
